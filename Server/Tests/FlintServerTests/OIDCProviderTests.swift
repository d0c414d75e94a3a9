import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// OpenID Connect providers (`oidc.…`): their admin CRUD as the Admin SDKs call it, and sign-in with their ID
/// tokens against a fake provider found through its discovery document.
@Suite struct OIDCProviderTests {
    /// A production server and a fake provider on one clock, with `oidc.corp` configured for it (with `codeFlow`, its
    /// secret and the code flow too); both stop afterwards, whether `body` succeeds or not.
    private func withProvider(database: TestDatabase = .sqlite, codeFlow: Bool = false,
                              prepare: (FakeOIDCProvider) -> Void = { _ in },
                              _ body: (TestServer, FakeOIDCProvider, TestClock) async throws -> Void) async throws {
        let clock = TestClock()
        let provider = try await FakeOIDCProvider.start(clock: clock)
        prepare(provider)
        do {
            try await withServer(emulator: false, database: database, clock: clock) { server, _ in
                _ = try await server.server.configureOIDCProvider(server.projectID, "oidc.corp", OAuthIdpConfig(
                    clientId: provider.clientID, issuer: provider.issuer, displayName: "Corp SSO", enabled: true,
                    clientSecret: codeFlow ? provider.clientSecret : nil, responseType: codeFlow ? .init(code: true) : nil))
                try await body(server, provider, clock)
            }
        } catch {
            await provider.stop()
            throw error
        }
        await provider.stop()
    }

