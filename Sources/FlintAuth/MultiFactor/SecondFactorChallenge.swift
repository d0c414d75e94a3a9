import FlintWire
import Foundation

/// A first-factor answer for a user with enrolled second factors: no tokens, but a pending credential to
/// present with a second factor, and the factors (phone numbers masked).
///
/// `AuthBackend.postFirstFactor` throws it; `AuthCredential.exchange(for:backend:pending:)` turns it into
/// the `secondFactorRequired` error carrying a `MultiFactorResolver`.
struct SecondFactorChallenge: Error, Decodable, Sendable {
    let mfaPendingCredential: String
    let mfaInfo: [MFAEnrollment]?

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let pendingCredential = try container.decode(String.self, forKey: .mfaPendingCredential)
        guard !pendingCredential.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .mfaPendingCredential, in: container,
                                                   debugDescription: "Empty mfaPendingCredential")
        }
        mfaPendingCredential = pendingCredential
        mfaInfo = try container.decodeIfPresent([MFAEnrollment].self, forKey: .mfaInfo)
    }

    private enum CodingKeys: String, CodingKey {
        case mfaPendingCredential, mfaInfo
    }

    /// `secondFactorRequired`, with the resolver that completes `operation`.
    func error(resolving operation: MultiFactorResolver.PendingOperation) -> NSError {
        let resolver = MultiFactorResolver(pendingCredential: mfaPendingCredential,
                                           hints: (mfaInfo ?? []).compactMap(MultiFactorInfo.make),
                                           operation: operation)
        return AuthErrorUtils.error(.secondFactorRequired, userInfo: [AuthErrorUserInfoMultiFactorResolverKey: resolver])
    }
}

extension AuthCredential {
    /// `exchange(for:backend:)`, turning an answer that asks for a second factor into the
    /// `secondFactorRequired` error whose resolver completes `pending`. Every use of a credential goes
    /// through here.
    func exchange(for operation: CredentialOperation, backend: AuthBackend,
                  pending: MultiFactorResolver.PendingOperation) async throws -> CredentialExchange {
        do {
            return try await exchange(for: operation, backend: backend)
        } catch let challenge as SecondFactorChallenge {
            throw challenge.error(resolving: pending)
        }
    }
}

/// Should the challenge reach the app without passing through `AuthCredential.exchange(for:backend:pending:)`,
/// it is still a `secondFactorRequired` error (without a resolver).
extension SecondFactorChallenge: CustomNSError {
    static var errorDomain: String { AuthErrorDomain }
    var errorCode: Int { AuthErrorCode.secondFactorRequired.rawValue }
    var errorUserInfo: [String: Any] {
        [AuthErrorUserInfoNameKey: AuthErrorCode.secondFactorRequired.name,
         NSLocalizedDescriptionKey: AuthErrorCode.secondFactorRequired.defaultDescription]
    }
}
