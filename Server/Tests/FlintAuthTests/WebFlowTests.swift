@testable import FlintAuth
import FlintTestSupport
import FlintWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The redirect flow through FlintAuth on Linux: `signIn(with: OAuthProvider, uiDelegate:)` against a Flint server in
/// production mode and a fake OpenID provider, with a stand-in browser that follows the provider's redirects.
@Suite struct WebFlowTests {
    /// Opens the URL over HTTP and follows redirects until one has the callback's scheme, as a browser would.
    final class StandInBrowser: NSObject, WebAuthenticationPresenter, URLSessionTaskDelegate, @unchecked Sendable {
        // @unchecked Sendable: `opened` is only touched under `lock`.
        private let lock = NSLock()
        private var opened: [URL] = []
        var visited: [URL] { lock.withLock { opened } }

        func authenticate(url: URL, callbackURLScheme: String) async throws -> URL {
            let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
            defer { session.finishTasksAndInvalidate() }
            var next = url
            for _ in 0..<5 {
                if next.scheme == callbackURLScheme { return next }
                lock.withLock { opened.append(next) }
                let response: URLResponse = try await withCheckedThrowingContinuation { continuation in
                    session.dataTask(with: next) { _, response, error in
                        if let response { continuation.resume(returning: response) } else {
                            continuation.resume(throwing: error ?? URLError(.badServerResponse))
                        }
                    }.resume()
                }
                guard let http = response as? HTTPURLResponse, (300..<400).contains(http.statusCode),
                      let location = http.value(forHTTPHeaderField: "Location"), let target = URL(string: location, relativeTo: next)
                else { throw URLError(.badServerResponse) }
                next = target.absoluteURL
            }
            throw URLError(.httpTooManyRedirects)
        }

        /// Redirects are the browser's to follow, one at a time.
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    /// A browser whose user closes the page.
    struct ClosedBrowser: WebAuthenticationPresenter {
        func authenticate(url: URL, callbackURLScheme: String) async throws -> URL { throw CancellationError() }
    }

    @Test func theProvidersPageSignsTheUserIn() async throws {
        let server = try await TestServer.start(emulator: false)
        let provider = try await FakeOIDCProvider.start(clock: server.clock)
        let name = "flint-web-flow-\(UUID().uuidString)"
        do {
            _ = try await server.server.configureOIDCProvider(server.projectID, "oidc.corp", OAuthIdpConfig(
                clientId: provider.clientID, issuer: provider.issuer, enabled: true, clientSecret: provider.clientSecret,
                responseType: .init(code: true)))
            provider.browserUser.withLockedValue { $0 = (subject: "emp-77", email: "ada@corp.example") }
            let options = FirebaseOptions(apiKey: server.apiKey, projectID: server.projectID, serverURL: server.baseURL)
            options.bundleID = "com.example.Flint"
            FirebaseApp.configure(name: name, options: options)
            let app = try #require(FirebaseApp.app(name: name))
            let auth = Auth(app: app, credentialStore: InMemoryCredentialStore(), httpClient: URLSessionHTTPClient.shared)
            let browser = StandInBrowser()
            auth.webAuthenticationPresenter = browser

            let oidc = OAuthProvider(providerID: "oidc.corp", auth: auth)
            oidc.scopes = ["groups"]
            oidc.customParameters = ["prompt": "login"]
            let result = try await auth.signIn(with: oidc, uiDelegate: nil)
            #expect(result.user.uid == auth.currentUser?.uid)
            #expect(result.user.email == "ada@corp.example")
            #expect(result.additionalUserInfo?.providerID == "oidc.corp" && result.additionalUserInfo?.isNewUser == true)
            // The browser went to the provider's page with the flow's parameters, and back to the app's scheme.
            let page = try #require(browser.visited.first.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) })
            let query = Dictionary((page.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
            #expect(page.path == "/authorize" && query["redirect_uri"] == "com.example.flint:/__/auth/callback")
            #expect(query["scope"] == "openid email profile groups" && query["prompt"] == "login")

            // A closed page is `webContextCancelled`; without a presenter, `webInternalError`.
            auth.webAuthenticationPresenter = ClosedBrowser()
            await expectAuthError(.webContextCancelled) { try await auth.signIn(with: oidc, uiDelegate: nil) }
            auth.webAuthenticationPresenter = nil
            await expectAuthError(.webInternalError) { try await oidc.getCredentialWith(nil) }
        } catch {
            Issue.record(error)
        }
        await FirebaseApp.app(name: name)?.delete()
        await provider.stop()
        try await server.stop()
    }
}
