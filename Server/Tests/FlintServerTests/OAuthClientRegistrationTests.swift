@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// RFC 7591's dynamic client registration: off by default; on, within the project's policy (redirect URI kinds,
/// `application_type`), budgeted per address; a registered client signs a user in like any other, shows in the admin
/// API as registered dynamically, and is deleted by the janitor if it never got a token.
@Suite struct OAuthClientRegistrationTests {
    @Test func clientsRegisterThemselvesWithinThePolicyAndUnusedOnesExpire() async throws {
        try await ProviderFixture.with { fixture in
            let project = fixture.server.projectID
            func register(_ metadata: JSONValue) async throws -> CookieBrowser.Answer {
                try await CookieBrowser().send("POST", fixture.issuer + "/register", json: metadata)
            }
            let native: JSONValue = ["client_name": "Example agent", "redirect_uris": ["http://127.0.0.1/callback"],
                                     "token_endpoint_auth_method": "none", "application_type": "native",
                                     "grant_types": ["authorization_code", "refresh_token"]]
            // Off by default: refused, and the metadata names no registration endpoint.
            #expect(try await register(native).json["error"] == "access_denied")
            let discovery = fixture.issuer + "/.well-known/openid-configuration"
            #expect(try await CookieBrowser().send("GET", discovery).json["registration_endpoint"] == nil)

            // On, for loopback redirect URIs only.
            let configured = try await fixture.client.send(
                "PATCH", "/v2/projects/\(project)/config?updateMask=oauthServer", body: Data(#"""
                    {"oauthServer":{"dynamicClientRegistration":{"enabled":true,"allowedRedirectUris":["LOOPBACK"],
                     "unusedClientLifetimeDays":7}}}
                    """#.utf8), headers: fixture.admin)
            #expect(configured.status == 200 && configured["oauthServer"]?["dynamicClientRegistration"]?["enabled"] == true,
                    "\(configured.body)")
            #expect(try await CookieBrowser().send("GET", discovery).json["registration_endpoint"]?.stringValue
                        == fixture.issuer + "/register")
            let registered = try await register(native)
            #expect(registered.status == 201 && registered.json["client_secret"] == nil, "\(registered.body)")
            let clientID = try #require(registered.json["client_id"]?.stringValue)
            #expect(registered.json["token_endpoint_auth_method"] == "none" && registered.json["client_name"] == "Example agent")

            // Refused, each with RFC 7591's error: https under a loopback-only policy, a web client on loopback, a
            // fragment, an implicit grant, a method Flint does not serve, and no JSON at all.
            for (metadata, error) in [
                (["redirect_uris": ["https://agent.example/cb"], "application_type": "web"], "invalid_redirect_uri"),
                (["redirect_uris": ["http://127.0.0.1/cb"], "application_type": "web"], "invalid_redirect_uri"),
                (["redirect_uris": ["http://127.0.0.1/cb#x"], "application_type": "native"], "invalid_redirect_uri"),
                (["redirect_uris": ["http://127.0.0.1/cb"], "application_type": "native", "grant_types": ["implicit"]],
                 "invalid_client_metadata"),
                (["redirect_uris": ["http://127.0.0.1/cb"], "application_type": "native", "token_endpoint_auth_method": "tls_client_auth"],
                 "invalid_client_metadata"),
            ] as [(JSONValue, String)] {
                let refused = try await register(metadata)
                #expect(refused.status == 400 && refused.json["error"]?.stringValue == error, "\(metadata): \(refused.body)")
            }

            // The registered client signs a user in (a consent page: it is never first-party), and gets a token.
            let browser = CookieBrowser()
            let start = try await browser.send("GET", fixture.authorizeURL(clientID: clientID, redirectURI: "http://127.0.0.1:5555/callback"))
            let next = try await fixture.signInOnPage(browser, signInPage: try #require(start.headers["location"]), email: "ag@example.com")
            #expect(next.hasPrefix("/__/oauth/consent"), "\(next)")
            let consent = try await browser.send("GET", fixture.server.baseURL.absoluteString + next)
            let formToken = try ProviderFixture.formToken(in: consent.body)
            let allowed = try await browser.send("POST", fixture.server.baseURL.absoluteString + "/__/oauth/consent", form: [
                ("authorization_id", URLComponents(string: next)?.queryItems?.first?.value ?? ""), ("form_token", formToken),
                ("consent", "allow"),
            ])
            let code = try #require(allowed.query("code"), "\(allowed.headers)")
            let tokens = try await fixture.exchange(code, clientID: clientID, secret: nil, redirectURI: "http://127.0.0.1:5555/callback")
            #expect(tokens.status == 200, "\(tokens.body)")

            // An admin sees both as registered dynamically; one that never got a token goes after its lifetime.
            let unused = try #require(try await register(native).json["client_id"]?.stringValue)
            let listed = try await fixture.client.send("GET", "/v2/projects/\(project)/oauthClients", headers: fixture.admin)
            let dynamic = (listed["oauthClients"]?.arrayValue ?? []).filter { $0["registeredDynamically"] == true }
            #expect(Set(dynamic.compactMap { $0["clientId"]?.stringValue }) == [clientID, unused], "\(listed.body)")
            fixture.server.clock.advance(seconds: 8 * 86_400)
            try await fixture.server.server.store.oauth.deleteExpired(before: fixture.server.clock.seconds)
            #expect(try await fixture.server.server.store.oauth.client(unused) == nil)
            #expect(try await fixture.server.server.store.oauth.client(clientID) != nil)

            // A burst past the budget (20 an hour) is stopped.
            var statuses: [Int] = []
            for _ in 0..<21 { statuses.append(try await register(native).status) }
            #expect(statuses.contains(201) && statuses.last == 429, "\(statuses)")
        }
    }
}
