import FlintAdmin
import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// A resource server's checks of Flint's OAuth access tokens, against a live production server: a real access token
/// from the provider's code flow (the team's sign-in page approving with FlintAdmin) is verified for its audience and
/// scopes, refused for another resource or a missing scope, Firebase and provider ID tokens are refused as access
/// tokens (and the access token as an ID token), and with `checkRevoked` the token is refused once revoked (RFC 7009),
/// as the introspection endpoint (RFC 7662) says.
@Suite struct AccessTokenLiveTests {
    @Test func aResourceServerVerifiesRealAccessTokens() async throws {
        try await LiveFlintTests.withProduction(.sqlite) { auth, server, client in
            try await OAuthClientAdminTests.useTeamsSignInPage(server)
            let app = try await auth.createOAuthClient(OAuthClientAdminTests.confidentialClient())
            let (appID, appSecret) = (try #require(app.clientId), try #require(app.clientSecret))
            let api = try await auth.createOAuthClient(OAuthClientAdminTests.confidentialClient("Notes API"))
            let (apiID, apiSecret) = (try #require(api.clientId), try #require(api.clientSecret))

            let authorizationID = try await OAuthClientAdminTests.startAuthorization(server, clientID: appID)
            let idToken = try await OAuthClientAdminTests.signUp(client, email: "ada@example.com")
            let redirect = try await auth.approveOAuthAuthorization(authorizationID, idToken: idToken)
            let code = try #require(OAuthClientAdminTests.query(redirect)["code"], "\(redirect)")
            let issuer = server.baseURL.absoluteString + "/" + server.projectID
            #expect(auth.accessTokenIssuer == issuer)
            let tokens = try await Self.form(client, issuer + "/token", clientID: appID, secret: appSecret, [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", OAuthClientAdminTests.redirectURI),
                ("code_verifier", OAuthClientAdminTests.verifier),
            ])
            #expect(tokens.status == 200, "\(tokens.body)")
            let accessToken = try #require(tokens.string("access_token"), "\(tokens.body)")
            let providerIDToken = try #require(tokens.string("id_token"), "\(tokens.body)")

            // Verified for the resource it names, with the scopes granted.
            let resource = issuer + "/userinfo"
            let verified = try await auth.verifyAccessToken(accessToken, resource: resource, requiredScopes: ["openid"])
            let uid = try #require(OAuthClientAdminTests.claims(idToken)["user_id"]?.stringValue)
            #expect(verified.subject == uid && verified.clientID == appID && verified.issuer == issuer, "\(verified)")
            #expect(verified.scopes == ["openid", "email"] && verified.audiences == [resource] && verified.tenantID == nil)
            #expect(verified.expiresAt > server.clock.now() && verified.tokenID?.isEmpty == false)

            // Refused for another resource, a scope it lacks, and by another project's or a tenant's issuer.
            await expectRefusal(.invalidAccessToken, "not https://api.example/mcp") {
                try await auth.verifyAccessToken(accessToken, resource: "https://api.example/mcp")
            }
            do {
                _ = try await auth.verifyAccessToken(accessToken, resource: resource, requiredScopes: ["openid", "notes:write"])
                Issue.record("a token without notes:write passed")
            } catch let error as AccessTokenError {
                #expect(error.code == .insufficientScope && error.missingScopes == ["notes:write"], "\(error)")
            }
            await expectRefusal(.invalidAccessToken, "issuer") {
                try await auth.tenant("some-tenant").verifyAccessToken(accessToken, resource: resource)
            }
            // ID tokens are no access tokens, and the reverse.
            await expectRefusal(.invalidAccessToken, "not at+jwt") { try await auth.verifyAccessToken(idToken, resource: resource) }
            await expectRefusal(.invalidAccessToken, "not at+jwt") {
                try await auth.verifyAccessToken(providerIDToken, resource: resource)
            }
            await expectAdminError(.invalidIDToken) { try await auth.verifyIDToken(accessToken) }
            _ = try await auth.verifyIDToken(idToken)

            // Revocation, as the introspection endpoint says it.
            await expectAdminError(.missingIntrospectionClient) {
                try await auth.verifyAccessToken(accessToken, resource: resource, checkRevoked: true)
            }
            // (A wrong secret, answered 401 with `WWW-Authenticate: Basic`, is left to the unit tests: URLSession on
            // Linux, FlintAdmin's transport here, does not return from such an answer.)
            let resourceServer = try auth.introspecting(clientID: apiID, clientSecret: apiSecret)
            #expect(try await resourceServer.verifyAccessToken(accessToken, resource: resource, requiredScopes: ["email"],
                                                               checkRevoked: true).subject == uid)
            let revoked = try await Self.form(client, issuer + "/revoke", clientID: appID, secret: appSecret, [("token", accessToken)])
            #expect(revoked.status == 200, "\(revoked.body)")
            // The positive answer is kept for 30 seconds; then the revocation shows.
            _ = try await resourceServer.verifyAccessToken(accessToken, resource: resource, checkRevoked: true)
            server.clock.advance(seconds: 31)
            await expectRefusal(.accessTokenRevoked, "no longer active") {
                try await resourceServer.verifyAccessToken(accessToken, resource: resource, checkRevoked: true)
            }
            await expectRefusal(.accessTokenRevoked, "no longer active") {
                try await auth.introspecting(clientID: apiID, clientSecret: apiSecret, cacheLifetime: 0)
                    .verifyAccessToken(accessToken, resource: resource, checkRevoked: true)
            }
            // Without checkRevoked the token still verifies: it is signed, and its hour is not over.
            _ = try await auth.verifyAccessToken(accessToken, resource: resource)
        }
    }

