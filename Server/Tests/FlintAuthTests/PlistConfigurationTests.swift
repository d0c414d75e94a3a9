@testable import FlintAuth
import Foundation
import Testing

/// `FirebaseOptions(contentsOfFile:)`, `FirebaseOptions.defaultOptions()` and `FirebaseApp.configure()`.
@Suite struct PlistConfigurationTests {
    /// Writes `value` as an XML property list to a new temporary file and returns its path.
    static func plist(_ value: Any) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("GoogleService-Info-\(UUID().uuidString).plist")
        try PropertyListSerialization.data(fromPropertyList: value, format: .xml, options: 0).write(to: url)
        return url.path
    }

    static var googleServiceInfo: [String: Any] { [
        "API_KEY": "AIza-plist", "PROJECT_ID": "demo-plist", "GOOGLE_APP_ID": "1:123:ios:abc",
        "GCM_SENDER_ID": "123", "BUNDLE_ID": "dev.flint.plist", "CLIENT_ID": "123-abc.apps.googleusercontent.com",
        "FlintServerURL": "https://auth.example.com", "IS_ADS_ENABLED": false, "PLIST_VERSION": "1",
    ] }

    @Test func readsGoogleServiceInfoKeysAndTheFlintServerURL() throws {
        let path = try Self.plist(Self.googleServiceInfo)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let options = try #require(FirebaseOptions(contentsOfFile: path))
        #expect(options.apiKey == "AIza-plist")
        #expect(options.projectID == "demo-plist")
        #expect(options.googleAppID == "1:123:ios:abc")
        #expect(options.gcmSenderID == "123")
        #expect(options.bundleID == "dev.flint.plist")
        #expect(options.clientID == "123-abc.apps.googleusercontent.com")
        #expect(options.serverURL == URL(string: "https://auth.example.com"))
    }

    @Test func missingKeysStayNil() throws {
        let path = try Self.plist(["API_KEY": "only-a-key"])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let options = try #require(FirebaseOptions(contentsOfFile: path))
        #expect(options.apiKey == "only-a-key")
        #expect(options.projectID == nil && options.googleAppID == nil && options.serverURL == nil)
    }

    @Test(arguments: ["not a url", "ftp://auth.example.com", "auth.example.com"])
    func anUnusableServerURLIsRefused(serverURL: String) throws {
        let path = try Self.plist(["API_KEY": "k", "FlintServerURL": serverURL])
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FirebaseOptions(contentsOfFile: path) == nil)
    }

    @Test func unreadableFilesGiveNoOptions() throws {
        #expect(FirebaseOptions(contentsOfFile: "/nonexistent/GoogleService-Info.plist") == nil)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-plist-\(UUID().uuidString)")
        try Data("{\"API_KEY\": ".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(FirebaseOptions(contentsOfFile: url.path) == nil)
        let array = try Self.plist(["API_KEY"])
        defer { try? FileManager.default.removeItem(atPath: array) }
        #expect(FirebaseOptions(contentsOfFile: array) == nil)
    }

    @Test func anAppConfiguredFromAPlistTalksToItsServer() async throws {
        let path = try Self.plist(Self.googleServiceInfo)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let name = "flint-auth-plist-\(UUID().uuidString)"
        FirebaseApp.configure(name: name, options: try #require(FirebaseOptions(contentsOfFile: path)))
        let app = try #require(FirebaseApp.app(name: name))
        let auth = Auth(app: app, credentialStore: InMemoryCredentialStore())
        #expect(auth.backend.url(for: .signUp).absoluteString
            == "https://auth.example.com/identitytoolkit.googleapis.com/v1/accounts:signUp?key=AIza-plist")
        await app.delete()
    }

    /// The test runner's main bundle has no `GoogleService-Info.plist`: `configure()` logs and configures
    /// nothing, where FirebaseCore raises an exception.
    @Test func configureWithoutAPlistConfiguresNothing() throws {
        try #require(Bundle.main.path(forResource: "GoogleService-Info", ofType: "plist") == nil)
        #expect(FirebaseOptions.defaultOptions() == nil)
        FirebaseApp.configure()
        #expect(FirebaseApp.app() == nil)
    }
}
