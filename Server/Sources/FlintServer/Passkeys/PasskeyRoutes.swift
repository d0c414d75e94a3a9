import FlintWire

/// Passkey addresses: `v2/accounts/passkeyEnrollment:{start,finalize}` and `v2/accounts/passkeySignIn:{start,finalize}`.
extension PasskeyService {
    var endpoints: [Endpoint] {
        func paths(_ name: String) -> [String] { Endpoint.identityToolkitPaths(version: "v2", "accounts/\(name)") }
        return [
            .json(paths("passkeyEnrollment:start")) { (body: StartPasskeyEnrollmentRequest, caller) in
                try await startEnrollment(body, caller: caller)
            },
            .json(paths("passkeyEnrollment:finalize")) { (body: FinalizePasskeyEnrollmentRequest, caller) in
                try await finalizeEnrollment(body, caller: caller)
            },
            .json(paths("passkeySignIn:start"), budgets: [.passkeyChallengesPerClient]) { (body: StartPasskeySignInRequest, caller) in
                try await startSignIn(body, caller: caller)
            },
            .json(paths("passkeySignIn:finalize")) { (body: FinalizePasskeySignInRequest, caller) in
                try await finalizeSignIn(body, caller: caller)
            },
        ]
    }
}

extension PasskeyFinalizeResponse: SignInAnswer {}
