import FlintWire
import Hummingbird

/// Multi-factor addresses: `v2/accounts/mfaEnrollment:{start,finalize,withdraw}` and `v2/accounts/mfaSignIn:{start,finalize}`.
extension MultiFactorService {
    var endpoints: [Endpoint] {
        func paths(_ name: String) -> [String] { Endpoint.identityToolkitPaths(version: "v2", "accounts/\(name)") }
        return [
            .json(paths("mfaEnrollment:start"), budgets: Budget.smsSends) { (body: StartMFAEnrollmentRequest, caller) in
                try await startEnrollment(body, caller: caller)
            },
            .json(paths("mfaEnrollment:finalize"), budgets: [.totpTries]) { (body: FinalizeMFAEnrollmentRequest, caller) in
                try await finalizeEnrollment(body, caller: caller)
            },
            .json(paths("mfaEnrollment:withdraw")) { (body: WithdrawMFARequest, caller) in
                try await withdraw(body, caller: caller)
            },
            .json(paths("mfaSignIn:start"), budgets: Budget.smsSends) { (body: StartMFASignInRequest, caller) in
                try await startSignIn(body, caller: caller)
            },
            .json(paths("mfaSignIn:finalize"), budgets: [.totpTries]) { (body: FinalizeMFASignInRequest, caller) in
                try await finalizeSignIn(body, caller: caller)
            },
        ]
    }
}
