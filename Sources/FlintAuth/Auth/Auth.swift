import FlintWire
import Foundation

/// The entry point of FlintAuth: signs users in and out and tracks the current user of one `FirebaseApp`.
///
/// Thread-safe. The signed-in user is persisted in an `AuthCredentialStore` and loaded
/// synchronously when the instance is created, so `currentUser` is known right away.
public final class Auth: NSObject, Sendable {
    struct State: Sendable {
        var currentUser: User?
        var languageCode: String?
        var tenantID: String?
        var settings: AuthSettings? = AuthSettings()
        /// Set by `useEmulator(withHost:port:)`; wins over `FirebaseOptions.serverURL`.
        var emulatorURL: URL?
        var callbackQueue: DispatchQueue = .main
        /// Where the signed-in user is kept: the instance's own store, or the one of `userAccessGroup`.
        var store: any AuthCredentialStore
        /// Set by `useUserAccessGroup(_:)`.
        var userAccessGroup: String?
        var listeners: [Listener] = []
        /// Set by the app, for the redirect flow.
        var webAuthenticationPresenter: (any WebAuthenticationPresenter)?
        /// The password policy of each tenant (`nil`: the project's), fetched by `validatePassword(_:)`. A tenant's
        /// is dropped when the server rejects a password for breaking it, so that the next check fetches it again.
        var passwordPolicies: [String?: PasswordPolicy] = [:]
        /// What the listeners were last told: the signed-in uid and its ID token.
        var notifiedUserID: String?
        var notifiedAccessToken: String?
    }

    /// The shared instances of `auth(app:)`, by app name.
    private static let instances = Locked<[String: Auth]>([:])

    private let firebaseApp: FirebaseApp
    /// The instance's own store of the signed-in user (unless a user access group is in use), which
    /// also remembers the access group.
    let credentialStore: any AuthCredentialStore
    /// The store of a keychain access group (see `useUserAccessGroup(_:)`).
    let accessGroupStore: @Sendable (String) throws -> any AuthCredentialStore
    private let httpClient: any AuthHTTPClient
    let state: Locked<State>
    /// Phone sign-in: recent code sends, the APNs token and app credential, the web flow.
    let phoneAuth = PhoneAuthState()

    /// The app this instance belongs to.
    public var app: FirebaseApp? { firebaseApp }

    /// The signed-in user, or nil.
    public var currentUser: User? { state[\.currentUser] }

    /// The language of emails and SMS the server sends, as a BCP 47 tag; sent as `X-Firebase-Locale`.
    public var languageCode: String? {
        get { state[\.languageCode] }
        set { state[\.languageCode] = newValue }
    }

    /// The tenant users sign in to; nil for the project's own users.
    public var tenantID: String? {
        get { state[\.tenantID] }
        set { state[\.tenantID] = newValue }
    }

    /// The instance's settings; assigning stores a copy.
    public var settings: AuthSettings? {
        get { state[\.settings] }
        set { state[\.settings] = newValue?.copy() as? AuthSettings }
    }

    /// Flint: where the `AuthStateDidChange` notification is posted and, without UIKit, where the
    /// `AuthUIDelegate` is called; the main queue unless the app sets another. Listeners and completion
    /// handlers always run on the main actor (on Linux the main queue must be serviced: an `async` `main`,
    /// `dispatchMain()` or a run loop).
    public var callbackQueue: DispatchQueue {
        get { state[\.callbackQueue] }
        set { state[\.callbackQueue] = newValue }
    }

    /// The instance of the default app. Traps if the default app is not configured.
    public static func auth() -> Auth {
        guard let app = FirebaseApp.app() else {
            fatalError("The default FirebaseApp is not configured. Call FirebaseApp.configure() or configure(options:) first.")
        }
        return auth(app: app)
    }

    /// The instance of `app`, created on first use with the platform's default credential store
    /// (the Keychain on Apple platforms, a file under `$XDG_DATA_HOME` elsewhere).
    public static func auth(app: FirebaseApp) -> Auth {
        instances.withLock { instances in
            if let auth = instances[app.name] {
                return auth
            }
            let auth = Auth(app: app, credentialStore: DefaultCredentialStore.make(for: app))
            instances[app.name] = auth
            return auth
        }
    }

    /// Flint: an instance of `app` that keeps its user in `credentialStore`, e.g. a
    /// `FileCredentialStore` in a directory of the app's choosing, or an `InMemoryCredentialStore`.
    /// This instance is independent of the shared one `auth(app:)` returns.
    public convenience init(app: FirebaseApp, credentialStore: any AuthCredentialStore) {
        self.init(app: app, credentialStore: credentialStore, httpClient: URLSessionHTTPClient.shared)
    }

    /// `accessGroupStore` makes the store of an access group; by default the Keychain's.
    init(app: FirebaseApp, credentialStore: any AuthCredentialStore, httpClient: any AuthHTTPClient,
         accessGroupStore: (@Sendable (String) throws -> any AuthCredentialStore)? = nil) {
        precondition(app.configuration.apiKey?.isEmpty == false, "FirebaseOptions.apiKey is required by Auth.")
        self.firebaseApp = app
        self.credentialStore = credentialStore
        self.accessGroupStore = accessGroupStore ?? { try DefaultCredentialStore.make(for: app, accessGroup: $0) }
        self.httpClient = httpClient
        self.state = Locked(State(store: credentialStore))
        super.init()
        loadStoredUser()
    }

