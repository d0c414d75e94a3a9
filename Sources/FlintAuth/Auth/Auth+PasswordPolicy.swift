import Foundation

/// Checking a password against the password policy before sending it.
extension Auth {
    /// Checks `password` against the password policy of the tenant in ``tenantID`` (of the project without one),
    /// here on the device: the password is not sent anywhere.
    ///
    /// The policy is fetched on first use and kept for the life of this instance, one per tenant. After the server
    /// rejects a password with ``AuthErrorCode/passwordDoesNotMeetRequirements``, the next check fetches the
    /// policy again. Throws the errors of that fetch, such as ``AuthErrorCode/networkError``, and
    /// ``AuthErrorCode/internalError`` for a policy in a format FlintAuth does not know.
    public func validatePassword(_ password: String) async throws -> PasswordValidationStatus {
        try await passwordPolicy().validate(password)
    }

    /// Completion-handler form of `validatePassword(_:)`.
    public func validatePassword(
        _ password: String,
        completion: (@MainActor (PasswordValidationStatus?, (any Error)?) -> Void)? = nil
    ) {
        completeOnMainActor(completion) { try await self.validatePassword(password) }
    }

    /// The policy of the current tenant: the one kept, or else a fresh one, which is then kept.
    private func passwordPolicy() async throws -> PasswordPolicy {
        let backend = self.backend
        let tenantID = backend.configuration.tenantID
        if let policy = state.withLock({ $0.passwordPolicies[tenantID] }) {
            return policy
        }
        let policy = try PasswordPolicy(await backend.passwordPolicy())
        state.withLock { $0.passwordPolicies[tenantID] = policy }
        return policy
    }
}
