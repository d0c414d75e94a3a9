import Foundation

/// The settings of a `FirebaseApp`: a stand-in for FirebaseCore's `FirebaseOptions`.
///
/// Flint adds `serverURL`, the base URL of a self-hosted Flint server. Without it (and without
/// `Auth.useEmulator(withHost:port:)`) requests go to Google's production hosts.
public final class FirebaseOptions: NSObject, NSCopying, Sendable {
    struct Values: Sendable, Hashable {
        var apiKey: String?
        var projectID: String?
        var googleAppID: String?
        var gcmSenderID: String?
        var bundleID: String?
        var clientID: String?
        var serverURL: URL?
    }

    private let values: Locked<Values>

    /// The API key sent as `?key=` on every request. Required by `Auth`.
    public var apiKey: String? {
        get { values[\.apiKey] }
        set { values[\.apiKey] = newValue }
    }

    /// The project ID, the `aud` of the project's ID tokens.
    public var projectID: String? {
        get { values[\.projectID] }
        set { values[\.projectID] = newValue }
    }

    /// The Google App ID (`1:…:ios:…`); names the Keychain service on Apple platforms.
    public var googleAppID: String? {
        get { values[\.googleAppID] }
        set { values[\.googleAppID] = newValue }
    }

    /// The Cloud Messaging sender ID; kept for source compatibility with FirebaseCore.
    public var gcmSenderID: String? {
        get { values[\.gcmSenderID] }
        set { values[\.gcmSenderID] = newValue }
    }

    /// The app's bundle identifier; on Linux it names the default credential directory. Phone sign-in's
    /// reCAPTCHA page receives it as `ibi`; when nil, `Bundle.main.bundleIdentifier` is used.
    public var bundleID: String? {
        get { values[\.bundleID] }
        set { values[\.bundleID] = newValue }
    }

    /// The OAuth client ID (`123-abc.apps.googleusercontent.com`). When set, the web pages of phone sign-in's
    /// reCAPTCHA and of `OAuthProvider`'s sign-in return to the app through the reversed client ID as URL scheme
    /// (`com.googleusercontent.apps.123-abc`); otherwise through `app-<googleAppID, ':' → '-'>`.
    public var clientID: String? {
        get { values[\.clientID] }
        set { values[\.clientID] = newValue }
    }

    /// Flint: the base URL (https, or http for development) of the Flint server to talk to,
    /// e.g. `https://auth.example.com`. Requests go to `{serverURL}/identitytoolkit.googleapis.com/v1/…`.
    public var serverURL: URL? {
        get { values[\.serverURL] }
        set { values[\.serverURL] = newValue }
    }

    /// FirebaseCore's initializer, for code written against the official SDK.
    public convenience init(googleAppID: String, gcmSenderID: String) {
        self.init(Values(googleAppID: googleAppID, gcmSenderID: gcmSenderID))
    }

    /// Options for a Flint server at `serverURL` (nil: Google's hosts, or the emulator once
    /// `useEmulator(withHost:port:)` is called).
    public convenience init(apiKey: String, projectID: String, serverURL: URL? = nil) {
        self.init(Values(apiKey: apiKey, projectID: projectID, serverURL: serverURL))
    }

    init(_ values: Values) {
        self.values = Locked(values)
    }

    /// A snapshot of every option.
    var snapshot: Values { values.withLock { $0 } }

    public func copy(with zone: NSZone? = nil) -> Any {
        FirebaseOptions(snapshot)
    }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? FirebaseOptions)?.snapshot == snapshot
    }

    public override var hash: Int {
        snapshot.hashValue
    }
}
