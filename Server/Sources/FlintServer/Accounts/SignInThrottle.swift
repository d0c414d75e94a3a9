import FlintWire

/// Locks an address's password sign-in for the rest of a window after too many wrong passwords,
/// as Firebase does (`TOO_MANY_ATTEMPTS_TRY_LATER`). Counts live in the store, shared by all nodes.
/// Where the policy has no lockout (`throttlesPasswordSignIn`), every call does nothing.
struct SignInThrottle: Sendable {
    /// Tries allowed per address, client and window.
    static let maximumFailures: Int64 = 10
    /// Window length in seconds.
    static let window: Int64 = 15 * 60

    let store: Store
    let clock: any FlintClock
    let applies: Bool

    /// Tries are counted per address and client: a guesser is stopped, while the owner signing in from
    /// elsewhere is not locked out by a stranger's guesses.
    private func bucket(projectID: String, email: String, client: String?) -> String {
        "password-failures:\(projectID):\(email):\(client ?? "")"
    }
    private var windowStart: Int64 { clock.seconds / Self.window * Self.window }

    /// Takes one of the address's password tries in this window, before the password is checked and
    /// whether an account has the address or not, in one atomic increment: parallel guesses get no more
    /// checks than sequential ones, and known and unknown addresses lock out alike. Throws
    /// `TOO_MANY_ATTEMPTS_TRY_LATER` when none is left, so a locked account answers the same whether the
    /// guess is right or wrong.
    func takeAttempt(projectID: String, email: String, client: String?) async throws {
        guard applies else { return }
        guard try await store.incrementCounter(bucket(projectID: projectID, email: email, client: client), windowStart: windowStart)
            <= Self.maximumFailures
        else {
            throw FlintError(
                .tooManyAttempts,
                "Access to this account has been temporarily disabled due to many failed login attempts.")
        }
    }

    /// The right password gives the address its tries back.
    func recordSuccess(projectID: String, email: String, client: String?) async throws {
        guard applies else { return }
        try await store.resetCounter(bucket(projectID: projectID, email: email, client: client))
    }
}
