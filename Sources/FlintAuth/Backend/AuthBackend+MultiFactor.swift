import FlintWire

extension Endpoint {
    private static func identityToolkitV2(_ method: String) -> Endpoint {
        Endpoint(hostAndPath: "identitytoolkit.googleapis.com/v2/\(method)")
    }

    static let startMFAEnrollment = identityToolkitV2("accounts/mfaEnrollment:start")
    static let finalizeMFAEnrollment = identityToolkitV2("accounts/mfaEnrollment:finalize")
    static let withdrawMFA = identityToolkitV2("accounts/mfaEnrollment:withdraw")
    static let startMFASignIn = identityToolkitV2("accounts/mfaSignIn:start")
    static let finalizeMFASignIn = identityToolkitV2("accounts/mfaSignIn:finalize")
}

/// The RPCs of multi-factor enrollment and second-factor sign-in.
extension AuthBackend {
    /// `mfaEnrollment:start`: texts a code to the phone to enroll, or generates a TOTP secret.
    func startMFAEnrollment(_ request: StartMFAEnrollmentRequest) async throws -> StartMFAEnrollmentResponse {
        return try await post(.startMFAEnrollment, request)
    }

    /// `mfaEnrollment:finalize`: enrolls the factor; the user's new tokens.
    func finalizeMFAEnrollment(_ request: FinalizeMFAEnrollmentRequest) async throws -> MFATokensResponse {
        return try await post(.finalizeMFAEnrollment, request)
    }

    /// `mfaEnrollment:withdraw`: removes an enrolled factor; the user's new tokens.
    func withdrawMFA(_ request: WithdrawMFARequest) async throws -> MFATokensResponse {
        return try await post(.withdrawMFA, request)
    }

    /// `mfaSignIn:start`: texts a code to an enrolled phone; returns its session info.
    func startMFASignIn(_ request: StartMFASignInRequest) async throws -> StartMFASignInResponse {
        return try await post(.startMFASignIn, request)
    }

    /// `mfaSignIn:finalize`: passes the second factor; the signed-in user's tokens.
    func finalizeMFASignIn(_ request: FinalizeMFASignInRequest) async throws -> MFATokensResponse {
        return try await post(.finalizeMFASignIn, request)
    }

    /// `post` of a first-factor sign-in (password, email link, phone, IdP): an answer that asks for a
    /// second factor instead of carrying tokens is thrown as a `SecondFactorChallenge`.
    func postFirstFactor<Tokens: Decodable>(_ endpoint: Endpoint, _ body: some Encodable) async throws -> Tokens {
        let answer: FirstFactorAnswer<Tokens> = try await post(endpoint, body)
        switch answer {
        case .tokens(let tokens): return tokens
        case .secondFactorRequired(let challenge): throw challenge
        }
    }
}

/// A first-factor answer: the tokens, or a second-factor challenge standing in for them.
private enum FirstFactorAnswer<Tokens: Decodable>: Decodable {
    case tokens(Tokens)
    case secondFactorRequired(SecondFactorChallenge)

    init(from decoder: any Decoder) throws {
        if let challenge = try? SecondFactorChallenge(from: decoder) {
            self = .secondFactorRequired(challenge)
        } else {
            self = .tokens(try Tokens(from: decoder))
        }
    }
}
