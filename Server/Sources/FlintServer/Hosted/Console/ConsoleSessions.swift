import Foundation

/// Who may use the web console, and how a browser proves it.
///
/// Production: the operator picks a service-account key file (`flint service-accounts create`) in the
/// login page. The page's script signs a short JWT with it in the browser (WebCrypto), so the private key
/// never leaves the operator's machine; the server checks it exactly as it checks an Admin SDK's
/// self-signed JWT, with the console as audience and a login challenge as nonce. Emulator mode: the
/// owner signs in with one click, as `Authorization: Bearer owner` works for any caller there.
///
/// A session is a cookie sealed with the master key (so any node can read it and none can forge it),
/// lasting `lifetimeSeconds`. Every request re-checks that its service-account key is still active, so
/// revoking the key ends the session at once, and that the session was not signed out: signing out
/// leaves a marker in the store until the session would have expired, so a copy of the cookie is dead too.
struct ConsoleSessions: Sendable {
    let serviceAccounts: ServiceAccounts
    let serviceAccountRecords: ServiceAccountStore
    /// Sign-out markers.
    let counters: CounterStore
    let secrets: SecretBox
    let clock: any FlintClock
    let random: any RandomSource
    let policy: ModePolicy
    let defaultProjectID: String
    /// The login challenges: sealed, five minutes, spent by the sign-in that uses one.
    let challenges: SingleUseTokens<String>

    static let lifetimeSeconds: Int64 = 8 * 3600
    static let sessionCookie = "flint_console"
    /// Holds the login challenge too, so a login form posted from another site (which cannot read or set
    /// it) is refused.
    static let challengeCookie = "flint_console_login"
    private static let sessionContext = "console-session"

    init(core: ServerCore, serviceAccounts: ServiceAccounts) {
        self.serviceAccounts = serviceAccounts
        serviceAccountRecords = core.store.serviceAccounts
        counters = core.store.counters
        secrets = core.secrets
        clock = core.clock
        random = core.random
        policy = core.policy
        defaultProjectID = core.configuration.projectID
        challenges = core.singleUseTokens(purpose: "console-login", lifetimeSeconds: 300)
    }

    /// A signed-in operator, as sealed into the session cookie.
    struct Session: Codable, Sendable {
        /// Names the session in its sign-out marker.
        var id: String
        /// The service-account key that signed in; nil for emulator mode's owner.
        var keyID: String?
        /// The project the console shows, or the key (`Realm.key`) of the tenant of it that is open. A service
        /// account's is its own project or one of its tenants; the emulator owner may switch projects.
        var projectID: String
        /// Every form of the session carries it; a POST without it is refused.
        var csrfToken: String
        var expiresAt: Int64

        var isOwner: Bool { keyID == nil }
    }

    /// Why a console request is refused.
    enum Refusal: Error, Equatable {
        /// No session, or one that expired or whose key was revoked: sign in (again).
        case signInRequired
        /// A sign-in attempt that failed; the text says why, for the login page.
        case signInFailed(String)
    }

    /// The audience a console login JWT must name.
    func audience(publicURL: String) -> String { publicURL + "/console" }

    /// A fresh login challenge, for the login page's form and cookie.
    func newChallenge() throws -> String { try challenges.make(random.token(byteCount: 16)) }

    /// Signs in with the challenge the form and the cookie carry and, in production, a JWT the browser
    /// signed with a service-account key. Returns the new session.
    func signIn(challenge: String?, cookieChallenge: String?, assertion: String?, publicURL: String) async throws -> Session {
        guard let challenge, let cookieChallenge,
              constantTimeEquals(Data(challenge.utf8), Data(cookieChallenge.utf8)),
              let opened = challenges.open(challenge), challenges.isLive(opened)
        else { throw Refusal.signInFailed("The sign-in form has expired. Please try again.") }
        let session: Session
        if policy.ownerTokenIsAdmin {
            session = Session(id: random.token(byteCount: 16), keyID: nil, projectID: defaultProjectID,
                              csrfToken: random.token(byteCount: 24), expiresAt: clock.seconds + Self.lifetimeSeconds)
        } else {
            guard let assertion, !assertion.isEmpty,
                  let (record, claims) = try await serviceAccounts.verify(assertion, audiences: [audience(publicURL: publicURL)]),
                  let nonce = claims.nonce, constantTimeEquals(Data(nonce.utf8), Data(challenge.utf8))
            else {
                throw Refusal.signInFailed(
                    "The key file was not accepted: it must be an active service-account key of this server.")
            }
            session = Session(id: random.token(byteCount: 16), keyID: record.keyID, projectID: record.projectID,
                              csrfToken: random.token(byteCount: 24), expiresAt: clock.seconds + Self.lifetimeSeconds)
        }
        guard try await challenges.redeem(opened) else {
            throw Refusal.signInFailed("The sign-in form has already been used. Please try again.")
        }
        return session
    }

    /// The session a cookie holds, if it is still good: not expired, made in this mode, and (production)
    /// its key still active and of the project the session is in (or in a tenant of).
    func session(cookie: String?) async throws -> Session {
        guard let cookie, let session = secrets.openToken(cookie, as: Session.self, context: Self.sessionContext),
              session.expiresAt > clock.seconds
        else { throw Refusal.signInRequired }
        if let keyID = session.keyID {
            guard let record = try await serviceAccountRecords.serviceAccount(keyID: keyID), record.revokedAt == nil,
                  record.projectID == Realm(key: session.projectID).projectID
            else { throw Refusal.signInRequired }
        } else if !policy.ownerTokenIsAdmin {
            // An owner session is emulator mode's; a production server never honours one.
            throw Refusal.signInRequired
        }
        guard try await counters.counter(Self.signedOutMarker(session), windowStart: session.expiresAt) == 0 else {
            throw Refusal.signInRequired
        }
        return session
    }

    /// Ends `session` on every node. The marker's window is the session's expiry, so the janitor removes it
    /// once the cookie would have expired anyway.
    func signOut(_ session: Session) async throws {
        try await counters.incrementCounter(Self.signedOutMarker(session), windowStart: session.expiresAt)
    }

    private static func signedOutMarker(_ session: Session) -> String { "console-signed-out:\(session.id)" }

    func cookieValue(of session: Session) throws -> String {
        try secrets.sealToken(session, context: Self.sessionContext)
    }

    /// Whether a form's token is the session's.
    static func isValid(csrfToken: String?, for session: Session) -> Bool {
        guard let csrfToken else { return false }
        return constantTimeEquals(Data(csrfToken.utf8), Data(session.csrfToken.utf8))
    }
}