    /// A tenant's provider is an issuer of its own: its tokens verify with the tenant's client only.
    @Test func aTenantsAccessTokensNameTheTenantsIssuer() async throws {
        try await LiveFlintTests.withProduction(.sqlite) { auth, server, _ in
            let tenantID = try #require(try await auth.createTenant(Tenant(displayName: "Acme", allowPasswordSignup: true)).tenantId)
            let tenant = auth.tenant(tenantID)
            _ = try await server.server.projects.updateSettings(server.projectID) {
                $0.oauthServer = OAuthServerSettings(signInPageURL: OAuthClientAdminTests.signInPage)
            }
            let app = try await tenant.createOAuthClient(OAuthClientAdminTests.confidentialClient())
            let (appID, appSecret) = (try #require(app.clientId), try #require(app.clientSecret))
            let issuer = server.baseURL.absoluteString + "/" + server.projectID + "/tenants/" + tenantID
            #expect(tenant.accessTokenIssuer == issuer)

            let query = FormURLEncoding.encode([
                ("response_type", "code"), ("client_id", appID), ("redirect_uri", OAuthClientAdminTests.redirectURI),
                ("scope", "openid email"), ("state", "s"), ("code_challenge", OAuthClientAdminTests.challenge),
                ("code_challenge_method", "S256"),
            ])
            let page = try await TestBrowser.get(try #require(URL(string: "\(issuer)/authorize?\(query)")))
            let location = try #require(page.location, "\(page.status) \(page.body)")
            let authorizationID = try #require(OAuthClientAdminTests.query(location.absoluteString)["authorization_id"], "\(location)")
            let tenantClient = TestClient(baseURL: server.baseURL, apiKey: server.apiKey)
            let signUp = try await tenantClient.post("/v1/accounts:signUp", [
                "email": "ada@example.com", "password": "secret-pass-1", "returnSecureToken": true, "tenantId": .string(tenantID),
            ])
            let idToken = try #require(signUp.string("idToken"), "\(signUp.body)")
            let redirect = try await tenant.approveOAuthAuthorization(authorizationID, idToken: idToken)
            let code = try #require(OAuthClientAdminTests.query(redirect)["code"], "\(redirect)")
            let tokens = try await Self.form(tenantClient, issuer + "/token", clientID: appID, secret: appSecret, [
                ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", OAuthClientAdminTests.redirectURI),
                ("code_verifier", OAuthClientAdminTests.verifier),
            ])
            let accessToken = try #require(tokens.string("access_token"), "\(tokens.body)")

            let verified = try await tenant.verifyAccessToken(accessToken, resource: issuer + "/userinfo", requiredScopes: ["openid"])
            #expect(verified.tenantID == tenantID && verified.issuer == issuer)
            await expectRefusal(.invalidAccessToken, "issuer") {
                try await auth.verifyAccessToken(accessToken, resource: issuer + "/userinfo")
            }
        }
    }

    /// A form POST to `url` with the client's credentials in a Basic header (RFC 6749 §2.3.1).
    static func form(_ client: TestClient, _ url: String, clientID: String, secret: String,
                     _ fields: [(String, String)]) async throws -> TestClient.Reply {
        let path = String(url.dropFirst(client.baseURL.absoluteString.count))
        let basic = Data((FormURLEncoding.escape(clientID) + ":" + FormURLEncoding.escape(secret)).utf8).base64EncodedString()
        return try await client.send("POST", path, body: Data(FormURLEncoding.encode(fields).utf8),
                                     headers: ["Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic " + basic],
                                     includeKey: false)
    }
}

/// Expects `body` to throw an `AccessTokenError` with `code` whose message contains `says`.
func expectRefusal<Value>(_ code: AccessTokenError.Code, _ says: String, sourceLocation: SourceLocation = #_sourceLocation,
                          _ body: () async throws -> Value) async {
    do {
        let value = try await body()
        Issue.record("expected \(code), got \(value)", sourceLocation: sourceLocation)
    } catch let error as AccessTokenError {
        #expect(error.code == code && error.message.contains(says), "\(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}
