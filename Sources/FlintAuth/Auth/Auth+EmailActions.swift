import FlintWire
import Foundation

/// Email-link sign-in and the other email actions: password reset, action codes.
extension Auth {
    // MARK: Email-link sign-in

    /// Emails `email` a link that signs in (creating the account if needed) when passed, with the
    /// same address, to `signIn(withEmail:link:)`. `actionCodeSettings.handleCodeInApp` must be true
    /// (FirebaseAuth traps otherwise; FlintAuth throws `invalidContinueURI`) and its `url`, whose
    /// domain must be authorized, is where the link continues.
    public func sendSignInLink(toEmail email: String, actionCodeSettings: ActionCodeSettings) async throws {
        guard actionCodeSettings.handleCodeInApp else {
            throw AuthErrorUtils.error(
                .invalidContinueURI,
                message: "The handleCodeInApp flag in ActionCodeSettings must be true for email-link sign-in.")
        }
        var request = SendOobCodeRequest(requestType: .emailSignIn, email: email)
        actionCodeSettings.apply(to: &request)
        try await backend.sendOobCode(request)
    }

    /// Completion-handler form of `sendSignInLink(toEmail:actionCodeSettings:)`.
    public func sendSignInLink(
        toEmail email: String,
        actionCodeSettings: ActionCodeSettings,
        completion: (@MainActor ((any Error)?) -> Void)? = nil
    ) {
        completeOnMainActor(completion) {
            try await self.sendSignInLink(toEmail: email, actionCodeSettings: actionCodeSettings)
        }
    }

    /// Whether `link` is an email sign-in link (`mode=signIn` with an `oobCode`), or an app or
    /// dynamic link wrapping one in its `link` or `deep_link_id` parameter.
    public func isSignIn(withEmailLink link: String) -> Bool {
        EmailActionLink.isSignInLink(link)
    }

    /// Signs in with the sign-in link sent to `email`, creating the account on first use; the address
    /// is then verified. Throws `invalidActionCode` if `link` is not a sign-in link (see
    /// `isSignIn(withEmailLink:)`) or its code is used up, `expiredActionCode` if it expired, and
    /// `invalidEmail` if the link was sent to another address.
    @discardableResult
    public func signIn(withEmail email: String, link: String) async throws -> AuthDataResult {
        try await signIn(with: EmailAuthProvider.credential(withEmail: email, link: link))
    }

    /// Completion-handler form of `signIn(withEmail:link:)`.
    public func signIn(
        withEmail email: String,
        link: String,
        completion: (@MainActor (AuthDataResult?, (any Error)?) -> Void)? = nil
    ) {
        completeOnMainActor(completion) { try await self.signIn(withEmail: email, link: link) }
    }

    // MARK: Password reset

    /// Emails `email` a link to reset the password. Without `actionCodeSettings` the project's page
    /// handles the link; with them it continues to `actionCodeSettings.url`, or opens the app if
    /// `handleCodeInApp` is set (the app then calls `confirmPasswordReset(withCode:newPassword:)`).
    public func sendPasswordReset(withEmail email: String, actionCodeSettings: ActionCodeSettings? = nil) async throws {
        try await sendOobCode(SendOobCodeRequest(requestType: .passwordReset, email: email), settings: actionCodeSettings)
    }

    /// Completion-handler form of `sendPasswordReset(withEmail:actionCodeSettings:)` without action code settings.
    public func sendPasswordReset(withEmail email: String, completion: (@MainActor ((any Error)?) -> Void)? = nil) {
        sendPasswordReset(withEmail: email, actionCodeSettings: nil, completion: completion)
    }

    /// Completion-handler form of `sendPasswordReset(withEmail:actionCodeSettings:)`.
    public func sendPasswordReset(
        withEmail email: String,
        actionCodeSettings: ActionCodeSettings?,
        completion: (@MainActor ((any Error)?) -> Void)? = nil
    ) {
        completeOnMainActor(completion) {
            try await self.sendPasswordReset(withEmail: email, actionCodeSettings: actionCodeSettings)
        }
    }

    /// Sets a new password with the code of a password-reset link. The account's sessions end.
    public func confirmPasswordReset(withCode code: String, newPassword: String) async throws {
        _ = try await backend.resetPassword(oobCode: code, newPassword: newPassword)
    }

    /// Completion-handler form of `confirmPasswordReset(withCode:newPassword:)`.
    public func confirmPasswordReset(
        withCode code: String,
        newPassword: String,
        completion: @escaping @MainActor ((any Error)?) -> Void
    ) {
        completeOnMainActor(completion) { try await self.confirmPasswordReset(withCode: code, newPassword: newPassword) }
    }

    /// Checks a password-reset code without using it up, and returns the address it was sent to.
    public func verifyPasswordResetCode(_ code: String) async throws -> String {
        let info = try await checkActionCode(code)
        guard info.operation == .passwordReset else {
            throw AuthErrorUtils.error(.invalidActionCode, message: "The action code is not a password-reset code.")
        }
        return info.email
    }

    /// Completion-handler form of `verifyPasswordResetCode(_:)`.
    public func verifyPasswordResetCode(_ code: String, completion: @escaping @MainActor (String?, (any Error)?) -> Void) {
        completeOnMainActor(completion) { try await self.verifyPasswordResetCode(code) }
    }

    // MARK: Action codes

    /// What an action code is for, and the addresses involved, without using it up. `email` is empty
    /// when the server does not reveal it (Flint does not for sign-in codes).
    public func checkActionCode(_ code: String) async throws -> ActionCodeInfo {
        let response = try await backend.resetPassword(oobCode: code, newPassword: nil)
        return ActionCodeInfo(operation: ActionCodeOperation(requestTypeOrMode: response.requestType?.rawValue),
                              email: response.email ?? "", newEmail: response.newEmail)
    }

    /// Completion-handler form of `checkActionCode(_:)`.
    public func checkActionCode(_ code: String, completion: @escaping @MainActor (ActionCodeInfo?, (any Error)?) -> Void) {
        completeOnMainActor(completion) { try await self.checkActionCode(code) }
    }

    /// Applies an email verification, email recovery or verify-and-change-email code. A signed-in
    /// user sees the change after `User.reload()`.
    public func applyActionCode(_ code: String) async throws {
        try await backend.applyActionCode(code)
    }

    /// Completion-handler form of `applyActionCode(_:)`.
    public func applyActionCode(_ code: String, completion: @escaping @MainActor ((any Error)?) -> Void) {
        completeOnMainActor(completion) { try await self.applyActionCode(code) }
    }

    /// `accounts:sendOobCode` of `request` with `settings`, if any.
    func sendOobCode(_ request: SendOobCodeRequest, settings: ActionCodeSettings?) async throws {
        var request = request
        settings?.apply(to: &request)
        try await backend.sendOobCode(request)
    }
}
