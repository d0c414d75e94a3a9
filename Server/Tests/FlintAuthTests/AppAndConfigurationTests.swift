@testable import FlintAuth
import Foundation
import Testing

/// The FirebaseCore stand-in and request addressing, without a server.
@Suite struct AppAndConfigurationTests {
    @Test func appsAreConfiguredByNameAndDeleted() async throws {
        let name = "flint-auth-test-\(UUID().uuidString)"
        let options = FirebaseOptions(apiKey: "key-1", projectID: "project-1")
        options.bundleID = "dev.flint.tests"
        FirebaseApp.configure(name: name, options: options)
        options.apiKey = "changed after configure"

        let app = try #require(FirebaseApp.app(name: name))
        #expect(app.name == name)
        #expect(app.options.apiKey == "key-1")
        #expect(app.options.projectID == "project-1")
        #expect(app.options.bundleID == "dev.flint.tests")
        #expect(FirebaseApp.allApps?[name] === app)

        #expect(await app.delete())
        #expect(FirebaseApp.app(name: name) == nil)
        #expect(await app.delete() == false)
    }

    @Test func authOfAnAppIsShared() async throws {
        let name = "flint-auth-test-\(UUID().uuidString)"
        FirebaseApp.configure(name: name, options: FirebaseOptions(apiKey: "key", projectID: "p"))
        let app = try #require(FirebaseApp.app(name: name))
        let auth = Auth.auth(app: app)
        #expect(Auth.auth(app: app) === auth)
        #expect(auth.app === app)
        #expect(auth.currentUser == nil)
        await app.delete()
    }

    @Test func requestsUseTheServerURLLayout() throws {
        let backend = AuthBackend(
            configuration: RequestConfiguration(apiKey: "k+y", baseURL: URL(string: "https://auth.example.com/base/")),
            httpClient: URLSessionHTTPClient.shared)
        #expect(backend.url(for: .signUp).absoluteString
            == "https://auth.example.com/base/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k%2By")
        #expect(backend.url(for: .secureToken).absoluteString
            == "https://auth.example.com/base/securetoken.googleapis.com/v1/token?key=k%2By")

        let production = AuthBackend(configuration: RequestConfiguration(apiKey: "k"), httpClient: URLSessionHTTPClient.shared)
        #expect(production.url(for: .lookup).absoluteString
            == "https://identitytoolkit.googleapis.com/v1/accounts:lookup?key=k")
    }

    @Test func useEmulatorUsesHTTPAndBracketsIPv6() async throws {
        let name = "flint-auth-test-\(UUID().uuidString)"
        let options = FirebaseOptions(apiKey: "key", projectID: "p", serverURL: URL(string: "https://ignored.example.com"))
        FirebaseApp.configure(name: name, options: options)
        let app = try #require(FirebaseApp.app(name: name))
        let auth = Auth(app: app, credentialStore: InMemoryCredentialStore())
        #expect(auth.settings?.isAppVerificationDisabledForTesting == false)

        auth.useEmulator(withHost: "::1", port: 9099)
        #expect(auth.backend.url(for: .createAuthURI).absoluteString
            == "http://[::1]:9099/identitytoolkit.googleapis.com/v1/accounts:createAuthUri?key=key")
        #expect(auth.settings?.isAppVerificationDisabledForTesting == true)
        #expect(auth.settings?.appVerificationDisabledForTesting == true)

        auth.useEmulator(withHost: "localhost", port: 9099)
        #expect(auth.backend.url(for: .delete).absoluteString
            == "http://localhost:9099/identitytoolkit.googleapis.com/v1/accounts:delete?key=key")
        await app.delete()
    }

    @Test(arguments: ["", "a.b", "x.eyJleHAiOjF9.", "x.!!!.y"])
    func tokenResultRejectsMalformedTokens(token: String) {
        let error = #expect(throws: (any Error).self) { try AuthTokenResult(token: token) }
        #expect(error.flatMap(AuthErrorCode.init) == .malformedJWT)
    }

    @Test func inMemoryStoreRoundTrips() throws {
        let store = InMemoryCredentialStore()
        #expect(try store.loadData(forKey: "a") == nil)
        try store.saveData(Data("1".utf8), forKey: "a")
        #expect(try store.loadData(forKey: "a") == Data("1".utf8))
        try store.removeData(forKey: "a")
        try store.removeData(forKey: "a")
        #expect(try store.loadData(forKey: "a") == nil)
    }
}
