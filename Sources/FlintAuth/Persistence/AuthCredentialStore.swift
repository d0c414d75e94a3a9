import Foundation

/// Where an `Auth` keeps its signed-in user (tokens included) between launches.
///
/// FlintAuth stores one item per app, under the key `<app name>_firebase_user`, and, once
/// `Auth.useUserAccessGroup(_:)` chose a group, the group's name under
/// `<app name>_firebase_user_access_group`. Implementations
/// must be safe to call from any thread; calls for one `Auth` never overlap.
public protocol AuthCredentialStore: Sendable {
    /// The item stored under `key`, or nil if there is none.
    func loadData(forKey key: String) throws -> Data?
    /// Stores `data` under `key`, replacing any previous item.
    func saveData(_ data: Data, forKey key: String) throws
    /// Deletes the item under `key`; succeeds if there is none.
    func removeData(forKey key: String) throws
}

/// A store that keeps items in memory only, for tests and for apps that must not persist sessions.
public final class InMemoryCredentialStore: AuthCredentialStore {
    private let items = Locked<[String: Data]>([:])

    /// An empty store.
    public init() {}

    public func loadData(forKey key: String) throws -> Data? {
        items.withLock { $0[key] }
    }

    public func saveData(_ data: Data, forKey key: String) throws {
        items.withLock { $0[key] = data }
    }

    public func removeData(forKey key: String) throws {
        items.withLock { $0[key] = nil }
    }
}

/// The store `Auth.auth(app:)` uses: the Keychain where it exists, else a file per app.
enum DefaultCredentialStore {
    static func make(for app: FirebaseApp) -> any AuthCredentialStore {
        #if canImport(Security)
        let appID = app.configuration.googleAppID ?? app.configuration.apiKey ?? ""
        return KeychainCredentialStore(service: "firebase_auth_\(appID)")
        #else
        let identifier = app.configuration.bundleID ?? Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
        return FileCredentialStore(directory: FileCredentialStore.defaultDirectory(appIdentifier: identifier))
        #endif
    }

    /// The store of keychain access group `accessGroup`, shared by the group's apps: its service names
    /// the API key, which the project's apps have in common. `keychainError` without a Keychain.
    static func make(for app: FirebaseApp, accessGroup: String) throws -> any AuthCredentialStore {
        #if canImport(Security)
        return KeychainCredentialStore(service: "firebase_auth_\(app.configuration.apiKey ?? "")", accessGroup: accessGroup)
        #else
        throw AuthErrorUtils.error(.keychainError, message: "Keychain access groups exist on Apple platforms only.")
        #endif
    }
}
