@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// RFC 8707 resource indicators: the project's protected resources through the admin API (`v2/projects/{p}/oauthResources`),
/// then tokens asked for them: their audience is the resource, a refresh may narrow the resources but never widen them,
/// and an unknown resource, one closed to the client, or a resource's scope asked without it is refused.
@Suite struct OAuthResourceTests {
    static let tools = "https://mcp.example/mcp"
    static let files = "https://files.example/api"
    static let redirect = "http://127.0.0.1:4567/callback"

    private static func create(_ fixture: ProviderFixture, _ fields: [String: JSONValue]) async throws -> TestClient.Reply {
        try await fixture.client.post("/v2/projects/\(fixture.server.projectID)/oauthResources", fields, headers: fixture.admin)
    }

    @Test func resourcesAreRegisteredListedChangedAndRemoved() async throws {
        try await ProviderFixture.with { fixture in
            let project = fixture.server.projectID
            let created = try await Self.create(fixture, [
                "resource": .string(Self.tools), "displayName": "Tools", "scopes": ["tools:read", "tools:call"],
            ])
            #expect(created.status == 200, "\(created.body)")
            let id = try #require(created.string("resourceId"))
            #expect(created.string("name") == "projects/\(project)/oauthResources/\(id)" && created["scopes"] == ["tools:read", "tools:call"])
            #expect(created["allowedClientIds"] == [] && created.string("createTime") != nil, "\(created.body)")
            // Refused: the same URI again, a fragment, http off loopback, a relative URI, OpenID's own scopes, no name.
            for bad: [String: JSONValue] in [
                ["resource": .string(Self.tools), "displayName": "Again"],
                ["resource": "https://mcp.example/mcp#x", "displayName": "Fragment"],
                ["resource": "http://mcp.example/mcp", "displayName": "Plain"],
                ["resource": "/mcp", "displayName": "Relative"],
                ["resource": .string(Self.files), "displayName": "Files", "scopes": ["openid"]],
                ["resource": .string(Self.files)],
            ] {
                let refused = try await Self.create(fixture, bad)
                #expect(refused.status == 400 && refused.errorMessage?.hasPrefix("INVALID_OAUTH_RESOURCE") == true, "\(bad): \(refused.body)")
            }
            let listed = try await fixture.client.send("GET", "/v2/projects/\(project)/oauthResources", headers: fixture.admin)
            #expect(listed["oauthResources"]?.arrayValue?.compactMap { $0["resource"]?.stringValue } == [Self.tools], "\(listed.body)")
            let item = "/v2/projects/\(project)/oauthResources/\(id)"
            let patched = try await fixture.client.send("PATCH", item + "?updateMask=displayName",
                                                        body: Data(#"{"displayName":"MCP tools","scopes":["ignored"]}"#.utf8),
                                                        headers: fixture.admin)
            #expect(patched.status == 200 && patched.string("displayName") == "MCP tools" && patched["scopes"] == ["tools:read", "tools:call"],
                    "\(patched.body)")
            let moved = try await fixture.client.send("PATCH", item, body: Data(#"{"resource":"https://elsewhere.example/"}"#.utf8),
                                                      headers: fixture.admin)
            #expect(moved.status == 400, "\(moved.body)")
            #expect(try await fixture.client.send("GET", item, headers: fixture.admin).string("displayName") == "MCP tools")
            #expect(try await fixture.client.send("DELETE", item, headers: fixture.admin).status == 200)
            let gone = try await fixture.client.send("GET", item, headers: fixture.admin)
            #expect(gone.status == 404 && gone.errorMessage == "OAUTH_RESOURCE_NOT_FOUND", "\(gone.body)")
            // Without admin credentials: nothing.
            #expect([401, 403].contains(try await fixture.client.send("GET", "/v2/projects/\(project)/oauthResources").status))
        }
    }

    @Test func tokensAreForTheResourceAskedAndARefreshNarrowsButNeverWidens() async throws {
        try await ProviderFixture.with { fixture in
            let (clientID, secret) = try await fixture.register(["displayName": "Agent", "redirectUris": [.string(Self.redirect)],
                                                                 "firstParty": true])
            let (otherID, _) = try await fixture.register(["displayName": "Other", "redirectUris": [.string(Self.redirect)]])
            #expect(try await Self.create(fixture, ["resource": .string(Self.tools), "displayName": "Tools",
                                                    "scopes": ["tools:call"]]).status == 200)
            #expect(try await Self.create(fixture, ["resource": .string(Self.files), "displayName": "Files", "scopes": ["files:read"],
                                                    "allowedClientIds": [.string(clientID)]]).status == 200)
            let browser = CookieBrowser()
            var signedUp = false
            /// Where an authorization with `extra` ends: the client's redirect URI with a code (after a sign-in the first time).
            func authorize(scope: String, _ extra: [(String, String)]) async throws -> String {
                let start = try await browser.send("GET", fixture.authorizeURL(clientID: clientID, scope: scope, extra: extra))
                let location = try #require(start.headers["location"], "\(start.status) \(start.body)")
                guard location.hasPrefix("/__/oauth/signin") else { return location }
                defer { signedUp = true }
                return try await fixture.signInOnPage(browser, signInPage: location, email: "ana@example.com", signUp: !signedUp)
            }
            func code(_ location: String) throws -> String {
                try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value, "\(location)")
            }
            func exchange(_ code: String, _ extra: [(String, String)] = []) async throws -> CookieBrowser.Answer {
                try await fixture.tokenCall([("grant_type", "authorization_code"), ("code", code), ("redirect_uri", Self.redirect),
                                             ("code_verifier", ProviderFixture.verifier)] + extra, clientID: clientID, secret: secret)
            }
            func audience(_ tokens: CookieBrowser.Answer) -> JSONValue? {
                tokens.json["access_token"]?.stringValue.map(ProviderFixture.claims)?["aud"]
            }
            let userinfo = fixture.issuer + "/userinfo"

            // One resource without openid: the token is for it alone.
            let alone = try await exchange(try code(try await authorize(scope: "tools:call", [("resource", Self.tools)])))
            #expect(alone.status == 200 && audience(alone) == .string(Self.tools) && alone.json["scope"] == "tools:call", "\(alone.body)")
            let atUserinfo = try await CookieBrowser().send("GET", userinfo, headers: [
                "Authorization": "Bearer \(alone.json["access_token"]?.stringValue ?? "")",
            ])
            #expect(atUserinfo.status == 401, "a token for another resource was taken at userinfo: \(atUserinfo.body)")

            // Two resources (the parameter repeated) and openid: both, and userinfo.
            let both = try await exchange(try code(try await authorize(
                scope: "openid tools:call files:read offline_access", [("resource", Self.tools), ("resource", Self.files)])))
            #expect(audience(both) == .array([.string(Self.tools), .string(Self.files), .string(userinfo)]), "\(both.body)")
            let refreshToken = try #require(both.json["refresh_token"]?.stringValue, "\(both.body)")
            // A refresh narrows to one resource; naming one never granted is refused, and so is a URI that is no resource.
            let narrowed = try await fixture.tokenCall([("grant_type", "refresh_token"), ("refresh_token", refreshToken),
                                                        ("resource", Self.files)], clientID: clientID, secret: secret)
            #expect(audience(narrowed) == .array([.string(Self.files), .string(userinfo)]), "\(narrowed.body)")
            for wider in ["https://other.example/", "not a uri"] {
                let widened = try await fixture.tokenCall([("grant_type", "refresh_token"), ("refresh_token", refreshToken),
                                                           ("resource", wider)], clientID: clientID, secret: secret)
                #expect(widened.status == 400 && widened.json["error"] == "invalid_target", "\(wider): \(widened.body)")
            }
            let introspected = try await fixture.tokenCall([("token", narrowed.json["access_token"]?.stringValue ?? "")],
                                                           clientID: clientID, secret: secret, endpoint: "/introspect")
            #expect(introspected.json["active"] == true && introspected.json["aud"] == .array([.string(Self.files), .string(userinfo)]),
                    "\(introspected.body)")

            // At the code's exchange, a resource outside the authorization is refused too.
            let outside = try await exchange(try code(try await authorize(scope: "tools:call", [("resource", Self.tools)])),
                                             [("resource", Self.files)])
            #expect(outside.status == 400 && outside.json["error"] == "invalid_target", "\(outside.body)")

            // Refused at the authorization endpoint, back to the client with iss and state: an unknown resource, a
            // fragment, a resource closed to the client, and a resource's scope asked without the resource.
            for (scope, extra, client, error) in [
                ("tools:call", [("resource", "https://unknown.example/")], clientID, "invalid_target"),
                ("tools:call", [("resource", Self.tools + "#frag")], clientID, "invalid_target"),
                ("files:read", [("resource", Self.files)], otherID, "invalid_target"),
                ("openid tools:call", [], clientID, "invalid_scope"),
            ] {
                let refused = try await browser.send("GET", fixture.authorizeURL(clientID: client, scope: scope, extra: extra))
                #expect(refused.query("error") == error && refused.query("iss") == fixture.issuer && refused.query("state") == "state-1",
                        "\(scope) \(extra): \(refused.headers)")
            }
        }
    }

    /// RFC 6749 §4.4: a confidential client's token for itself, its `sub` the client, for a resource and its scopes;
    /// never a user's: no refresh or ID token, userinfo refuses it, user scopes are refused. Revocable and introspectable.
    @Test func aClientGetsATokenForItselfThatIsNeverAUsers() async throws {
        try await ProviderFixture.with { fixture in
            let (machineID, machineSecret) = try await fixture.register([
                "displayName": "Nightly job", "grantTypes": ["client_credentials"],
            ])
            let secret = try #require(machineSecret)
            // A public client may not act as itself, nor a client without the grant.
            let publicClient = try await fixture.client.post("/v2/projects/\(fixture.server.projectID)/oauthClients", [
                "displayName": "App", "type": "PUBLIC", "grantTypes": ["client_credentials"],
            ], headers: fixture.admin)
            #expect(publicClient.status == 400 && publicClient.errorMessage?.hasPrefix("INVALID_OAUTH_CLIENT") == true, "\(publicClient.body)")
            let (webID, webSecret) = try await fixture.register(["displayName": "Web", "redirectUris": [.string(Self.redirect)]])
            let unauthorized = try await fixture.tokenCall([("grant_type", "client_credentials")], clientID: webID, secret: webSecret)
            #expect(unauthorized.json["error"] == "unauthorized_client", "\(unauthorized.body)")
            #expect(try await Self.create(fixture, ["resource": .string(Self.tools), "displayName": "Tools",
                                                    "scopes": ["tools:call", "tools:admin"]]).status == 200)

            let issued = try await fixture.tokenCall([("grant_type", "client_credentials"), ("resource", Self.tools),
                                                      ("scope", "tools:call")], clientID: machineID, secret: secret)
            #expect(issued.status == 200 && issued.json["refresh_token"] == nil && issued.json["id_token"] == nil, "\(issued.body)")
            let token = try #require(issued.json["access_token"]?.stringValue)
            let claims = ProviderFixture.claims(token)
            #expect(claims["sub"]?.stringValue == machineID && claims["client_id"]?.stringValue == machineID, "\(claims)")
            #expect(claims["aud"]?.stringValue == Self.tools && claims["scope"] == "tools:call" && claims["email"] == nil, "\(claims)")
            // Without scope: every scope of the resources asked for; a user's scope or a wrong secret: refused.
            let all = try await fixture.tokenCall([("grant_type", "client_credentials"), ("resource", Self.tools)],
                                                  clientID: machineID, secret: secret)
            #expect(all.json["scope"] == "tools:call tools:admin", "\(all.body)")
            let asUser = try await fixture.tokenCall([("grant_type", "client_credentials"), ("scope", "openid")],
                                                     clientID: machineID, secret: secret)
            #expect(asUser.json["error"] == "invalid_scope", "\(asUser.body)")
            let wrong = try await fixture.tokenCall([("grant_type", "client_credentials")], clientID: machineID, secret: "nope")
            #expect(wrong.status == 401 && wrong.json["error"] == "invalid_client", "\(wrong.body)")

            // Presented as a user's token, at userinfo: refused.
            let userinfo = try await CookieBrowser().send("GET", fixture.issuer + "/userinfo", headers: ["Authorization": "Bearer \(token)"])
            #expect(userinfo.status == 401, "\(userinfo.body)")
            // Introspected by the client, then revoked: inactive.
            let active = try await fixture.tokenCall([("token", token)], clientID: machineID, secret: secret, endpoint: "/introspect")
            #expect(active.json["active"] == true && active.json["sub"]?.stringValue == machineID, "\(active.body)")
            let revoked = try await fixture.tokenCall([("token", token)], clientID: machineID, secret: secret, endpoint: "/revoke")
            #expect(revoked.status == 200, "\(revoked.body)")
            let inactive = try await fixture.tokenCall([("token", token)], clientID: machineID, secret: secret, endpoint: "/introspect")
            #expect(inactive.json["active"] == false, "\(inactive.body)")
            // The metadata says so.
            let metadata = try await CookieBrowser().send("GET", fixture.issuer + "/.well-known/openid-configuration")
            #expect(metadata.json["grant_types_supported"]?.arrayValue?.contains("client_credentials") == true)
        }
    }

    /// Step-up: a resource server answered `insufficient_scope`, the client asks again with more scope; the consent page
    /// asks for the new scope only, and the new token has both.
    @Test func aStepUpAsksConsentForTheNewScopesOnly() async throws {
        try await ProviderFixture.with { fixture in
            let redirect = Self.redirect
            let (clientID, secret) = try await fixture.register(["displayName": "Agent", "redirectUris": [.string(redirect)]])
            #expect(try await Self.create(fixture, ["resource": .string(Self.tools), "displayName": "Tools",
                                                    "scopes": ["tools:read", "tools:write"]]).status == 200)
            let browser = CookieBrowser()
            let base = fixture.server.baseURL.absoluteString
            /// The consent page of an authorization for `scope`, signing in first if need be; its scopes and its answer.
            func consent(_ scope: String, signIn: Bool) async throws -> (scopes: [String], code: String) {
                let start = try await browser.send("GET", fixture.authorizeURL(clientID: clientID, scope: scope,
                                                                                extra: [("resource", Self.tools)]))
                var next = try #require(start.headers["location"], "\(start.body)")
                if signIn { next = try await fixture.signInOnPage(browser, signInPage: next, email: "step@example.com") }
                let page = try await browser.send("GET", base + next)
                let items = page.body.components(separatedBy: "<li>").dropFirst().map { $0.components(separatedBy: "</li>")[0] }
                let formToken = try ProviderFixture.formToken(in: page.body)
                let allowed = try await browser.send("POST", base + "/__/oauth/consent", form: [
                    ("authorization_id", URLComponents(string: next)?.queryItems?.first?.value ?? ""), ("form_token", formToken),
                    ("consent", "allow"),
                ])
                return (items, try #require(allowed.query("code"), "\(allowed.headers)"))
            }
            let first = try await consent("tools:read", signIn: true)
            // Each of the resource's scopes is named beside the resource.
            #expect(first.scopes == [#"tools:read <span class="resource">(Tools)</span>"#], "\(first.scopes)")
            let second = try await consent("tools:read tools:write", signIn: false)
            #expect(second.scopes == [#"tools:write <span class="resource">(Tools)</span>"#],
                    "the step-up asked again for what was granted: \(second.scopes)")
            let tokens = try await fixture.exchange(second.code, clientID: clientID, secret: secret, redirectURI: redirect)
            #expect(tokens.json["scope"] == "tools:read tools:write", "\(tokens.body)")
        }
    }
}
