import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// A user's consents to the OpenID provider's clients on the console's user page: listed, and revoked with the
/// session's anti-CSRF token, which withdraws the consent (and the client's tokens) as the v2 `oauthGrants` calls do.
extension ConsoleTests {
    @Test func aUsersConsentsAreListedAndRevokedOnTheUserPage() async throws {
        try await withConsole(emulator: false) { server, console in
            let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
            #expect(try await console.signIn(keyFile: keyFile, now: seconds(server)).location == "/console/users")
            let client = TestClient(server)
            let bearer = try keyFile.signedJWT(audience: "https://identitytoolkit.googleapis.com/", now: seconds(server))
            let created = try await client.post("/v2/projects/\(server.projectID)/oauthClients", [
                "displayName": "Dashboard", "redirectUris": ["http://127.0.0.1:4567/callback"],
            ], headers: ["Authorization": "Bearer \(bearer)"])
            let clientID = try #require(created.string("clientId"), "\(created.body)")
            // A consent, through the team's page.
            _ = try await server.server.projects.updateSettings(server.projectID) {
                $0.oauthServer = OAuthServerSettings(signInPageURL: "https://app.example/signin")
            }
            let start = try await CookieBrowser().send("GET", server.baseURL.absoluteString + "/\(server.projectID)/authorize?"
                + FormURLEncoding.encode([
                    ("response_type", "code"), ("client_id", clientID), ("redirect_uri", "http://127.0.0.1:4567/callback"),
                    ("scope", "openid email"), ("code_challenge", ProviderFixture.challenge), ("code_challenge_method", "S256"),
                ]))
            let authorizationID = try #require(start.query("authorization_id"), "\(start.headers)")
            let user = try await client.signUp(email: "ada@example.com", password: "secret-pass-1")
            let idToken = try #require(user.string("idToken"))
            let uid = try #require(user.string("localId"))
            let approved = try await client.post("/v2/oauth/authorizations:approve", [
                "authorizationId": .string(authorizationID), "idToken": .string(idToken),
            ])
            #expect(approved.status == 200, "\(approved.body)")

            let page = try await console.get("/console/users/\(uid)")
            #expect(page.body.contains("data-client=\"\(clientID)\"") && page.body.contains("Dashboard"), "\(page.body)")
            let token = try #require(page.csrfToken)
            let path = "/console/users/\(uid)/revoke-app"
            #expect(try await console.post(path, [("client-id", clientID)]).status == 403)
            #expect(try await client.post("/v2/accounts/oauthGrants:list", ["idToken": .string(idToken)])["grants"]?.arrayValue?.count == 1)
            let revoked = try await console.post(path, [("csrf", token), ("client-id", clientID)])
            #expect(revoked.status == 303 && revoked.location == "/console/users/\(uid)?notice=appRevoked", "\(revoked.body)")
            #expect(try await client.post("/v2/accounts/oauthGrants:list", ["idToken": .string(idToken)])["grants"] == [])
            #expect(!(try await console.get("/console/users/\(uid)")).body.contains("data-client=\"\(clientID)\""))
        }
    }
}
