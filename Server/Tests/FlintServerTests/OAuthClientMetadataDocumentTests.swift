@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import NIOCore
import Testing

/// OAuth Client ID Metadata Documents: off by default; on, a client named by the https URL of its document signs a user
/// in (the consent page names the document's host), the document kept as its Cache-Control says; the fetch refuses what
/// a stranger's URL could abuse, case by case, each before anything of it is used.
@Suite struct OAuthClientMetadataDocumentTests {
    static let redirectURI = "http://127.0.0.1:5555/callback"

    static func document(_ clientID: String, _ extra: [String: JSONValue] = [:]) -> JSONValue {
        var document: [String: JSONValue] = [
            "client_id": .string(clientID), "client_name": "Example agent", "redirect_uris": [.string(redirectURI)],
            "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        ]
        document.merge(extra) { $1 }
        return .object(document)
    }

    /// A provider that takes documents from `host` (loopback, through its CA).
    static func withProvider(trusting host: FakeClientMetadataHost, loopback: Bool = true, database: TestDatabase = .sqlite,
                             fetchDeadline: TimeAmount? = nil, _ body: (ProviderFixture) async throws -> Void) async throws {
        try await ProviderFixture.with(database: database, configure: { configuration in
            configuration.delivery.extraTrustRootsPEM = [host.caCertificatePEM]
            configuration.delivery.allowLoopbackClientMetadata = loopback
            if let fetchDeadline { configuration.delivery.limits.clientMetadataTimeout = fetchDeadline }
        }) { fixture in
            let configured = try await fixture.client.send(
                "PATCH", "/v2/projects/\(fixture.server.projectID)/config?updateMask=oauthServer",
                body: Data(#"{"oauthServer":{"clientIdMetadataDocuments":{"enabled":true}}}"#.utf8), headers: fixture.admin)
            #expect(configured["oauthServer"]?["clientIdMetadataDocuments"]?["enabled"] == true, "\(configured.body)")
            try await body(fixture)
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func aClientNamedByItsDocumentSignsAUserIn(database: TestDatabase) async throws {
        let host = try await FakeClientMetadataHost.start()
        defer { Task { await host.stop() } }
        let clientID = host.url("/agents/example.json")
        host.publish("/agents/example.json", .document(Self.document(clientID), cacheControl: "max-age=600"))
        try await ProviderFixture.with(configure: { configuration in
            configuration.delivery.extraTrustRootsPEM = [host.caCertificatePEM]
            configuration.delivery.allowLoopbackClientMetadata = true
        }) { fixture in
            // Off by default: not fetched, not advertised.
            let discovery = fixture.issuer + "/.well-known/oauth-authorization-server"
            #expect(try await CookieBrowser().send("GET", discovery).json["client_id_metadata_document_supported"] == nil)
            let off = try await CookieBrowser().send("GET", fixture.authorizeURL(clientID: clientID, redirectURI: Self.redirectURI))
            #expect(off.status == 400 && host.requests(to: "/agents/example.json") == 0, "\(off.body)")
        }
        try await Self.withProvider(trusting: host, database: database) { fixture in
            let discovery = fixture.issuer + "/.well-known/oauth-authorization-server"
            #expect(try await CookieBrowser().send("GET", discovery).json["client_id_metadata_document_supported"] == true)

            // Signed in through the consent page, which names the client and the host that vouches for it.
            let browser = CookieBrowser()
            let start = try await browser.send("GET", fixture.authorizeURL(clientID: clientID, redirectURI: Self.redirectURI))
            let next = try await fixture.signInOnPage(browser, signInPage: try #require(start.headers["location"], "\(start.body)"),
                                                      email: "cimd@example.com")
            #expect(next.hasPrefix(ProviderEndpoints.consentPage), "\(next)")
            let consent = try await browser.send("GET", fixture.server.baseURL.absoluteString + next)
            #expect(consent.body.contains("Example agent") && consent.body.contains("127.0.0.1"), "\(consent.body)")
            let allowed = try await browser.send("POST", fixture.server.baseURL.absoluteString + ProviderEndpoints.consentPage, form: [
                ("authorization_id", URLComponents(string: next)?.queryItems?.first?.value ?? ""),
                ("form_token", try ProviderFixture.formToken(in: consent.body)), ("consent", "allow"),
            ])
            let code = try #require(allowed.query("code"), "\(allowed.headers)")
            let tokens = try await fixture.exchange(code, clientID: clientID, secret: nil, redirectURI: Self.redirectURI)
            #expect(tokens.status == 200, "\(tokens.body)")
            let access = try #require(tokens.json["access_token"]?.stringValue)
            #expect(ProviderFixture.claims(access)["client_id"]?.stringValue == clientID)
            // Kept for its max-age: fetched once for the authorization, the pages and the exchange; without cookies.
            #expect(host.requests(to: "/agents/example.json") == 1)
            #expect(host.requestsWithCookies == 0)

            // The user's consents name it; the admin API's clients do not (nothing of it is registered).
            let project = fixture.server.projectID
            let localID = try #require(ProviderFixture.claims(access)["sub"]?.stringValue)
            let grants = try await fixture.client.send("GET", "/v2/projects/\(project)/accounts/\(localID)/oauthGrants",
                                                       headers: fixture.admin)
            let grant = grants["grants"]?.arrayValue?.first
            #expect(grant?["clientId"]?.stringValue == clientID && grant?["clientName"] == "Example agent", "\(grants.body)")
            let listed = try await fixture.client.send("GET", "/v2/projects/\(project)/oauthClients", headers: fixture.admin)
            #expect(listed.status == 200 && !String(decoding: listed.data, as: UTF8.self).contains("example.json"), "\(listed.body)")

            // A redirect URI the document does not name is refused on the page, never redirected to.
            let elsewhere = try await CookieBrowser().send(
                "GET", fixture.authorizeURL(clientID: clientID, redirectURI: "http://127.0.0.1:5555/other"))
            #expect(elsewhere.status == 400 && elsewhere.headers["location"] == nil, "\(elsewhere.headers)")

            // A document that says no-store is fetched for every use.
            let fresh = host.url("/agents/fresh.json")
            host.publish("/agents/fresh.json", .document(Self.document(fresh), cacheControl: "no-store"))
            for _ in 0..<2 {
                let started = try await CookieBrowser().send("GET", fixture.authorizeURL(clientID: fresh, redirectURI: Self.redirectURI))
                #expect(started.status == 303, "\(started.body)")
            }
            #expect(host.requests(to: "/agents/fresh.json") == 2)
        }
    }

    @Test func hostileDocumentsAreRefusedCaseByCase() async throws {
        let host = try await FakeClientMetadataHost.start()
        defer { Task { await host.stop() } }
        let loop = host.url("/loop")
        host.publish("/mismatch", .document(Self.document(host.url("/someone-else"))))
        host.publish("/secret", .document(Self.document(host.url("/secret"), ["client_secret": "s3cret"])))
        host.publish("/to-loopback", .redirect("https://127.0.0.1:\(host.port == 65535 ? 1 : host.port + 1)/doc"))
        host.publish("/to-metadata", .redirect("https://169.254.169.254/latest/meta-data/"))
        host.publish("/to-localhost", .redirect("https://localhost:\(host.port)/doc"))
        host.publish("/loop", .redirect(loop))
        host.publish("/huge", .bytes(10 * 1024 * 1024))
        host.publish("/slow", .silence)
        try await Self.withProvider(trusting: host) { fixture in
            for (path, reason) in [
                ("/mismatch", "names another client_id"),
                ("/secret", "holds a client secret"),
                ("/to-loopback", "which is not a public address"),
                ("/to-metadata", "169.254.169.254, which is not a public address"),
                ("/to-localhost", "localhost is at 127.0.0.1, which is not a public address"),
                ("/loop", "redirects too many times"),
                ("/huge", "too large"),
                ("/missing", "answered HTTP 404"),
            ] {
                let refused = try await CookieBrowser().send(
                    "GET", fixture.authorizeURL(clientID: host.url(path), redirectURI: Self.redirectURI))
                #expect(refused.status == 400 && refused.headers["location"] == nil && refused.body.contains(reason),
                        "\(path): \(refused.status) \(refused.body)")
                // The token endpoint refuses it as RFC 6749's invalid_client.
                let token = try await fixture.tokenCall([("grant_type", "authorization_code"), ("code", "x"),
                                                         ("redirect_uri", Self.redirectURI), ("code_verifier", ProviderFixture.verifier)],
                                                        clientID: host.url(path), secret: nil)
                #expect(token.status == 401 && token.json["error"] == "invalid_client", "\(path): \(token.body)")
            }
            #expect(host.requests(to: "/loop") == 8, "twice the first request and three redirects")
            #expect(host.requests(to: "/doc") == 0, "no redirect reached a refused address")

            // URLs that cannot name a client are refused without a fetch: http, a query, a fragment, a root path.
            for url in [host.url("/q?x=1"), host.url("/f#x"), host.url("/a/../b"), "https://127.0.0.1:\(host.port)/"] {
                let refused = try await CookieBrowser().send("GET", fixture.authorizeURL(clientID: url, redirectURI: Self.redirectURI))
                #expect(refused.status == 400 && refused.body.contains("must be https, with a path"), "\(url): \(refused.body)")
            }
            let plain = "http://127.0.0.1:\(host.port)/mismatch"
            let refused = try await CookieBrowser().send("GET", fixture.authorizeURL(clientID: plain, redirectURI: Self.redirectURI))
            #expect(refused.status == 400 && refused.body.contains("not known"), "\(refused.body)")
            #expect(host.requests(to: "/q") + host.requests(to: "/f") + host.requests(to: "/b") == 0)
            #expect(host.requests(to: "/mismatch") == 2, "once for the page and once for the token endpoint, never for http")
        }
    }

    @Test func aDocumentThatDoesNotAnswerInTimeIsRefused() async throws {
        let host = try await FakeClientMetadataHost.start()
        defer { Task { await host.stop() } }
        host.publish("/slow", .silence)
        try await Self.withProvider(trusting: host, fetchDeadline: .seconds(1)) { fixture in
            let refused = try await CookieBrowser().send(
                "GET", fixture.authorizeURL(clientID: host.url("/slow"), redirectURI: Self.redirectURI))
            #expect(refused.status == 400 && refused.body.contains("it answers too slowly"), "\(refused.body)")
        }
    }

    @Test func withoutTheTestAllowanceLoopbackIsRefusedAfterResolution() async throws {
        let host = try await FakeClientMetadataHost.start()
        defer { Task { await host.stop() } }
        host.publish("/doc", .document(Self.document("https://localhost:\(host.port)/doc")))
        try await Self.withProvider(trusting: host, loopback: false) { fixture in
            for (url, reason) in [("https://localhost:\(host.port)/doc", "localhost is at 127.0.0.1"),
                                  (host.url("/doc"), "127.0.0.1 is at 127.0.0.1")] {
                let refused = try await CookieBrowser().send("GET", fixture.authorizeURL(clientID: url, redirectURI: Self.redirectURI))
                #expect(refused.status == 400 && refused.body.contains(reason), "\(url): \(refused.body)")
            }
            #expect(host.requests(to: "/doc") == 0)
        }
    }

    @Test func onlyPublicAddressesArePublic() throws {
        func address(_ text: String) throws -> IPAddress {
            var v4 = in_addr(), v6 = in6_addr()
            if inet_pton(AF_INET, text, &v4) == 1 { return IPAddress(bytes: withUnsafeBytes(of: v4) { Array($0) }) }
            #expect(inet_pton(AF_INET6, text, &v6) == 1, "\(text)")
            return IPAddress(bytes: withUnsafeBytes(of: v6) { Array($0) })
        }
        for text in ["127.0.0.1", "127.1.2.3", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
                     "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255", "192.0.2.7", "198.18.0.1", "::1", "::", "fe80::1",
                     "fc00::1", "fd12::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe",
                     "2001:db8::1"] {
            #expect(try !address(text).isPublic, "\(text)")
        }
        for text in ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"] {
            #expect(try address(text).isPublic, "\(text)")
        }
        #expect(try address("::ffff:127.0.0.1").isLoopback && address("::1").isLoopback && !address("10.0.0.1").isLoopback)
    }
}
