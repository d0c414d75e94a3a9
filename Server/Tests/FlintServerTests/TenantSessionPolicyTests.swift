import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// A tenant's own session policy (the v2 tenant's `sessionPolicy`): set at create and by PATCH, checked as the project's
/// is, shown by GET as the tenant's own; in force for the tenant's sessions (refresh and list) where the project has
/// none, and a tenant without its own has its project's.
@Suite struct TenantSessionPolicyTests {
    static let owner = ["Authorization": "Bearer owner"]

    static func tenants(_ server: TestServer) -> String { "/v2/projects/\(server.projectID)/tenants" }

    /// A tenant with password sign-up on and `fields`; its ID.
    static func create(_ client: TestClient, _ server: TestServer, _ fields: [String: JSONValue] = [:]) async throws -> String {
        let created = try await client.post(tenants(server), fields.merging(["allowPasswordSignup": true]) { $1 }, headers: owner)
        #expect(created.status == 200, "\(created.body)")
        return try #require(created.string("tenantId"))
    }

    /// A new user of the tenant (of the project with nil), signed up with a session: its ID and refresh token.
    static func signUp(_ client: TestClient, email: String, tenant: String?) async throws -> (localID: String, refreshToken: String) {
        var body: [String: JSONValue] = ["email": .string(email), "password": "secret-pass-1", "returnSecureToken": true]
        body["tenantId"] = tenant.map(JSONValue.string)
        let reply = try await client.post("/v1/accounts:signUp", body)
        #expect(reply.status == 200, "\(reply.body)")
        return (try #require(reply.string("localId")), try #require(reply.string("refreshToken")))
    }

    static func sessions(_ client: TestClient, _ server: TestServer, tenant: String, localID: String) async throws -> [JSONValue] {
        let listed = try await client.send("GET", "\(tenants(server))/\(tenant)/accounts/\(localID)/sessions", headers: owner)
        #expect(listed.status == 200, "\(listed.body)")
        return listed["sessions"]?.arrayValue ?? []
    }

    @Test(arguments: TestDatabase.allCases)
    func aTenantsOwnIdleTimeoutEndsItsSessionsAndNotTheProjects(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let strict = try await Self.create(client, server, ["sessionPolicy": ["idleTimeoutSeconds": 3600]])
            let shown = try await client.send("GET", "\(Self.tenants(server))/\(strict)", headers: Self.owner)
            #expect(shown["sessionPolicy"] == ["idleTimeoutSeconds": 3600], "\(shown.body)")
            let tenantUser = try await Self.signUp(client, email: "tenant@example.com", tenant: strict)
            let projectUser = try await Self.signUp(client, email: "project@example.com", tenant: nil)
            #expect(try await Self.sessions(client, server, tenant: strict, localID: tenantUser.localID).count == 1)

            // Unused for two hours: past the hour of idle time and the hour its last use is known to.
            server.clock.advance(seconds: 2 * 3600 + 1)
            #expect(try await client.refresh(tenantUser.refreshToken).errorCode == "TOKEN_EXPIRED")
            #expect(try await Self.sessions(client, server, tenant: strict, localID: tenantUser.localID) == [])
            #expect(try await client.refresh(projectUser.refreshToken).status == 200, "the project has no policy")
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func aTenantWithoutItsOwnHasItsProjects(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let configured = try await client.send("PATCH", "/v2/projects/\(server.projectID)/config?updateMask=sessionPolicy",
                                                   body: Data(#"{"sessionPolicy":{"maximumLifetimeSeconds":600}}"#.utf8),
                                                   headers: Self.owner)
            #expect(configured.status == 200, "\(configured.body)")
            let plain = try await Self.create(client, server)
            let shown = try await client.send("GET", "\(Self.tenants(server))/\(plain)", headers: Self.owner)
            #expect(shown.status == 200 && shown["sessionPolicy"] == nil, "its own is none: \(shown.body)")
            let user = try await Self.signUp(client, email: "tenant@example.com", tenant: plain)

            server.clock.advance(seconds: 300)
            #expect(try await client.refresh(user.refreshToken).status == 200)
            server.clock.advance(seconds: 301)
            #expect(try await client.refresh(user.refreshToken).errorCode == "TOKEN_EXPIRED", "past the project's lifetime")
            #expect(try await Self.sessions(client, server, tenant: plain, localID: user.localID) == [])
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func aPatchSetsChecksAndClearsTheTenantsOwn(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let tenant = try await Self.create(client, server)
            let path = "\(Self.tenants(server))/\(tenant)"
            func patch(_ mask: String, _ body: String) async throws -> TestClient.Reply {
                try await client.send("PATCH", "\(path)?updateMask=\(mask)", body: Data(body.utf8), headers: Self.owner)
            }
            let set = try await patch("sessionPolicy", #"{"sessionPolicy":{"idleTimeoutSeconds":7200,"maximumLifetimeSeconds":86400}}"#)
            #expect(set.status == 200 && set["sessionPolicy"] == ["idleTimeoutSeconds": 7200, "maximumLifetimeSeconds": 86400],
                    "\(set.body)")

            let tooShort = try await patch("sessionPolicy", #"{"sessionPolicy":{"idleTimeoutSeconds":60}}"#)
            #expect(tooShort.status == 400 && tooShort.errorCode == "INVALID_ARGUMENT", "\(tooShort.body)")
            let unchanged = try await client.send("GET", path, headers: Self.owner)
            #expect(unchanged.body == set.body, "the refused PATCH changed nothing")

            // One field by its path (as FlintAdmin's `updateTenant` names them), the other kept.
            let idle = try await patch("sessionPolicy.idleTimeoutSeconds", #"{"sessionPolicy":{"idleTimeoutSeconds":3600}}"#)
            #expect(idle["sessionPolicy"] == ["idleTimeoutSeconds": 3600, "maximumLifetimeSeconds": 86400], "\(idle.body)")
            // Another field's PATCH keeps it.
            #expect(try await patch("displayName", #"{"displayName":"Renamed"}"#)["sessionPolicy"] == idle["sessionPolicy"])

            let cleared = try await patch("sessionPolicy", "{}")
            #expect(cleared.status == 200 && cleared["sessionPolicy"] == nil, "\(cleared.body)")
            #expect(try await client.send("GET", path, headers: Self.owner)["sessionPolicy"] == nil)
        }
    }
}
