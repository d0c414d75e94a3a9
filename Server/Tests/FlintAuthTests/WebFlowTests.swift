@testable import FlintAuth
import FlintTestSupport
import FlintWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The redirect flow of `OAuthProvider.getCredentialWith(_:)` and `signIn(with: OAuthProvider, uiDelegate:)`, as
/// FirebaseAuth runs it: the server's `/__/auth/handler` page and its callback against a scripted backend, then the
/// whole flow through a Flint server in production mode and a fake OpenID provider, with a stand-in browser that
/// follows redirects.
@Suite struct WebFlowTests {
    /// A presenter that hands the page's URL and the callback scheme to `answer`, and returns its answer as the callback.
    struct ScriptedBrowser: WebAuthenticationPresenter {
        let answer: @Sendable (URL, String) throws -> URL

        func authenticate(url: URL, callbackURLScheme: String) async throws -> URL {
            try answer(url, callbackURLScheme)
        }
    }

    /// A browser whose user closes the page.
    struct ClosedBrowser: WebAuthenticationPresenter {
        func authenticate(url: URL, callbackURLScheme: String) async throws -> URL { throw CancellationError() }
    }

    /// A backend the test expects no request of.
    static func unexpectedClient() -> FakeHTTPClient {
        FakeHTTPClient { .error("UNEXPECTED_RPC : \($0.rpc)", status: 404) }
    }

