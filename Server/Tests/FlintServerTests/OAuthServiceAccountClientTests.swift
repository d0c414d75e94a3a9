@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// A service account (`flint service-accounts create`) as a client-credentials client with `private_key_jwt`: a token
/// for a resource whose `sub` is the account; its assertion used once; refused once its key is revoked, and its tokens
/// then inactive; a resource closed to it stays closed. (Authlib signs such assertions in `oauth_authlib_check.py`.)
@Suite struct OAuthServiceAccountClientTests {
    @Test(arguments: TestDatabase.allCases)
    func aServiceAccountGetsTokensForItselfUntilItsKeyIsRevoked(database: TestDatabase) async throws {
        try await ProviderFixture.with(database: database) { fixture in
            let project = fixture.server.projectID
            let resource = "https://jobs.example/api"
            let created = try await fixture.client.post("/v2/projects/\(project)/oauthResources", [
                "resource": .string(resource), "displayName": "Jobs", "scopes": ["jobs:run"],
            ], headers: fixture.admin)
            #expect(created.status == 200, "\(created.body)")
            let key = try await fixture.server.server.serviceAccounts.create(projectID: project)
            let (inspectorID, inspectorSecret) = try await fixture.register(["displayName": "Inspector", "type": "CONFIDENTIAL",
                                                                             "grantTypes": ["client_credentials"]])
            func assertion(_ jti: String) throws -> String {
                try key.signedJWT(audience: fixture.issuer + "/token", now: fixture.server.clock.seconds, lifetime: 300,
                                  claims: ["jti": .string(jti)])
            }
            func token(_ assertion: String, grant: String = "client_credentials") async throws -> CookieBrowser.Answer {
                try await CookieBrowser().send("POST", fixture.issuer + "/token", form: [
                    ("grant_type", grant), ("resource", resource), ("client_assertion", assertion),
                    ("client_assertion_type", ClientAssertions.assertionType),
                ])
            }
            func active(_ token: String) async throws -> JSONValue? {
                try await fixture.tokenCall([("token", token)], clientID: inspectorID, secret: inspectorSecret, endpoint: "/introspect")
                    .json["active"]
            }

            let first = try assertion("job-1")
            let issued = try await token(first)
            #expect(issued.status == 200 && issued.json["refresh_token"] == nil, "\(issued.body)")
            let access = try #require(issued.json["access_token"]?.stringValue)
            let claims = ProviderFixture.claims(access)
            #expect(claims["sub"]?.stringValue == key.client_email && claims["aud"]?.stringValue == resource
                        && claims["scope"] == "jobs:run", "\(claims)")
            #expect(try await active(access) == true)

            // The same assertion again, or one for a user's grant: refused.
            #expect(try await token(first).json["error"] == "invalid_client")
            #expect(try await token(try assertion("job-2"), grant: "authorization_code").json["error"] == "unauthorized_client")

            // A resource its admin closes to other clients is closed to the account.
            let resourceID = try #require(created.string("resourceId"))
            let closed = try await fixture.client.send(
                "PATCH", "/v2/projects/\(project)/oauthResources/\(resourceID)?updateMask=allowedClientIds",
                body: Data(#"{"allowedClientIds":["\#(inspectorID)"]}"#.utf8), headers: fixture.admin)
            #expect(closed.status == 200, "\(closed.body)")
            #expect(try await token(try assertion("job-3")).json["error"] == "invalid_target")

            // Revoked (as `flint service-accounts revoke` does): no more tokens, and the one it has is inactive.
            #expect(try await fixture.server.server.store.serviceAccounts.revokeServiceAccount(
                keyID: key.private_key_id, at: fixture.server.clock.seconds))
            #expect(try await token(try assertion("job-4")).json["error"] == "invalid_client")
            #expect(try await active(access) == false)
        }
    }
}
