import FlintWire

/// Locks an account's password sign-in for the rest of a window after too many wrong passwords,
/// as Firebase does (`TOO_MANY_ATTEMPTS_TRY_LATER`). Counts live in the store, shared by all nodes.
/// Where the policy has no lockout (`throttlesPasswordSignIn`), every call does nothing.
struct SignInThrottle: Sendable {
    /// Wrong passwords allowed per account and window.
    static let maximumFailures: Int64 = 10
    /// Window length in seconds.
    static let window: Int64 = 15 * 60

    let store: Store
    let clock: any FlintClock
    let applies: Bool

    private func bucket(projectID: String, email: String) -> String { "password-failures:\(projectID):\(email)" }
    private var windowStart: Int64 { clock.seconds / Self.window * Self.window }

    /// Throws `TOO_MANY_ATTEMPTS_TRY_LATER` while the account is locked; checked before the password,
    /// so a locked account answers the same whether the guess is right or wrong.
    func checkAllowed(projectID: String, email: String) async throws {
        guard applies else { return }
        if try await store.counter(bucket(projectID: projectID, email: email), windowStart: windowStart) >= Self.maximumFailures {
            throw FlintError(
                .tooManyAttempts,
                "Access to this account has been temporarily disabled due to many failed login attempts.")
        }
    }

    func recordFailure(projectID: String, email: String) async throws {
        guard applies else { return }
        try await store.incrementCounter(bucket(projectID: projectID, email: email), windowStart: windowStart)
    }

    func recordSuccess(projectID: String, email: String) async throws {
        guard applies else { return }
        try await store.resetCounter(bucket(projectID: projectID, email: email))
    }
}