    @Test(arguments: TestDatabase.allCases)
    func adminCreateListUpdateDelete(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let base = "/v2/projects/\(server.projectID)/oauthIdpConfigs"
            func call(_ method: String, _ path: String, _ body: JSONValue? = nil) async throws -> TestClient.Reply {
                try await client.send(method, path, body: try body.map { try JSONEncoder().encode($0) },
                                      headers: ["Authorization": "Bearer owner"], includeKey: false)
            }
            let okta: JSONValue = ["clientId": "okta-client", "issuer": "https://example.okta.com", "displayName": "Okta",
                                   "enabled": true]
            let created = try await call("POST", base + "?oauthIdpConfigId=oidc.okta", okta)
            #expect(created.status == 200, "\(created.body)")
            #expect(created["name"] == .string("projects/\(server.projectID)/oauthIdpConfigs/oidc.okta"))
            #expect(created["issuer"] == "https://example.okta.com" && created["displayName"] == "Okta")
            #expect(created["responseType"]?["idToken"] == true && created["responseType"]?["code"] == false)
            #expect(try await call("POST", base + "?oauthIdpConfigId=oidc.okta", okta).status == 409)
            #expect(try await call("POST", base + "?oauthIdpConfigId=okta", okta).errorCode == "INVALID_PROVIDER_ID")
            #expect(try await call("POST", base + "?oauthIdpConfigId=oidc.bad", ["clientId": "x"]).errorCode == "INVALID_CONFIG")
            #expect(try await call("POST", base + "?oauthIdpConfigId=oidc.bad", [
                "clientId": "x", "issuer": "https://example.com", "responseType": ["code": true],
            ]).errorCode == "INVALID_CONFIG")
            #expect(try await call("GET", base + "/oidc.missing").status == 404)

            // The code flow with its secret: sealed, never returned.
            let entra = try await call("POST", base + "?oauthIdpConfigId=oidc.entra", [
                "clientId": "entra-client", "issuer": "https://login.microsoftonline.com/tenant/v2.0",
                "clientSecret": "s3cret", "responseType": ["code": true, "idToken": false],
            ])
            #expect(entra["clientSecret"] == "REDACTED" && entra["responseType"]?["code"] == true)
            #expect(try await call("GET", base + "/oidc.entra")["clientSecret"] == "REDACTED")
            _ = try await call("POST", base + "?oauthIdpConfigId=oidc.keycloak", [
                "clientId": "kc", "issuer": "https://sso.example.com/realms/main",
            ])

            let first = try await call("GET", base + "?pageSize=2")
            #expect(first["oauthIdpConfigs"]?.arrayValue?.compactMap { $0["name"]?.stringValue.map { String($0.split(separator: "/").last!) } }
                == ["oidc.entra", "oidc.keycloak"])
            let token = try #require(first.string("nextPageToken"))
            let second = try await call("GET", base + "?pageSize=2&pageToken=\(token)")
            #expect(second["oauthIdpConfigs"]?.arrayValue?.count == 1 && second["nextPageToken"] == nil)
            // The built-in providers' list does not show them.
            let builtIn = try await call("GET", "/v2/projects/\(server.projectID)/defaultSupportedIdpConfigs")
            #expect(builtIn["defaultSupportedIdpConfigs"]?.arrayValue?.isEmpty == true)

            let patched = try await call("PATCH", base + "/oidc.okta?updateMask=displayName", ["displayName": "Okta SSO", "clientId": "ignored"])
            #expect(patched["displayName"] == "Okta SSO" && patched["clientId"] == "okta-client")
            #expect(try await call("DELETE", base + "/oidc.okta").status == 200)
            #expect(try await call("GET", base + "/oidc.okta").status == 404)
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func idTokensAreCheckedThroughTheIssuersDiscoveryDocument(database: TestDatabase) async throws {
        try await withProvider(database: database) { server, provider, _ in
            let client = TestClient(server)
            func signIn(_ token: String, nonce: String? = nil, provider id: String = "oidc.corp") async throws -> TestClient.Reply {
                var fields = [("id_token", token), ("providerId", id)]
                if let nonce { fields.append(("nonce", nonce)) }
                return try await client.post("/v1/accounts:signInWithIdp", [
                    "requestUri": "http://localhost", "returnSecureToken": true,
                    "postBody": .string(FormURLEncoding.encode(fields)),
                ])
            }
            let token = try provider.makeIDToken(sub: "emp-42", email: "Ada@Corp.example", emailVerified: true, name: "Ada L")
            let first = try await signIn(token)
            #expect(first.status == 200, "\(first.body)")
            #expect(first["providerId"] == "oidc.corp" && first["federatedId"] == "emp-42" && first["isNewUser"] == true)
            #expect(first["email"] == "ada@corp.example" && first["emailVerified"] == true && first["displayName"] == "Ada L")
            #expect(claims(of: first.string("idToken"))["firebase"]?["sign_in_provider"] == "oidc.corp")
            // The discovery document and the key set are read once and kept.
            #expect(try await signIn(try provider.makeIDToken(sub: "emp-42", nonce: "n-1"), nonce: "n-1")["localId"] == first["localId"])
            #expect(provider.requests.all == ["/.well-known/openid-configuration", "/keys"])

            let refused: [(String, String?, String)] = [
                (try provider.makeIDToken(sub: "emp-7", audience: "another-client"), nil, "INVALID_IDP_RESPONSE"),
                (try provider.makeIDToken(sub: "emp-7", issuer: "https://evil.example.com"), nil, "INVALID_IDP_RESPONSE"),
                (try provider.makeIDToken(sub: "emp-7", signWith: .foreignKey), nil, "INVALID_IDP_RESPONSE"),
                (try provider.makeIDToken(sub: "emp-7", signWith: .none), nil, "INVALID_IDP_RESPONSE"),
                (try provider.makeIDToken(sub: "emp-7", expiresIn: -600), nil, "INVALID_IDP_RESPONSE"),
                (try provider.makeIDToken(sub: "emp-7", nonce: "n-2"), "n-3", "MISSING_OR_INVALID_NONCE"),
            ]
            for (token, nonce, expected) in refused {
                #expect(try await signIn(token, nonce: nonce).errorCode == expected)
            }
            #expect(try await signIn(token, provider: "oidc.unknown").errorCode == "OPERATION_NOT_ALLOWED")
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, providerID: "oidc.corp", rawID: "emp-7") == nil)
        }
    }

    /// The redirect flow: `createAuthUri` binds state, PKCE and a nonce to a session; the browser's return with a code
    /// finishes it once, the code exchanged with the client secret and the verifier.
    @Test(arguments: TestDatabase.allCases)
    func theCodeFlowSignsInThroughTheRedirect(database: TestDatabase) async throws {
        try await withProvider(database: database, codeFlow: true) { server, provider, clock in
            let client = TestClient(server)
            let redirect = "http://localhost/__/auth/handler"
            func start(_ extra: [String: JSONValue] = [:]) async throws -> TestClient.Reply {
                var body: [String: JSONValue] = ["providerId": "oidc.corp", "continueUri": .string(redirect)]
                for (key, value) in extra { body[key] = value }
                return try await client.post("/v1/accounts:createAuthUri", body)
            }
            func finish(_ sessionID: String?, _ query: String) async throws -> TestClient.Reply {
                try await client.post("/v1/accounts:signInWithIdp", [
                    "requestUri": .string(redirect + "?" + query), "sessionId": sessionID.map { .string($0) } ?? .null,
                    "returnSecureToken": true,
                ])
            }
            let started = try await start(["oauthScope": "groups", "customParameter": ["prompt": "login", "state": "forged"]])
            #expect(started.status == 200, "\(started.body)")
            #expect(started["providerId"] == "oidc.corp")
            let authURI = try #require(started.string("authUri"))
            let sessionID = try #require(started.string("sessionId"))
            let query = Dictionary(try #require(URLComponents(string: authURI)?.queryItems).map { ($0.name, $0.value ?? "") },
                                   uniquingKeysWith: { first, _ in first })
            #expect(authURI.hasPrefix(provider.issuer + "/authorize?"))
            #expect(query["response_type"] == "code" && query["client_id"] == provider.clientID && query["redirect_uri"] == redirect)
            #expect(query["scope"] == "openid email profile groups" && query["prompt"] == "login")
            #expect(query["code_challenge_method"] == "S256" && query["nonce"]?.isEmpty == false)
            // A custom parameter cannot replace what binds the flow.
            let state = try #require(query["state"])
            #expect(state != "forged" && !authURI.contains("forged"))

            let code = try #require(provider.issueCode(for: authURI, subject: "emp-9", email: "grace@corp.example"))
            let signedIn = try await finish(sessionID, "code=\(code)&state=\(state)")
            #expect(signedIn.status == 200, "\(signedIn.body)")
            #expect(signedIn["providerId"] == "oidc.corp" && signedIn["federatedId"] == "emp-9")
            #expect(signedIn["email"] == "grace@corp.example" && signedIn["oauthIdToken"] != nil)
            // The session is spent: its code cannot be sent again, nor another.
            #expect(try await finish(sessionID, "code=\(code)&state=\(state)").errorCode == "INVALID_IDP_RESPONSE")

            // A state of another session, an error from the provider, a made-up or missing session: refused, and no
            // code is exchanged for them.
            let other = try await start()
            let otherURI = try #require(other.string("authUri"))
            let otherCode = try #require(provider.issueCode(for: otherURI, subject: "emp-10"))
            let otherState = try #require(URLComponents(string: otherURI)?.queryItems?.first { $0.name == "state" }?.value)
            #expect(try await finish(other.string("sessionId"), "code=\(otherCode)&state=\(state)").errorCode == "INVALID_IDP_RESPONSE")
            #expect(try await finish(sessionID, "code=\(otherCode)&state=\(otherState)").errorCode == "INVALID_IDP_RESPONSE")
            #expect(try await finish(other.string("sessionId"), "error=access_denied&state=x").errorCode == "INVALID_IDP_RESPONSE")
            #expect(try await finish("made-up", "code=\(otherCode)&state=x").errorCode == "INVALID_IDP_RESPONSE")
            #expect(provider.requests.all.filter { $0 == "/token" }.count == 1)
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, providerID: "oidc.corp", rawID: "emp-10") == nil)

            // The session expires after ten minutes.
            let late = try await start()
            let lateURI = try #require(late.string("authUri"))
            let lateCode = try #require(provider.issueCode(for: lateURI, subject: "emp-11"))
            let lateState = try #require(URLComponents(string: lateURI)?.queryItems?.first { $0.name == "state" }?.value)
            clock.advance(seconds: 601)
            #expect(try await finish(late.string("sessionId"), "code=\(lateCode)&state=\(lateState)").errorCode == "INVALID_IDP_RESPONSE")

            // Only authorized domains may receive the browser; only configured oidc.* providers with the code flow on.
            #expect(try await client.post("/v1/accounts:createAuthUri", [
                "providerId": "oidc.corp", "continueUri": "https://evil.example.com/cb",
            ]).errorCode == "UNAUTHORIZED_DOMAIN")
            #expect(try await start(["providerId": "oidc.none"]).errorCode == "OPERATION_NOT_ALLOWED")
            #expect(try await start(["providerId": "twitter.com"]).errorCode == "INVALID_PROVIDER_ID")
            _ = try await server.server.configureOIDCProvider(server.projectID, "oidc.tokens", OAuthIdpConfig(
                clientId: provider.clientID, issuer: provider.issuer, enabled: true))
            #expect(try await start(["providerId": "oidc.tokens"]).errorCode == "INVALID_CONFIG")
        }
    }

    /// A discovery document that names another issuer is not the configured provider's: nothing is trusted.
    @Test func aDiscoveryDocumentForAnotherIssuerIsRefused() async throws {
        try await withProvider(prepare: { $0.discoveryIssuer.withLockedValue { $0 = "https://evil.example.com" } }) { server, provider, _ in
            let reply = try await TestClient(server).post("/v1/accounts:signInWithIdp", [
                "requestUri": "http://localhost", "returnSecureToken": true,
                "postBody": .string(FormURLEncoding.encode([("id_token", try provider.makeIDToken(sub: "x")), ("providerId", "oidc.corp")])),
            ])
            #expect(reply.errorCode == "INVALID_IDP_RESPONSE")
            #expect(!provider.requests.all.contains("/keys"))
        }
    }
}
