import Crypto
@testable import FlintAuth
import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// `Auth`'s calls for the team's own sign-in page of Flint's OpenID provider, against a production server: what an
/// authorization asks, and its approval or refusal by the signed-in user.
@Suite struct OAuthAuthorizationTests {
    static let redirectURI = "http://127.0.0.1:4567/callback"
    static let signInPage = "https://app.example/signin"
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-verifier"
    static var challenge: String { Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8)))) }

    /// The team's own sign-in page set for the project (its tenants inherit it), and a confidential client registered
    /// through the admin API (under `tenant`'s path for a tenant's); returns the client's ID.
    static func registerClient(_ server: TestServer, tenant: String? = nil) async throws -> String {
        _ = try await server.server.projects.updateSettings(server.projectID) {
            $0.oauthServer = OAuthServerSettings(signInPageURL: signInPage)
        }
        let key = try await server.server.serviceAccounts.create(projectID: server.projectID)
        let bearer = try key.signedJWT(audience: "https://identitytoolkit.googleapis.com/", now: server.clock.seconds)
        let created = try await TestClient(server).post(
            "/v2/projects/\(server.projectID)" + (tenant.map { "/tenants/\($0)" } ?? "") + "/oauthClients", [
                "displayName": "Example App", "type": "CONFIDENTIAL", "redirectUris": [.string(redirectURI)],
                "ownerName": "Example Inc.",
            ], headers: ["Authorization": "Bearer \(bearer)"])
        #expect(created.status == 200, "\(created.body)")
        return try #require(created.string("clientId"), "\(created.body)")
    }

    /// A tenant made through the admin API; its ID.
    static func createTenant(_ server: TestServer) async throws -> String {
        let key = try await server.server.serviceAccounts.create(projectID: server.projectID)
        let bearer = try key.signedJWT(audience: "https://identitytoolkit.googleapis.com/", now: server.clock.seconds)
        let created = try await TestClient(server).post("/v2/projects/\(server.projectID)/tenants", [
            "displayName": "Acme", "allowPasswordSignup": true,
        ], headers: ["Authorization": "Bearer \(bearer)"])
        #expect(created.status == 200, "\(created.body)")
        return try #require(created.string("tenantId"), "\(created.body)")
    }

    /// GET `/authorize` as a browser would, redirects not followed: the `authorization_id` Flint sends the browser to the
    /// team's page with.
    static func startAuthorization(_ server: TestServer, clientID: String, tenant: String? = nil, scope: String = "openid email",
                                   state: String = "s") async throws -> String {
        let query = FormURLEncoding.encode([
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("scope", scope),
            ("state", state), ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ])
        let page = try await TestBrowser.get(try #require(URL(string: "\(server.baseURL.absoluteString)/\(Realm(projectID: server.projectID, tenantID: tenant).key)/authorize?\(query)")))
        #expect(page.status == 303, "\(page.status) \(page.body)")
        let location = try #require(page.location, "\(page.headers)")
        #expect(location.absoluteString.hasPrefix(signInPage + "?"), "\(location)")
        let items = URLComponents(url: location, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return try #require(items.first { $0.name == "authorization_id" }?.value, "\(location)")
    }

    static func query(_ url: URL) -> [String: String] {
        var fields: [String: String] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] { fields[item.name] = item.value ?? "" }
        return fields
    }

    @Test func theSignedInUserApprovesAndDenies() async throws {
        try await withHarness(emulator: false) { harness in
            let server = harness.server
            let clientID = try await Self.registerClient(server)
            let authorizationID = try await Self.startAuthorization(server, clientID: clientID, scope: "openid email profile")

            // The page shows the request before anyone signs in; deciding needs a user.
            let details = try await harness.auth.oauthAuthorization(authorizationID)
            #expect(details.authorizationId == authorizationID && details.clientId == clientID)
            #expect(details.clientName == "Example App" && details.ownerName == "Example Inc.")
            #expect(details.scopes == ["openid", "email", "profile"], "\(details.scopes)")
            await expectAuthError(.nullUser) { try await harness.auth.approveOAuthAuthorization(authorizationID) }
            await expectAuthError(.nullUser) { try await harness.auth.denyOAuthAuthorization(authorizationID) }

            _ = try await harness.auth.createUser(withEmail: Harness.email(), password: "secret-pass-1")
            let redirect = try await harness.auth.approveOAuthAuthorization(authorizationID)
            #expect(redirect.absoluteString.hasPrefix(Self.redirectURI + "?"), "\(redirect)")
            let fields = Self.query(redirect)
            #expect(fields["code"]?.isEmpty == false && fields["state"] == "s", "\(redirect)")
            #expect(fields["iss"] == server.baseURL.absoluteString + "/" + server.projectID, "\(redirect)")
            // Ended: the authorization is no more (the server's INVALID_AUTHORIZATION_ID, unknown to FirebaseAuth's table).
            let ended = await expectAuthError(.internalError) { try await harness.auth.oauthAuthorization(authorizationID) }
            let endedDetail = String(describing: ended?.userInfo ?? [:])
            #expect(endedDetail.contains("INVALID_AUTHORIZATION_ID"), "\(endedDetail)")
            await expectAuthError(.internalError) { try await harness.auth.approveOAuthAuthorization(authorizationID) }

            let refused = try await Self.startAuthorization(server, clientID: clientID, state: "t")
            let denied = try await harness.auth.denyOAuthAuthorization(refused)
            #expect(denied.absoluteString.hasPrefix(Self.redirectURI + "?"), "\(denied)")
            let deniedFields = Self.query(denied)
            #expect(deniedFields["error"] == "access_denied" && deniedFields["code"] == nil && deniedFields["state"] == "t", "\(denied)")

            // The approval was remembered: the user sees it, and withdraws it.
            let user = try #require(harness.auth.currentUser)
            let grants = try await user.oauthGrants()
            #expect(grants.map(\.clientId) == [clientID] && grants.first?.scopes == ["openid", "email", "profile"], "\(grants)")
            try await user.revokeOAuthGrant(clientID: clientID)
            #expect(try await user.oauthGrants().isEmpty)
        }
    }

    /// With `tenantID` set, the calls name the tenant: a tenant's client is approved by the tenant's user, and the
    /// project's `Auth` does not find the tenant's authorization.
    @Test func aTenantsUserApprovesItsClient() async throws {
        try await withHarness(emulator: false) { harness in
            let server = harness.server
            let tenantID = try await Self.createTenant(server)
            let clientID = try await Self.registerClient(server, tenant: tenantID)
            let authorizationID = try await Self.startAuthorization(server, clientID: clientID, tenant: tenantID)

            await expectAuthError(.internalError) { try await harness.auth.oauthAuthorization(authorizationID) }
            harness.auth.tenantID = tenantID
            #expect(try await harness.auth.oauthAuthorization(authorizationID).clientId == clientID)
            let user = try await harness.auth.createUser(withEmail: Harness.email(), password: "secret-pass-1").user
            #expect(user.tenantID == tenantID)
            let redirect = try await harness.auth.approveOAuthAuthorization(authorizationID)
            #expect(Self.query(redirect)["code"]?.isEmpty == false, "\(redirect)")
        }
    }
}
