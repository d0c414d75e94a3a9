import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// OpenID Connect providers (`oidc.…`): their admin CRUD as the Admin SDKs call it, and sign-in with their ID
/// tokens against a fake provider found through its discovery document.
@Suite struct OIDCProviderTests {
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
        let clock = TestClock()
        let provider = try await FakeOIDCProvider.start(clock: clock)
        defer { Task { await provider.stop() } }
        let server = try await TestServer.start(emulator: false, database: database, clock: clock)
        do {
            _ = try await server.server.configureOIDCProvider(server.projectID, "oidc.corp", OAuthIdpConfig(
                clientId: provider.clientID, issuer: provider.issuer, displayName: "Corp SSO", enabled: true))
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
            #expect(try await server.server.store.user(projectID: server.projectID, providerID: "oidc.corp", rawID: "emp-7") == nil)
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
    }

    /// A discovery document that names another issuer is not the configured provider's: nothing is trusted.
    @Test func aDiscoveryDocumentForAnotherIssuerIsRefused() async throws {
        let clock = TestClock()
        let provider = try await FakeOIDCProvider.start(clock: clock)
        defer { Task { await provider.stop() } }
        provider.discoveryIssuer.withLockedValue { $0 = "https://evil.example.com" }
        let server = try await TestServer.start(emulator: false, clock: clock)
        do {
            _ = try await server.server.configureOIDCProvider(server.projectID, "oidc.corp", OAuthIdpConfig(
                clientId: provider.clientID, issuer: provider.issuer, enabled: true))
            let reply = try await TestClient(server).post("/v1/accounts:signInWithIdp", [
                "requestUri": "http://localhost", "returnSecureToken": true,
                "postBody": .string(FormURLEncoding.encode([("id_token", try provider.makeIDToken(sub: "x")), ("providerId", "oidc.corp")])),
            ])
            #expect(reply.errorCode == "INVALID_IDP_RESPONSE")
            #expect(!provider.requests.all.contains("/keys"))
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
    }
}
