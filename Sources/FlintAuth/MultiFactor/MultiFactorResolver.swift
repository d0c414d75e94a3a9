import FlintWire
import Foundation

/// Completes a sign-in that needs a second factor. Found under `AuthErrorUserInfoMultiFactorResolverKey` of
/// the `secondFactorRequired` error that `Auth.signIn(with:)` (and `User.reauthenticate(with:)`,
/// `User.link(with:)`) throws when the account has enrolled second factors.
///
/// ```swift
/// let hint = resolver.hints[0] as! PhoneMultiFactorInfo
/// let verificationID = try await PhoneAuthProvider.provider(auth: auth)
///     .verifyPhoneNumber(with: hint, uiDelegate: nil, multiFactorSession: resolver.session)
/// let credential = PhoneAuthProvider.provider(auth: auth).credential(withVerificationID: verificationID,
///                                                                    verificationCode: code)
/// let result = try await resolver.resolveSignIn(with: PhoneMultiFactorGenerator.assertion(with: credential))
/// ```
public final class MultiFactorResolver: NSObject, Sendable {
    /// What resolving completes.
    enum PendingOperation: Sendable {
        /// A sign-in: the account becomes the current user of this `Auth`.
        case signIn(Auth)
        /// A re-authentication (or link) of this user: it takes the new tokens.
        case updateUser(User)

        var auth: Auth {
            switch self {
            case .signIn(let auth): auth
            case .updateUser(let user): user.auth
            }
        }
    }

    /// The session to pass to `PhoneAuthProvider.verifyPhoneNumber(with:uiDelegate:multiFactorSession:)`.
    public let session: MultiFactorSession
    /// The account's second factors, phone numbers masked; the user picks one.
    public let hints: [MultiFactorInfo]
    /// The `Auth` the sign-in belongs to.
    public var auth: Auth { operation.auth }
    private let operation: PendingOperation

    init(pendingCredential: String, hints: [MultiFactorInfo], operation: PendingOperation) {
        session = MultiFactorSession(kind: .signIn(pendingCredential: pendingCredential, auth: operation.auth))
        self.hints = hints
        self.operation = operation
    }

    /// Passes the second factor of `assertion` (`mfaSignIn:finalize`) and completes the operation that
    /// asked for it: a sign-in makes the account the current user, as any sign-in does; a
    /// re-authentication gives the user its new tokens. `additionalUserInfo` is nil.
    public func resolveSignIn(with assertion: MultiFactorAssertion) async throws -> AuthDataResult {
        let backend = auth.backend
        var request = FinalizeMFASignInRequest(mfaPendingCredential: try session.pendingCredential())
        try assertion.apply(to: &request)
        let tokens = try TokenSnapshot(try await backend.finalizeMFASignIn(request))
        switch operation {
        case .signIn(let auth):
            return try await auth.completeSignIn(tokens: tokens, isAnonymous: false, additionalUserInfo: nil)
        case .updateUser(let user):
            try await user.adopt(tokens, backend: backend)
            return AuthDataResult(user: user, additionalUserInfo: nil)
        }
    }

    /// Completion-handler form of `resolveSignIn(with:)`; `completion` runs on the main actor.
    public func resolveSignIn(
        with assertion: MultiFactorAssertion,
        completion: (@MainActor (AuthDataResult?, (any Error)?) -> Void)? = nil
    ) {
        completeOnMainActor(completion) { try await self.resolveSignIn(with: assertion) }
    }
}
