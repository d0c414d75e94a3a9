import FlintWire
import Foundation

extension Auth {
    // MARK: FirebaseAuth's API: the app runs the passkey sheet

    /// Starts a passkey sign-in: fetches a challenge from the server and returns the request to perform with an
    /// `ASAuthorizationController`. Pass the credential the controller's delegate receives to
    /// ``finalizePasskeySignIn(withPlatformCredential:isolation:)``.
    @available(iOS 15.0, macOS 12.0, *)
    public func startPasskeySignIn() async throws -> sending ASAuthorizationPlatformPublicKeyCredentialAssertionRequest {
        try await backend.startPasskeySignIn().assertionRequest()
    }

    /// Completion-handler form of `startPasskeySignIn()`.
    @available(iOS 15.0, macOS 12.0, *)
    public func startPasskeySignIn(
        completion: (@MainActor (ASAuthorizationPlatformPublicKeyCredentialAssertionRequest?, (any Error)?) -> Void)? = nil
    ) {
        let requestCompletion = completion.map { completion in
            { @MainActor (options: PasskeyRequestOptions?, error: (any Error)?) in
                completion(options?.assertionRequest(), error)
            }
        }
        completeOnMainActor(requestCompletion) { try await self.backend.startPasskeySignIn() }
    }

    /// Signs in with the passkey signature the system made for the request of ``startPasskeySignIn()``: its
    /// account becomes the current user. `additionalUserInfo` is nil, as in FirebaseAuth.
    ///
    /// Throws `missingPasskeyEnrollment` for a passkey no account has (any more), `invalidAuthenticatorResponse` for
    /// a signature the server refuses (or one missing a part), and `secondFactorRequired` if the account must still
    /// pass a second factor.
    ///
    /// - Parameters:
    ///   - platformCredential: The credential of the controller's `authorizationController(controller:didCompleteWithAuthorization:)`.
    ///   - isolation: The caller's actor, which the compiler passes: the credential, not `Sendable`, stays on it.
    @available(iOS 15.0, macOS 12.0, *)
    @discardableResult
    public func finalizePasskeySignIn(
        withPlatformCredential platformCredential: ASAuthorizationPlatformPublicKeyCredentialAssertion,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> AuthDataResult {
        let assertion = try PasskeyAssertion(platformCredential)
        return try await finalizePasskeySignIn(assertion)
    }

    /// Completion-handler form of `finalizePasskeySignIn(withPlatformCredential:)`.
    @available(iOS 15.0, macOS 12.0, *)
    public func finalizePasskeySignIn(
        withPlatformCredential platformCredential: ASAuthorizationPlatformPublicKeyCredentialAssertion,
        completion: (@MainActor (AuthDataResult?, (any Error)?) -> Void)? = nil
    ) {
        let assertion = Result { try PasskeyAssertion(platformCredential) }
        completeOnMainActor(completion) { try await self.finalizePasskeySignIn(try assertion.get()) }
    }

    // MARK: Flint: an authenticator runs it

    /// Flint: signs in with a passkey in one call: the server's challenge, `authenticator`'s signature, the sign-in.
    /// Without an authenticator, the system's passkey sheet makes the signature (see ``PasskeyAuthenticator``).
    ///
    /// Throws what the authenticator throws (`ASAuthorizationError.canceled` when the user closes the sheet), and
    /// the errors of ``finalizePasskeySignIn(withPlatformCredential:isolation:)``.
    ///
    /// - Parameter authenticator: What signs the challenge; nil for the system's passkey sheet.
    @available(iOS 15.0, macOS 12.0, *)
    @discardableResult
    public func signInWithPasskey(authenticator: (any PasskeyAuthenticator)? = nil) async throws -> AuthDataResult {
        let options = try await backend.startPasskeySignIn()
        let assertion = try await (authenticator ?? SystemPasskeyAuthenticator()).authenticate(options)
        return try await finalizePasskeySignIn(assertion)
    }

    /// Completion-handler form of `signInWithPasskey(authenticator:)`.
    @available(iOS 15.0, macOS 12.0, *)
    public func signInWithPasskey(authenticator: (any PasskeyAuthenticator)? = nil,
                                  completion: (@MainActor (AuthDataResult?, (any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.signInWithPasskey(authenticator: authenticator) }
    }

    /// `passkeySignIn:finalize`, then the account becomes the current user.
    private func finalizePasskeySignIn(_ assertion: PasskeyAssertion) async throws -> AuthDataResult {
        let response: PasskeyFinalizeResponse
        do {
            response = try await backend.finalizePasskeySignIn(assertion)
        } catch let challenge as SecondFactorChallenge {
            throw challenge.error(resolving: .signIn(self))
        }
        return try await completeSignIn(tokens: try TokenSnapshot(response), isAnonymous: false, additionalUserInfo: nil)
    }
}