    /// The query parameters of `url`, by name (the first of each name).
    /// `application/x-www-form-urlencoded`, every character but the unreserved ones escaped.
    static func formEncoded(_ fields: [(String, String)]) -> String {
        var unreserved = CharacterSet.alphanumerics
        unreserved.insert(charactersIn: "-._~")
        return fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")" }.joined(separator: "&")
    }

    static func query(of url: URL) -> [String: String] {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// The URL the page opens at its end: `{scheme}://firebaseauth/link?deep_link_id=<inner>`, the inner URL's query
    /// being `authType=signInWithRedirect`, `eventId` and `parameters`.
    static func callback(scheme: String, eventID: String, _ parameters: [(String, String)]) -> URL {
        captchaCallbackURL(scheme: scheme, eventID: eventID, authType: "signInWithRedirect", parameters)
    }

    // MARK: The page

    @Test func thePageCarriesTheFlowsParameters() async throws {
        let client = Self.unexpectedClient()
        try await withFakeAuth(configure: { $0.googleAppID = "1:123:ios:abc"; $0.bundleID = "com.example.flint" },
                               client: client) { auth in
            auth.languageCode = "fr"
            auth.tenantID = "tenant-1"
            let provider = OAuthProvider(providerID: "microsoft.com", auth: auth)
            provider.scopes = ["mail.read", "calendars.read"]
            provider.customParameters = ["prompt": "consent", "login_hint": "ada+test@example.com"]
            let app = try OAuthProvider.handlerApp(of: auth)
            #expect(app.callbackScheme == "app-1-123-ios-abc")

            let url = try await provider.handlerURL(auth: auth, app: app, eventID: "EVENTIDABC", sessionID: "SESSIONIDX")
            #expect(url.absoluteString.hasPrefix("http://flint.test/__/auth/handler?apiKey=fake-api-key&authType=signInWithRedirect&"))
            let query = Self.query(of: url)
            #expect(query["ibi"] == "com.example.flint")
            #expect(query["sessionId"] == AuthNonce.sha256("SESSIONIDX"))
            #expect(query["v"] == AuthBackend.clientVersion)
            #expect(query["eventId"] == "EVENTIDABC")
            #expect(query["providerId"] == "microsoft.com")
            #expect(query["appId"] == "1:123:ios:abc" && query["clientId"] == nil)
            #expect(query["tid"] == "tenant-1")
            #expect(query["scopes"] == "mail.read,calendars.read")
            #expect(query["customParameters"] == #"{"login_hint":"ada+test@example.com","prompt":"consent"}"#)
            #expect(query["hl"] == "fr")
            // `+` travels as %2B: the page would read a bare `+` as a space.
            let encoded = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery)
            #expect(encoded.contains("%2B") && !encoded.contains("+"))
            #expect(client.requests.isEmpty)
        }
    }

    @Test func theClientIDNamesTheSchemeAndTheEmulatorServesItsOwnPage() async throws {
        try await withFakeAuth(configure: { $0.clientID = "123-abc.apps.googleusercontent.com"; $0.googleAppID = "1:123:ios:abc" },
                               client: Self.unexpectedClient()) { auth in
            auth.useEmulator(withHost: "127.0.0.1", port: 9099)
            let app = try OAuthProvider.handlerApp(of: auth)
            #expect(app.callbackScheme == "com.googleusercontent.apps.123-abc")
            let url = try await OAuthProvider(providerID: "oidc.corp", auth: auth)
                .handlerURL(auth: auth, app: app, eventID: "ABCDEFGHIJ", sessionID: "KLMNOPQRST")
            #expect(url.absoluteString.hasPrefix("http://127.0.0.1:9099/emulator/auth/handler?"))
            let query = Self.query(of: url)
            #expect(query["clientId"] == "123-abc.apps.googleusercontent.com" && query["appId"] == nil)
            #expect(query["scopes"] == nil && query["customParameters"] == nil && query["tid"] == nil && query["hl"] == nil)
        }
        // A client ID alone names the scheme too.
        try await withFakeAuth(configure: { $0.clientID = "123-abc.apps.googleusercontent.com" }, client: Self.unexpectedClient()) { auth in
            let app = try OAuthProvider.handlerApp(of: auth)
            #expect(app.callbackScheme == "com.googleusercontent.apps.123-abc")
        }
    }

    @Test func googleHostsServeThePageFromTheProjectDomain() async throws {
        let client = FakeHTTPClient { sent in
            sent.rpc == "projects"
                ? .ok(["projectId": "demo-phone", "authorizedDomains": ["localhost", "demo-phone.web.app", "demo-phone.firebaseapp.com"]])
                : .error("UNEXPECTED_RPC : \(sent.rpc)", status: 404)
        }
        try await withFakeAuth(serverURL: nil, configure: { $0.googleAppID = "1:123:ios:abc" }, client: client) { auth in
            let provider = OAuthProvider(providerID: "oidc.corp", auth: auth)
            let url = try await provider.handlerURL(auth: auth, app: try OAuthProvider.handlerApp(of: auth),
                                                    eventID: "ABCDEFGHIJ", sessionID: "KLMNOPQRST")
            #expect(url.absoluteString.hasPrefix(
                "https://demo-phone.firebaseapp.com/__/auth/handler?apiKey=fake-api-key&authType=signInWithRedirect&"))
        }
    }

    @Test func withoutClientIDOrAppIDThereIsNoScheme() async throws {
        try await withFakeAuth(client: Self.unexpectedClient()) { auth in
            auth.webAuthenticationPresenter = ClosedBrowser()
            await expectAuthError(.webInternalError) {
                try await OAuthProvider(providerID: "oidc.corp", auth: auth).getCredentialWith(nil)
            }
        }
    }

    // MARK: The callback

    static let link = "http://flint.test/__/auth/handler?code=c0de&state=st4te"

    @Test func onlyTheFlowsOwnCallbackCarriesItsCredential() async throws {
        let provider = OAuthProvider(providerID: "oidc.corp")
        let good = Self.callback(scheme: "app-1-2-ios-3", eventID: "ABCDEFGHIJ", [("link", Self.link)])
        let credential = try provider.credential(fromCallback: good, eventID: "ABCDEFGHIJ", sessionID: "KLMNOPQRST",
                                                 callbackScheme: "app-1-2-ios-3")
        #expect(credential.provider == "oidc.corp")
        #expect(credential.sessionID == "KLMNOPQRST" && credential.requestURI == Self.link)

        // Another event's callback, another scheme, the phone flow's callback.
        for url in [Self.callback(scheme: "app-1-2-ios-3", eventID: "OTHEREVENT", [("link", Self.link)]),
                    Self.callback(scheme: "other-scheme", eventID: "ABCDEFGHIJ", [("link", Self.link)]),
                    captchaCallbackURL(scheme: "app-1-2-ios-3", eventID: "ABCDEFGHIJ", [("link", Self.link)])] {
            await expectAuthError(.webSignInUserInteractionFailure) {
                try provider.credential(fromCallback: url, eventID: "ABCDEFGHIJ", sessionID: "KLMNOPQRST",
                                        callbackScheme: "app-1-2-ios-3")
            }
        }
        // This flow's callback without a link or with an unreadable error.
        let incomplete: [[(String, String)]] = [[], [("firebaseError", "not json")]]
        for parameters in incomplete {
            await expectAuthError(.webSignInUserInteractionFailure) {
                try provider.credential(fromCallback: Self.callback(scheme: "app-1-2-ios-3", eventID: "ABCDEFGHIJ", parameters),
                                        eventID: "ABCDEFGHIJ", sessionID: "KLMNOPQRST", callbackScheme: "app-1-2-ios-3")
            }
        }
    }

    @Test(arguments: [
        ("auth/user-cancelled", AuthErrorCode.webContextCancelled),
        ("auth/web-context-cancelled", .webContextCancelled),
        ("auth/operation-not-allowed", .operationNotAllowed),
        ("auth/invalid-api-key", .invalidAPIKey),
        ("auth/invalid-credential", .invalidCredential),
        ("auth/unauthorized-domain", .unauthorizedDomain),
        ("auth/internal-error", .webInternalError),
        ("auth/network-request-failed", .webNetworkRequestFailed),
        ("auth/invalid-oauth-client-id", .invalidClientID),
        ("auth/something-else", .webSignInUserInteractionFailure),
    ])
    func pageErrorsMapToAuthErrors(code: String, expected: AuthErrorCode) async throws {
        let firebaseError = #"{"code":"\#(code)","message":"It went wrong: badly"}"#
        let callback = Self.callback(scheme: "app-1-2-ios-3", eventID: "ABCDEFGHIJ", [("firebaseError", firebaseError)])
        let error = await expectAuthError(expected) {
            try OAuthProvider(providerID: "oidc.corp").credential(fromCallback: callback, eventID: "ABCDEFGHIJ",
                                                                  sessionID: "KLMNOPQRST", callbackScheme: "app-1-2-ios-3")
        }
        if expected != .webSignInUserInteractionFailure {
            #expect(error?.localizedDescription == "It went wrong: badly")
        }
    }

    /// The credential signs in with `signInWithIdp` as FirebaseAuth sends it: the link as `requestUri`, the raw
    /// session ID (whose SHA-256 the page was given), and `postBody` naming the provider.
    @Test func theCallbacksLinkAndTheRawSessionSignIn() async throws {
        let client = FakeHTTPClient { sent in
            switch sent.rpc {
            case "accounts:signInWithIdp":
                .ok(["localId": "uid-ms", "idToken": "id-token", "refreshToken": "refresh-token", "expiresIn": "3600",
                     "providerId": "microsoft.com", "isNewUser": true])
            case "accounts:lookup":
                .ok(["users": [["localId": "uid-ms", "providerUserInfo": [["providerId": "microsoft.com", "rawId": "ms-1"]]]]])
            default:
                .error("UNEXPECTED_RPC : \(sent.rpc)", status: 404)
            }
        }
        try await withFakeAuth(configure: { $0.googleAppID = "1:123:ios:abc" }, client: client) { auth in
            let opened = Locked<[URL]>([])
            auth.webAuthenticationPresenter = ScriptedBrowser { url, scheme in
                opened.withLock { $0.append(url) }
                return Self.callback(scheme: scheme, eventID: Self.query(of: url)["eventId"] ?? "", [("link", Self.link)])
            }
            let result = try await auth.signIn(with: OAuthProvider(providerID: "microsoft.com", auth: auth), uiDelegate: nil)
            #expect(result.user.uid == "uid-ms")
            #expect(result.additionalUserInfo?.providerID == "microsoft.com")

            let page = try #require(opened.withLock { $0 }.first)
            #expect(Self.query(of: page)["eventId"]?.count == 10)
            let sent = try #require(client.requests("accounts:signInWithIdp").first)
            #expect(sent.string("requestUri") == Self.link)
            let sessionID = try #require(sent.string("sessionId"))
            #expect(sessionID.count == 10 && sessionID.allSatisfy { ("A"..."Z").contains($0) })
            #expect(AuthNonce.sha256(sessionID) == Self.query(of: page)["sessionId"])
            #expect(sent.string("postBody") == "providerId=microsoft.com")
        }
    }

    @Test func aClosedPageCancels() async throws {
        try await withFakeAuth(configure: { $0.googleAppID = "1:123:ios:abc" }, client: Self.unexpectedClient()) { auth in
            auth.webAuthenticationPresenter = ClosedBrowser()
            await expectAuthError(.webContextCancelled) {
                try await OAuthProvider(providerID: "oidc.corp", auth: auth).getCredentialWith(nil)
            }
            // A presenter's own Auth error is kept.
            auth.webAuthenticationPresenter = ScriptedBrowser { _, _ in throw AuthErrorUtils.error(.webNetworkRequestFailed) }
            await expectAuthError(.webNetworkRequestFailed) {
                try await OAuthProvider(providerID: "oidc.corp", auth: auth).getCredentialWith(nil)
            }
        }
    }

    // MARK: Through a Flint server

    /// Opens the URL over HTTP and follows redirects until one has the callback's scheme, as a browser would.
    final class StandInBrowser: WebAuthenticationPresenter, @unchecked Sendable {
        // @unchecked Sendable: `opened` is only touched under `lock`.
        private let lock = NSLock()
        private var opened: [URL] = []
        var visited: [URL] { lock.withLock { opened } }

        func authenticate(url: URL, callbackURLScheme: String) async throws -> URL {
            let (pages, end) = try await TestBrowser.follow(url)
            lock.withLock { opened += pages.map(\.url) }
            guard end.scheme == callbackURLScheme else { throw URLError(.badServerResponse) }
            return end
        }
    }

    /// The emulator's account chooser as a user picks an account in it (or closes it): the page is fetched, the
    /// account found in it, and the app's deep link made as the page's script makes it for the iOS SDK.
    struct EmulatorChooser: WebAuthenticationPresenter {
        /// The account's email; nil closes the page with the page's Cancel button.
        var email: String?

        func authenticate(url: URL, callbackURLScheme: String) async throws -> URL {
            let page = try await TestBrowser.get(url)
            guard page.status == 200 else { throw URLError(.badServerResponse) }
            let query = WebFlowTests.query(of: url)
            var inner = [("authType", query["authType"] ?? "")]
            if let email {
                // The listed account whose claims carry the email.
                let claims = try #require(page.body.components(separatedBy: "data-id-token=\"").dropFirst()
                    .compactMap { $0.split(separator: "\"").first.flatMap { String($0).removingPercentEncoding } }
                    .first { $0.contains("\"email\":\"\(email)\"") })
                let link = "\(url.scheme!)://\(url.host!):\(url.port!)\(url.path)?" + WebFlowTests.formEncoded([
                    ("providerId", query["providerId"] ?? ""), ("id_token", claims)])
                inner.append(("link", link))
            } else {
                inner.append(("firebaseError", #"{"code":"auth/user-cancelled","message":"closed"}"#))
            }
            inner.append(("eventId", query["eventId"] ?? ""))
            let deepLink = "\(url.scheme!)://\(url.host!):\(url.port!)/__/auth/callback?" + WebFlowTests.formEncoded(inner)
            return try #require(URL(string: "\(callbackURLScheme)://firebaseauth/link?" + WebFlowTests.formEncoded([("deep_link_id", deepLink)])))
        }
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
            options.googleAppID = "1:1234567890:ios:abcdef"
            try await server.registerIOSApp(bundleID: "com.example.Flint", appID: "1:1234567890:ios:abcdef")
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

            // The browser opened the server's page, which sent it to the provider's with the flow's parameters; the
            // provider sent it back to the server's page, which sent it to the app's scheme (where it stopped).
            let handler = server.baseURL.absoluteString + "/__/auth/handler"
            let visited = browser.visited
            #expect(visited.count == 3, "\(visited)")
            let start = try #require(visited.first)
            #expect(start.absoluteString.hasPrefix(handler + "?"))
            #expect(Self.query(of: start)["authType"] == "signInWithRedirect" && Self.query(of: start)["providerId"] == "oidc.corp")
            let page = try #require(visited.dropFirst().first.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: false) })
            let query = Self.query(of: try #require(page.url))
            #expect(page.path == "/authorize" && query["redirect_uri"] == handler)
            #expect(query["scope"] == "openid email profile groups" && query["prompt"] == "login")
            let back = try #require(visited.last)
            #expect(back.absoluteString.hasPrefix(handler + "?") && Self.query(of: back)["code"] != nil)

            // A closed page is `webContextCancelled`. Without a presenter: `webInternalError` (no AuthenticationServices
            // on Linux; on Apple platforms the test process has no key window to show the page from).
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

    /// In emulator mode the flow opens the emulator's account chooser, as FirebaseAuth does, and signs in with the
    /// account picked there.
    @Test func emulatorModeSignsInThroughTheAccountChooser() async throws {
        let server = try await TestServer.start(emulator: true)
        let name = "flint-emulator-web-flow-\(UUID().uuidString)"
        do {
            let seeded = try await TestClient(server).post("/v1/accounts:signInWithIdp", [
                "requestUri": "http://localhost", "returnSecureToken": true,
                "postBody": .string(Self.formEncoded([
                    ("id_token", #"{"sub":"gh-1","email":"octo@example.com","email_verified":true,"name":"Octo Cat"}"#),
                    ("providerId", "github.com")])),
            ])
            #expect(seeded.status == 200, "\(seeded.body)")
            let options = FirebaseOptions(apiKey: "fake-api-key", projectID: server.projectID, serverURL: nil)
            options.clientID = "123-abc.apps.googleusercontent.com"
            FirebaseApp.configure(name: name, options: options)
            let app = try #require(FirebaseApp.app(name: name))
            let auth = Auth(app: app, credentialStore: InMemoryCredentialStore(), httpClient: URLSessionHTTPClient.shared)
            auth.useEmulator(withHost: "127.0.0.1", port: try #require(server.baseURL.port))
            auth.webAuthenticationPresenter = EmulatorChooser(email: "octo@example.com")

            let result = try await auth.signIn(with: OAuthProvider(providerID: "github.com", auth: auth), uiDelegate: nil)
            #expect(result.user.uid == seeded.string("localId") && result.user.email == "octo@example.com")
            #expect(result.additionalUserInfo?.providerID == "github.com" && result.user.displayName == "Octo Cat")
            // Closing the chooser is the user cancelling.
            auth.webAuthenticationPresenter = EmulatorChooser(email: nil)
            await expectAuthError(.webContextCancelled) {
                try await auth.signIn(with: OAuthProvider(providerID: "github.com", auth: auth), uiDelegate: nil)
            }
        } catch {
            Issue.record(error)
        }
        await FirebaseApp.app(name: name)?.delete()
        try await server.stop()
    }
}
