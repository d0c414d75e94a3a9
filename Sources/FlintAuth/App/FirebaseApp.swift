import Foundation

/// A configured Firebase app: a stand-in for FirebaseCore's `FirebaseApp`, holding the options
/// `Auth` needs. Each app has its own `Auth` instance and its own persisted user.
public final class FirebaseApp: NSObject, Sendable {
    /// The name of the app `configure(options:)` creates, as in FirebaseCore.
    static let defaultAppName = "__FIRAPP_DEFAULT"

    private static let registry = Locked<[String: FirebaseApp]>([:])

    /// The app's name, unique among configured apps.
    public let name: String
    /// The options the app was configured with, frozen at configuration time.
    let configuration: FirebaseOptions.Values

    /// A copy of the options the app was configured with.
    public var options: FirebaseOptions { FirebaseOptions(configuration) }

    private init(name: String, configuration: FirebaseOptions.Values) {
        self.name = name
        self.configuration = configuration
    }

    /// Configures the default app with `FirebaseOptions.defaultOptions()`: the `GoogleService-Info.plist`
    /// of the main bundle, whose `FlintServerURL` names the Flint server. Traps if the default app is
    /// already configured.
    ///
    /// Without a readable plist (on Linux the main bundle usually has none), FirebaseCore raises an
    /// exception; FlintAuth logs an error instead and configures nothing, so `FirebaseApp.app()` stays nil
    /// (and `Auth.auth()` traps). Use `configure(options:)` there.
    public static func configure() {
        guard let options = FirebaseOptions.defaultOptions() else {
            NSLog("FlintAuth: FirebaseApp.configure() found no valid GoogleService-Info.plist in the main bundle; "
                + "the default app is not configured. Add the plist or call FirebaseApp.configure(options:).")
            return
        }
        configure(options: options)
    }

    /// Configures the default app. Traps if it is already configured.
    public static func configure(options: FirebaseOptions) {
        configure(name: defaultAppName, options: options)
    }

    /// Configures an app named `name`. Traps if the name is empty or already taken.
    public static func configure(name: String, options: FirebaseOptions) {
        precondition(!name.isEmpty, "FirebaseApp.configure: the app name must not be empty.")
        let app = FirebaseApp(name: name, configuration: options.snapshot)
        registry.withLock { apps in
            precondition(apps[name] == nil, "FirebaseApp.configure: an app named '\(name)' is already configured.")
            apps[name] = app
        }
    }

    /// The default app, or nil if neither `configure()` nor `configure(options:)` configured it.
    public static func app() -> FirebaseApp? {
        app(name: defaultAppName)
    }

    /// The app named `name`, if configured.
    public static func app(name: String) -> FirebaseApp? {
        registry.withLock { $0[name] }
    }

    /// Every configured app by name, or nil when there is none.
    public static var allApps: [String: FirebaseApp]? {
        let apps = registry.withLock { $0 }
        return apps.isEmpty ? nil : apps
    }

    /// Removes the app. Its `Auth` instance is discarded and its persisted user deleted, as in
    /// FirebaseCore. Returns whether the app was configured.
    @discardableResult
    public func delete() async -> Bool {
        deleteNow()
    }

    /// Completion-handler form of `delete()`; `completion` runs on the main actor.
    public func delete(_ completion: @escaping @MainActor (Bool) -> Void) {
        let deleted = deleteNow()
        Task { @MainActor in completion(deleted) }
    }

    private func deleteNow() -> Bool {
        let removed = FirebaseApp.registry.withLock { apps in
            guard apps[name] === self else { return false }
            apps[name] = nil
            return true
        }
        if removed {
            Auth.appWasDeleted(self)
        }
        return removed
    }
}
