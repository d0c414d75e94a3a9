import FlintWire
import Foundation

/// A signed-in Firebase user. Thread-safe; its properties reflect the latest server state FlintAuth saw.
public final class User: NSObject, UserInfo, Sendable {
    struct State: Sendable {
        var snapshot: UserSnapshot
        /// The token refresh in flight, which concurrent callers share.
        var refresh: Task<String, any Error>?
        /// The name `startPasskeyEnrollment(withName:)` was given, for `finalizePasskeyEnrollment(withPlatformCredential:)`.
        var pendingPasskeyName: String?
    }

    /// The `Auth` the user belongs to. Held strongly, so a user keeps working even if the app
    /// drops its `Auth`; the reference cycle with `Auth.currentUser` ends at sign-out.
    let auth: Auth
    let state: Locked<State>

    init(snapshot: UserSnapshot, auth: Auth) {
        self.auth = auth
        state = Locked(State(snapshot: snapshot))
    }

    var snapshot: UserSnapshot { state[\.snapshot] }

    // MARK: UserInfo

    /// Always `"Firebase"`.
    public var providerID: String { "Firebase" }
    /// The Firebase user ID.
    public var uid: String { snapshot.uid }
    /// The user's email address, if any.
    public var email: String? { snapshot.email }
    /// The user's phone number (E.164), if any.
    public var phoneNumber: String? { snapshot.phoneNumber }
    /// The user's display name, if set.
    public var displayName: String? { snapshot.displayName }
    /// The URL of the user's photo, if set.
    public var photoURL: URL? { snapshot.photoURL }

    // MARK: Account

    /// Whether the user signed in anonymously and has not been linked to a provider since.
    public var isAnonymous: Bool { snapshot.isAnonymous }
    /// Whether the user's email address has been verified.
    public var isEmailVerified: Bool { snapshot.isEmailVerified }
    /// The identities linked to this user, one per provider.
    public var providerData: [UserInfo] { snapshot.providerData.map(UserInfoImpl.init) }
    /// When the user was created and last signed in.
    public var metadata: UserMetadata {
        let snapshot = snapshot
        return UserMetadata(lastSignInDate: snapshot.lastSignInDate, creationDate: snapshot.creationDate)
    }
    /// The refresh token of the session.
    public var refreshToken: String? { snapshot.tokens.refreshToken }
    /// The tenant the user belongs to, if any.
    public var tenantID: String? { snapshot.tenantID }

    // MARK: Internals shared by the operations

    /// Applies `change` to the user's state, then persists it and tells listeners if this is the
    /// current user of its `Auth`.
    func update(_ change: (inout UserSnapshot) -> Void) throws {
        state.withLock { change(&$0.snapshot) }
        try auth.userDidChange(self)
    }

    /// Runs `body`; if the server reports the session dead (`USER_NOT_FOUND`, `USER_DISABLED`,
    /// `INVALID_ID_TOKEN`, `TOKEN_EXPIRED`), signs this user out locally before rethrowing.
    func signingOutOnInvalidSession<Result>(_ body: () async throws -> Result) async throws -> Result {
        do {
            return try await body()
        } catch {
            if let code = AuthErrorCode(error),
               [.userNotFound, .userDisabled, .invalidUserToken, .userTokenExpired].contains(code) {
                auth.signOutByForce(userID: uid)
            }
            throw error
        }
    }

    /// Runs a user RPC with a valid ID token (refreshed first if needed).
    func withFreshToken<Result>(_ body: (AuthBackend, String) async throws -> Result) async throws -> Result {
        let idToken = try await getIDToken()
        return try await signingOutOnInvalidSession { try await body(auth.backend, idToken) }
    }
}
