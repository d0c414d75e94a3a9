import Crypto
import FlintAdmin
import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// FlintAdmin's calls of Flint's OpenID provider against a live production server: the clients' admin API
/// (`v2/projects/{p}[/tenants/{t}]/oauthClients`), and the server side of the team's own sign-in page
/// (`v2/oauth/authorizations:get|approve|deny`) with the admin credential.
@Suite struct OAuthClientAdminTests {
    static let redirectURI = "http://127.0.0.1:4567/callback"
    static let signInPage = "https://app.example/signin"
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-verifier"
    static var challenge: String { Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8)))) }

    static func confidentialClient(_ name: String = "Example App") -> OAuthClient {
        OAuthClient(displayName: name, type: OAuthClient.confidential, redirectUris: [redirectURI], ownerName: "Example Inc.")
    }

    @Test func aClientsLifeThroughTheAdminSDK() async throws {
        try await LiveFlintTests.withProduction(.sqlite) { auth, server, _ in
            // Created: the secret is shown in this answer only.
            let created = try await auth.createOAuthClient(Self.confidentialClient())
            let clientID = try #require(created.clientId)
            let secret = try #require(created.clientSecret)
            #expect(!secret.isEmpty)
            #expect(created.name == "projects/\(server.projectID)/oauthClients/\(clientID)")
            #expect(created.displayName == "Example App" && created.type == OAuthClient.confidential)
            #expect(created.redirectUris == [Self.redirectURI] && created.createTime != nil)

            let fetched = try await auth.oauthClient(clientID)
            #expect(fetched.clientId == clientID && fetched.displayName == "Example App" && fetched.clientSecret == nil)

            let second = try await auth.createOAuthClient(OAuthClient(
                displayName: "Native App", type: OAuthClient.public, redirectUris: ["http://127.0.0.1/native"]))
            #expect(second.clientSecret == nil && second.tokenEndpointAuthMethod == "none")
            var listed: [[String]] = []
            for try await page in auth.listOAuthClients(pageSize: 1) { listed.append(page.compactMap(\.clientId)) }
            #expect(Set(listed.joined()) == [clientID, try #require(second.clientId)], "\(listed)")
            #expect(listed.allSatisfy { $0.count <= 1 })
            var all: [OAuthClient] = []
            for try await page in auth.listOAuthClients() { all += page }
            #expect(all.count == 2 && all.allSatisfy { $0.clientSecret == nil })

            // The mask names what changes: a named field left nil is cleared, an unnamed one set is not applied.
            let updated = try await auth.updateOAuthClient(clientID, OAuthClient(displayName: "Renamed", logoUri: "https://app.example/logo.png"),
                                                           updateMask: ["displayName", "ownerName"])
            #expect(updated.displayName == "Renamed" && updated.ownerName == nil && updated.logoUri == nil)
            #expect(updated.redirectUris == [Self.redirectURI] && updated.clientSecret == nil)
            // Without a mask, the fields the change sets.
            let relogoed = try await auth.updateOAuthClient(clientID, OAuthClient(logoUri: "https://app.example/logo.png"))
            #expect(relogoed.displayName == "Renamed" && relogoed.logoUri == "https://app.example/logo.png")
            #expect(try await auth.oauthClient(clientID).displayName == "Renamed")
            await expectAdminError(.invalidOAuthClient) {
                try await auth.updateOAuthClient(clientID, OAuthClient(type: OAuthClient.public), updateMask: ["type"])
            }

            let rotated = try await auth.rotateOAuthClientSecret(clientID)
            let newSecret = try #require(rotated.clientSecret)
            #expect(newSecret != secret && rotated.clientId == clientID)
            #expect(try await auth.oauthClient(clientID).clientSecret == nil)
            await expectAdminError(.invalidOAuthClient) { try await auth.rotateOAuthClientSecret(try #require(second.clientId)) }

            try await auth.deleteOAuthClient(clientID)
            await expectAdminError(.oauthClientNotFound) { try await auth.oauthClient(clientID) }
            await expectAdminError(.oauthClientNotFound) { try await auth.deleteOAuthClient(clientID) }
            await expectAdminError(.oauthClientNotFound) { try await auth.rotateOAuthClientSecret(clientID) }
            await expectAdminError(.oauthClientNotFound) { try await auth.updateOAuthClient(clientID, OAuthClient(displayName: "x")) }

            // Arguments are checked before anything is sent.
            await expectAdminError(.invalidArgument) { try await auth.oauthClient("") }
            await expectAdminError(.invalidArgument) { try await auth.deleteOAuthClient("") }
            await expectAdminError(.invalidArgument) { try await auth.rotateOAuthClientSecret("") }
            await expectAdminError(.invalidArgument) { try await auth.updateOAuthClient("", OAuthClient(displayName: "x")) }
            await expectAdminError(.invalidArgument) { for try await _ in auth.listOAuthClients(pageSize: 0) {} }
            await expectAdminError(.invalidArgument) { for try await _ in auth.listOAuthClients(pageSize: 101) {} }
            await expectAdminError(.invalidArgument) { try await auth.oauthAuthorization("") }
            await expectAdminError(.invalidArgument) { try await auth.approveOAuthAuthorization("", idToken: "t") }
            await expectAdminError(.invalidIDToken) { try await auth.denyOAuthAuthorization("a", idToken: "") }
        }
    }

    /// A tenant's clients are the tenant's: named under it, and neither seen nor reached from the project.
    @Test func aTenantsClientsAreItsOwn() async throws {
        try await LiveFlintTests.withProduction(.sqlite) { auth, server, _ in
            let tenantID = try #require(try await auth.createTenant(Tenant(displayName: "Acme", allowPasswordSignup: true)).tenantId)
            let tenant = auth.tenant(tenantID)
            let created = try await tenant.createOAuthClient(Self.confidentialClient())
            let clientID = try #require(created.clientId)
            #expect(created.name == "projects/\(server.projectID)/tenants/\(tenantID)/oauthClients/\(clientID)")
            #expect(try await tenant.oauthClient(clientID).clientId == clientID)
            await expectAdminError(.oauthClientNotFound) { try await auth.oauthClient(clientID) }
            var projectClients: [OAuthClient] = []
            for try await page in auth.listOAuthClients() { projectClients += page }
            #expect(projectClients.isEmpty)
            var tenantClients: [OAuthClient] = []
            for try await page in tenant.listOAuthClients() { tenantClients += page }
            #expect(tenantClients.map(\.clientId) == [clientID])
            try await tenant.deleteOAuthClient(clientID)
            await expectAdminError(.oauthClientNotFound) { try await tenant.oauthClient(clientID) }
        }
    }

    /// Starts an authorization of `clientID` as a browser would, with the project's own sign-in page set: returns the
    /// `authorization_id` Flint sends the browser there with.
    static func startAuthorization(_ server: TestServer, clientID: String, state: String = "s") async throws -> String {
        let query = FormURLEncoding.encode([
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("scope", "openid email"),
            ("state", state), ("code_challenge", challenge), ("code_challenge_method", "S256"),
        ])
        let page = try await TestBrowser.get(try #require(URL(string: "\(server.baseURL.absoluteString)/\(server.projectID)/authorize?\(query)")))
        #expect(page.status == 303, "\(page.status) \(page.body)")
        let location = try #require(page.location, "\(page.headers)")
        #expect(location.absoluteString.hasPrefix(signInPage + "?"), "\(location)")
        let items = URLComponents(url: location, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return try #require(items.first { $0.name == "authorization_id" }?.value, "\(location)")
    }

    static func useTeamsSignInPage(_ server: TestServer) async throws {
        _ = try await server.server.projects.updateSettings(server.projectID) {
            $0.oauthServer = OAuthServerSettings(signInPageURL: signInPage)
        }
    }

    static func signUp(_ client: TestClient, email: String) async throws -> String {
        let reply = try await client.post("/v1/accounts:signUp", [
            "email": .string(email), "password": "secret-pass-1", "returnSecureToken": true,
        ])
        return try #require(reply.string("idToken"), "\(reply.body)")
    }

    static func query(_ url: String) -> [String: String] {
        var fields: [String: String] = [:]
        for item in URLComponents(string: url)?.queryItems ?? [] { fields[item.name] = item.value ?? "" }
        return fields
    }

    /// The team's own sign-in page, server side, with FlintAdmin: what the authorization asks, then its approval
    /// (the client's redirect URI with a code and the issuer) or its refusal.
    @Test func theTeamsPageApprovesAndDeniesWithTheAdminCredential() async throws {
        try await LiveFlintTests.withProduction(.sqlite) { auth, server, client in
            try await Self.useTeamsSignInPage(server)
            let clientID = try #require(try await auth.createOAuthClient(Self.confidentialClient()).clientId)

            let authorizationID = try await Self.startAuthorization(server, clientID: clientID)
            let details = try await auth.oauthAuthorization(authorizationID)
            #expect(details.authorizationId == authorizationID && details.clientId == clientID)
            #expect(details.clientName == "Example App" && details.ownerName == "Example Inc.")
            #expect(details.scopes == ["openid", "email"], "\(details.scopes)")

            let idToken = try await Self.signUp(client, email: "ada@example.com")
            let redirect = try await auth.approveOAuthAuthorization(authorizationID, idToken: idToken)
            #expect(redirect.hasPrefix(Self.redirectURI + "?"), "\(redirect)")
            let fields = Self.query(redirect)
            #expect(fields["code"]?.isEmpty == false && fields["state"] == "s", "\(redirect)")
            #expect(fields["iss"] == server.baseURL.absoluteString + "/" + server.projectID, "\(redirect)")
            // The authorization is over.
            await expectAdminError(.invalidAuthorizationID) { try await auth.oauthAuthorization(authorizationID) }
            await expectAdminError(.invalidAuthorizationID) {
                try await auth.approveOAuthAuthorization(authorizationID, idToken: idToken)
            }

            let refused = try await Self.startAuthorization(server, clientID: clientID, state: "t")
            let denied = try await auth.denyOAuthAuthorization(refused, idToken: idToken)
            #expect(denied.hasPrefix(Self.redirectURI + "?"), "\(denied)")
            let deniedFields = Self.query(denied)
            #expect(deniedFields["error"] == "access_denied" && deniedFields["code"] == nil && deniedFields["state"] == "t", "\(denied)")
            await expectAdminError(.invalidAuthorizationID) { try await auth.oauthAuthorization("no-such-authorization") }

            // The approval left a consent, which an admin sees and withdraws.
            let uid = try #require(Self.claims(idToken)["user_id"]?.stringValue)
            let grants = try await auth.oauthGrants(uid: uid)
            #expect(grants.map(\.clientId) == [clientID] && grants.first?.clientName == "Example App", "\(grants)")
            try await auth.revokeOAuthGrant(uid: uid, clientID: clientID)
            #expect(try await auth.oauthGrants(uid: uid).isEmpty)
            await expectAdminError(.oauthClientNotFound) { try await auth.revokeOAuthGrant(uid: uid, clientID: clientID) }
        }
    }

    /// A JWT's claims, unverified.
    static func claims(_ token: String) -> [String: JSONValue] {
        let parts = token.split(separator: ".")
        guard parts.count == 3, let data = Base64URL.decode(parts[1]) else { return [:] }
        return (try? JSONDecoder().decode(JSONValue.self, from: data))?.objectValue ?? [:]
    }
}
