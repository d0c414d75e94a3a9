import FlintWire
import Foundation

extension User {
    /// The name FirebaseAuth enrolls a passkey under when it is given none.
    static let defaultPasskeyName = "Unnamed account (Apple)"

    /// The user's passkeys, as of the last sign-in or `reload()`. Never nil (optional, as in FirebaseAuth).
    public var enrolledPasskeys: [PasskeyInfo]? {
        (snapshot.passkeyInfo ?? []).map(PasskeyInfo.init)
    }

    // MARK: FirebaseAuth's API: the app runs the passkey sheet

    /// Starts enrolling a passkey on this account: fetches a challenge from the server and returns the request to
    /// perform with an `ASAuthorizationController`. Pass the credential the controller's delegate receives to
    /// ``finalizePasskeyEnrollment(withPlatformCredential:isolation:)``.
    ///
    /// - Parameter name: The passkey's name, shown on the system's sheet and in ``enrolledPasskeys``; nil or empty
    ///   gives `"Unnamed account (Apple)"`, as in FirebaseAuth.
    @available(iOS 15.0, macOS 12.0, *)
    public func startPasskeyEnrollment(withName name: String?) async throws
        -> sending ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest {
        let options = try await passkeyCreationOptions(name: name)
        state[\.pendingPasskeyName] = options.name
        return options.registrationRequest()
    }

    /// Completion-handler form of `startPasskeyEnrollment(withName:)`.
    @available(iOS 15.0, macOS 12.0, *)
    public func startPasskeyEnrollment(
        withName name: String?,
        completion: (@MainActor (ASAuthorizationPlatformPublicKeyCredentialRegistrationRequest?, (any Error)?) -> Void)? = nil
    ) {
        let requestCompletion = completion.map { completion in
            { @MainActor (options: PasskeyCreationOptions?, error: (any Error)?) in
                completion(options?.registrationRequest(), error)
            }
        }
        completeOnMainActor(requestCompletion) {
            let options = try await self.passkeyCreationOptions(name: name)
            self.state[\.pendingPasskeyName] = options.name
            return options
        }
    }

    /// Enrolls the passkey the system created for the request of ``startPasskeyEnrollment(withName:)``, under the
    /// name given there. The user gets new tokens and ``enrolledPasskeys`` lists the passkey.
    ///
    /// Throws `invalidAuthenticatorResponse` for a credential the server refuses (or one missing a part), and
    /// `credentialAlreadyInUse` for a passkey already enrolled on an account.
    ///
    /// - Parameters:
    ///   - platformCredential: The credential of the controller's `authorizationController(controller:didCompleteWithAuthorization:)`.
    ///   - isolation: The caller's actor, which the compiler passes: the credential, not `Sendable`, stays on it.
    @available(iOS 15.0, macOS 12.0, *)
    @discardableResult
    public func finalizePasskeyEnrollment(
        withPlatformCredential platformCredential: ASAuthorizationPlatformPublicKeyCredentialRegistration,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> AuthDataResult {
        let registration = try PasskeyRegistration(platformCredential)
        let result = try await finalizePasskeyEnrollment(registration, name: state[\.pendingPasskeyName] ?? Self.defaultPasskeyName)
        state[\.pendingPasskeyName] = nil
        return result
    }

    /// Completion-handler form of `finalizePasskeyEnrollment(withPlatformCredential:)`.
    @available(iOS 15.0, macOS 12.0, *)
    public func finalizePasskeyEnrollment(
        withPlatformCredential platformCredential: ASAuthorizationPlatformPublicKeyCredentialRegistration,
        completion: (@MainActor (AuthDataResult?, (any Error)?) -> Void)? = nil
    ) {
        let registration = Result { try PasskeyRegistration(platformCredential) }
        completeOnMainActor(completion) {
            let result = try await self.finalizePasskeyEnrollment(
                try registration.get(), name: self.state[\.pendingPasskeyName] ?? Self.defaultPasskeyName)
            self.state[\.pendingPasskeyName] = nil
            return result
        }
    }

    // MARK: Flint: an authenticator runs it

    /// Flint: enrolls a passkey in one call: the server's challenge, `authenticator`'s new passkey, its enrollment.
    /// Without an authenticator, the system's passkey sheet creates it (see ``PasskeyAuthenticator``).
    ///
    /// Throws what the authenticator throws (`ASAuthorizationError.canceled` when the user closes the sheet), and
    /// the errors of ``finalizePasskeyEnrollment(withPlatformCredential:isolation:)``.
    ///
    /// - Parameters:
    ///   - name: The passkey's name; nil or empty gives `"Unnamed account (Apple)"`.
    ///   - authenticator: What creates the passkey; nil for the system's passkey sheet.
    @available(iOS 15.0, macOS 12.0, *)
    @discardableResult
    public func enrollPasskey(withName name: String?, authenticator: (any PasskeyAuthenticator)? = nil) async throws
        -> AuthDataResult {
        let options = try await passkeyCreationOptions(name: name)
        let registration = try await (authenticator ?? SystemPasskeyAuthenticator()).register(options)
        return try await finalizePasskeyEnrollment(registration, name: options.name)
    }

    /// Completion-handler form of `enrollPasskey(withName:authenticator:)`.
    @available(iOS 15.0, macOS 12.0, *)
    public func enrollPasskey(withName name: String?, authenticator: (any PasskeyAuthenticator)? = nil,
                              completion: (@MainActor (AuthDataResult?, (any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.enrollPasskey(withName: name, authenticator: authenticator) }
    }

    // MARK: Removal

    /// Removes the passkey `credentialID` (a ``PasskeyInfo/credentialID`` of ``enrolledPasskeys``) from the account
    /// and reloads the profile. Throws `missingPasskeyEnrollment` for an empty ID.
    public func unenrollPasskey(withCredentialID credentialID: String) async throws {
        guard !credentialID.isEmpty else {
            throw AuthErrorUtils.error(.missingPasskeyEnrollment)
        }
        var request = UpdateAccountRequest()
        request.deletePasskey = [credentialID]
        try await updateAccount(request)
    }

    /// Completion-handler form of `unenrollPasskey(withCredentialID:)`.
    public func unenrollPasskey(withCredentialID credentialID: String, completion: (@MainActor ((any Error)?) -> Void)? = nil) {
        completeOnMainActor(completion) { try await self.unenrollPasskey(withCredentialID: credentialID) }
    }

    // MARK: Steps

    /// `passkeyEnrollment:start` for this user, the passkey to be named `name` (FirebaseAuth's default if empty).
    private func passkeyCreationOptions(name: String?) async throws -> PasskeyCreationOptions {
        let name = name.flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultPasskeyName
        return try await withFreshToken { backend, idToken in
            try await backend.startPasskeyEnrollment(idToken: idToken, name: name)
        }
    }

    /// `passkeyEnrollment:finalize`, then the user takes the new tokens and reloads its profile.
    private func finalizePasskeyEnrollment(_ registration: PasskeyRegistration, name: String) async throws -> AuthDataResult {
        try await withFreshToken { backend, idToken in
            let response = try await backend.finalizePasskeyEnrollment(idToken: idToken, name: name, registration: registration)
            try await adopt(try TokenSnapshot(response), backend: backend)
        }
        return AuthDataResult(user: self, additionalUserInfo: nil)
    }
}
