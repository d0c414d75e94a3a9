import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The emulator's sign-in pages over HTTP: what they list, escape and refuse, and their headers. (What their scripts
/// do in a browser is `EmulatorPagesBrowserTests`'.)
@Suite struct EmulatorSignInPagesTests {
    private func page(_ server: TestServer, _ pathAndQuery: String) async throws -> TestBrowser.Page {
        try await TestBrowser.get(try #require(URL(string: server.baseURL.absoluteString + pathAndQuery)))
    }

    private static func handlerQuery(provider: String, apiKey: String = "fake-key") -> String {
        "/emulator/auth/handler?" + FormURLEncoding.encode([
            ("apiKey", apiKey), ("appName", "[DEFAULT]"), ("authType", "signInViaPopup"), ("providerId", provider),
            ("redirectUrl", "http://localhost:5000/"), ("v", "12.6.0"), ("eventId", "123"),
        ])
    }

    @Test func theChooserListsTheProvidersAccountsEscaped() async throws {
        try await withServer(emulator: true) { server, client in
            for (sub, email, name) in [("g-1", "pages-user@example.com", "Pages Person"),
                                       ("g-2", "evil@example.com", "<img src=x onerror=alert(1)>")] {
                let claims = #"{"sub":"\#(sub)","email":"\#(email)","email_verified":true,"name":"\#(name)","picture":"https://img.example.com/\#(sub)\"><script>"}"#
                let reply = try await client.post("/v1/accounts:signInWithIdp", [
                    "requestUri": "http://localhost", "returnSecureToken": true,
                    "postBody": .string(FormURLEncoding.encode([("id_token", claims), ("providerId", "google.com")])),
                ])
                #expect(reply.status == 200, "\(reply.body)")
            }
            let chooser = try await page(server, Self.handlerQuery(provider: "google.com"))
            #expect(chooser.status == 200 && chooser.headers["content-type"] == "text/html; charset=utf-8")
            let html = chooser.body
            // The official page's addressable texts and ids.
            for text in ["Auth Emulator IDP Login Widget", "Sign-in with <span class=\"js-provider-id provider-name\">Google.com</span>",
                         "Add new account", "id=\"email-input\"", "id=\"display-name-input\"", "id=\"screen-name-input\"",
                         "id=\"profile-photo-input\"", "id=\"autogen-button\"", "Auto-generate user information", "id=\"sign-in\"",
                         "id=\"back-button\"", "id=\"main-form\"", "id=\"add-user\"", "id=\"accounts-list\"", "js-new-account",
                         "Please select an existing account in the Auth Emulator or add a new one:"] {
                #expect(html.contains(text), "missing \(text)")
            }
            #expect(html.components(separatedBy: "class=\"js-reuse-account").count == 3)
            #expect(html.contains("Pages Person") && html.contains("pages-user@example.com"))
            // Attacker text is text: in the name, the photo URL and the claims alike.
            #expect(!html.contains("<img src=x") && html.contains("&lt;img src=x onerror=alert(1)&gt;"))
            #expect(!html.contains("\"><script>") && html.components(separatedBy: "<script").count == 2)

            // Each account's claims are what signInWithIdp takes back, signing in to that same account.
            let token = try #require(html.components(separatedBy: "data-id-token=\"").dropFirst().first?.split(separator: "\"").first)
            let claims = try #require(String(token).replacingOccurrences(of: "&amp;", with: "&").removingPercentEncoding)
            let decoded = try JSONDecoder().decode([String: JSONValue].self, from: Data(claims.utf8))
            #expect(decoded["sub"] == "g-1" && decoded["email"] == "pages-user@example.com" && decoded["email_verified"] == true)
            let again = try await client.post("/v1/accounts:signInWithIdp", [
                "requestUri": .string(server.baseURL.absoluteString + "/emulator/auth/handler?" + FormURLEncoding.encode([
                    ("providerId", "google.com"), ("id_token", claims)])),
                "returnSecureToken": true,
            ])
            #expect(again["email"] == "pages-user@example.com" && again["isNewUser"] == nil, "\(again.body)")

            // Strict headers: scripts and styles by hash, never framed, no outside resources.
            let policy = chooser.headers["content-security-policy"] ?? ""
            #expect(policy.contains("script-src 'sha256-") && !policy.contains("unsafe-inline") && policy.contains("frame-ancestors 'none'"))
            #expect(chooser.headers["x-frame-options"] == "DENY" && chooser.headers["cross-origin-opener-policy"] == "unsafe-none")
            #expect(!html.contains("https://unpkg.com") && !html.contains("fonts.googleapis.com"))

            // A provider without accounts says so; a request without its parameters is refused as the official one is.
            #expect(try await page(server, Self.handlerQuery(provider: "github.com")).body
                .contains("No Github.com accounts exist in the Auth Emulator."))
            let refused = try await page(server, "/emulator/auth/handler?providerId=google.com")
            #expect(refused.status == 400 && refused.body.contains("missing apiKey or providerId query parameters"))
        }
    }

    @Test func theFrameIsFramedOnlyByAuthorizedDomains() async throws {
        try await withServer(emulator: true) { server, _ in
            let frame = try await page(server, "/emulator/auth/iframe?apiKey=fake-key&appName=%5BDEFAULT%5D&v=12.6.0")
            #expect(frame.status == 200 && frame.headers["content-type"] == "text/html; charset=utf-8")
            #expect(frame.headers["x-frame-options"] == nil)
            let policy = frame.headers["content-security-policy"] ?? ""
            #expect(policy.contains("frame-ancestors 'self' http://127.0.0.1:* https://127.0.0.1:* http://localhost:* https://localhost:*"), "\(policy)")
            #expect(!policy.contains("frame-ancestors *") && policy.contains("script-src 'sha256-"))
            #expect(try await page(server, "/emulator/auth/iframe?apiKey=fake-key").status == 400)
        }
    }

    /// Production has no fake provider pages.
    @Test func productionModeHasNoEmulatorPages() async throws {
        try await withServer(emulator: false) { (server: TestServer, _: TestClient) async throws in
            #expect(try await page(server, Self.handlerQuery(provider: "google.com", apiKey: server.apiKey)).status == 404)
            #expect(try await page(server, "/emulator/auth/iframe?apiKey=\(server.apiKey)&appName=x").status == 404)
        }
    }
}