    /// Sends every request of this instance to the Firebase Auth emulator, or a Flint server in
    /// emulator mode, at `http://host:port`. Also disables app verification for testing.
    public func useEmulator(withHost host: String, port: Int) {
        let formattedHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        guard let url = URL(string: "http://\(formattedHost):\(port)") else {
            preconditionFailure("Invalid emulator host '\(host)'")
        }
        let settings = state.withLock { state in
            state.emulatorURL = url
            if state.settings == nil {
                state.settings = AuthSettings()
            }
            return state.settings
        }
        settings?.isAppVerificationDisabledForTesting = true
    }

    /// Sets `languageCode` to the user's preferred language.
    public func useAppLanguage() {
        languageCode = Locale.preferredLanguages.first
    }

    /// A backend for one operation, configured as this instance is now.
    var backend: AuthBackend {
        let configuration = state.withLock { state in
            RequestConfiguration(
                apiKey: firebaseApp.configuration.apiKey ?? "",
                baseURL: state.emulatorURL ?? firebaseApp.configuration.serverURL,
                languageCode: state.languageCode,
                tenantID: state.tenantID
            )
        }
        return AuthBackend(configuration: configuration, httpClient: httpClient, passwordRejected: {
            self.state.withLock { $0.passwordPolicies[configuration.tenantID] = nil }
        })
    }

    /// Called by `FirebaseApp.delete`: forgets the app's shared instance and, as FirebaseAuth
    /// does, deletes the app's persisted user.
    static func appWasDeleted(_ app: FirebaseApp) {
        if let auth = instances.withLock({ $0.removeValue(forKey: app.name) }) {
            auth.state.withLock { auth.forgetCurrentUser(&$0) }
        } else {
            try? DefaultCredentialStore.make(for: app).removeData(forKey: storeKey(for: app))
        }
    }

    // MARK: The current user and its persistence

    /// The credential-store key of an app's user (FirebaseAuth's Keychain account name, without its prefix).
    static func storeKey(for app: FirebaseApp) -> String {
        "\(app.name)_firebase_user"
    }

    var storeKey: String { Self.storeKey(for: firebaseApp) }

    /// Loads the persisted user, from the store of the access group last chosen if there is one.
    private func loadStoredUser() {
        if let group = storedAccessGroup, let store = try? accessGroupStore(group) {
            state.withLock { state in
                state.store = store
                state.userAccessGroup = group
            }
        }
        guard let user = try? storedUser(in: state[\.store]) else { return }
        state.withLock { state in
            state.currentUser = user
            state.notifiedUserID = user.uid
            state.notifiedAccessToken = user.snapshot.tokens.accessToken
        }
    }

    /// The user persisted in `store`, if any (data that does not decode counts as none).
    /// Throws `keychainError` if the store cannot be read.
    func storedUser(in store: any AuthCredentialStore) throws -> User? {
        let data: Data?
        do {
            data = try store.loadData(forKey: storeKey)
        } catch {
            throw AuthErrorUtils.keychainError(underlying: error)
        }
        guard let data, let snapshot = try? UserSnapshot(encoded: data) else { return nil }
        return User(snapshot: snapshot, auth: self)
    }

    private func save(_ user: User, in store: any AuthCredentialStore) throws {
        do {
            try store.saveData(try user.snapshot.encoded(), forKey: storeKey)
        } catch {
            throw AuthErrorUtils.keychainError(underlying: error)
        }
    }

    /// Makes `user` the current user: persists it, then tells the listeners.
    /// If it cannot be persisted, the previous user stays and `keychainError` is thrown.
    func signInCompleted(_ user: User) throws {
        try state.withLock { state in
            try save(user, in: state.store)
            state.currentUser = user
            notifyListeners(&state)
        }
    }

    /// Persists a change to `user` and tells the listeners, if it is the current user.
    func userDidChange(_ user: User) throws {
        try state.withLock { state in
            guard state.currentUser === user else { return }
            try save(user, in: state.store)
            notifyListeners(&state)
        }
    }

    /// Signs the current user out: deletes it from the credential store and tells the listeners.
    /// Local only; the session's refresh token stays valid on the server. Does nothing without a user.
    /// Throws `keychainError`, and keeps the user signed in, if the store cannot delete it.
    public func signOut() throws {
        try state.withLock { state in
            guard state.currentUser != nil else { return }
            do {
                try state.store.removeData(forKey: storeKey)
            } catch {
                throw AuthErrorUtils.keychainError(underlying: error)
            }
            state.currentUser = nil
            notifyListeners(&state)
        }
    }

    /// Signs `userID` out if it is still the current user, even if the store fails: after
    /// `User.delete()` and when the server says the session is no longer valid.
    func signOutByForce(userID: String) {
        state.withLock { state in
            guard state.currentUser?.uid == userID else { return }
            forgetCurrentUser(&state)
        }
    }

    /// Deletes the persisted user, ignoring store failures, and signs it out.
    private func forgetCurrentUser(_ state: inout State) {
        try? state.store.removeData(forKey: storeKey)
        state.currentUser = nil
        notifyListeners(&state)
    }
}
