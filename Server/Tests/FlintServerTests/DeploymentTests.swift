import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Restarts, several nodes on one database, emulator endpoints, CORS.
@Suite struct DeploymentTests {
    @Test(arguments: TestDatabase.allCases)
    func usersAndSessionsSurviveARestart(database: TestDatabase) async throws {
        let scratch = try await ScratchDatabase.make(database)
        let first = try await TestServer.start(database: database, sharing: scratch)
        let signUp = try await TestClient(first).signUp(email: "keep@example.com", password: "secret123")
        try await first.stop()

        let second = try await TestServer.start(database: database, sharing: scratch)
        let client = TestClient(second)
        #expect(try await client.post("/v1/accounts:signInWithPassword", ["email": "keep@example.com", "password": "secret123"]).status == 200)
        #expect(try await client.refresh(signUp.string("refreshToken")).status == 200)
        #expect(try await client.lookup(idToken: signUp.string("idToken")).status == 200)
        try await second.stop()
        try await scratch.drop()
    }

    /// Each node tallies usage in memory and adds it to the shared store; a restart keeps what was counted.
    @Test(arguments: TestDatabase.allCases)
    func usageCountsOfSeveralNodesAddUp(database: TestDatabase) async throws {
        let scratch = try await ScratchDatabase.make(database)
        let nodeA = try await TestServer.start(database: database, sharing: scratch)
        let nodeB = try await TestServer.start(database: database, sharing: scratch)
        for _ in 0..<3 { _ = try await TestClient(nodeA).signUp() }
        for _ in 0..<2 { _ = try await TestClient(nodeB).signUp() }
        await nodeB.server.usage.flush()
        #expect(try await nodeA.server.usage.daily(projectID: nodeA.projectID, days: 1).first?.total(.signIns) == 5)
        // Counted on B after its flush: saved when B stops.
        _ = try await TestClient(nodeB).signUp()
        try await nodeB.stop()
        #expect(try await nodeA.server.usage.daily(projectID: nodeA.projectID, days: 1).first?.total(.signIns) == 6)
        try await nodeA.stop()
        try await scratch.drop()
    }

    @Test func twoNodesOnOnePostgresShareUsersAndKeys() async throws {
        let scratch = try await ScratchDatabase.make(.postgres)
        // Nodes behind one load balancer share the public URL, hence the token issuer.
        let publicURL = "https://auth.example.test"
        let nodeA = try await TestServer.start(emulator: false, database: .postgres, sharing: scratch, publicURL: publicURL)
        let nodeB = try await TestServer.start(emulator: false, database: .postgres, sharing: scratch, publicURL: publicURL)
        let clientA = TestClient(nodeA)
        let clientB = TestClient(baseURL: nodeB.baseURL, apiKey: nodeA.apiKey)

        let signUp = try await clientA.signUp(email: "shared@example.com", password: "secret123")
        #expect(try await clientB.post("/v1/accounts:signInWithPassword", ["email": "shared@example.com", "password": "secret123"]).status == 200)
        #expect(try await clientB.lookup(idToken: signUp.string("idToken")).status == 200)
        #expect(try await clientB.refresh(signUp.string("refreshToken")).status == 200)
        let duplicate = try await clientB.post("/v1/accounts:signUp", ["email": "shared@example.com", "password": "other123"])
        #expect(duplicate.errorMessage == "EMAIL_EXISTS")

        // A key added by node A is picked up by node B when it meets a token signed with it.
        nodeB.clock.advance(seconds: 10)
        _ = try await nodeA.server.keyring.rotate()
        let afterRotation = try await clientA.signUp()
        let crossNode = try await clientB.lookup(idToken: afterRotation.string("idToken"))
        #expect(crossNode.status == 200, "\(crossNode.body)")
        try await nodeA.stop()
        try await nodeB.stop()
        try await scratch.drop()
    }

    /// Config changes are compare-and-swap: concurrent PATCHes of different fields, sent to two nodes, all
    /// survive; and a change made on one node holds on the other from its next request, not seconds later.
    /// After a key rotation on one node, both sign with the new key and publish the same key set at once.
    @Test(arguments: TestDatabase.allCases)
    func configAndKeysHoldOnEveryNodeAtOnce(database: TestDatabase) async throws {
        let scratch = try await ScratchDatabase.make(database)
        let nodeA = try await TestServer.start(database: database, sharing: scratch)
        let nodeB = try await TestServer.start(database: database, sharing: scratch, clock: nodeA.clock)
        let nodes = [TestClient(nodeA), TestClient(nodeB)]
        let config = "/v2/projects/\(nodeA.projectID)/config"
        func patch(_ node: TestClient, mask: String, _ body: [String: JSONValue]) async throws {
            let reply = try await node.send("PATCH", config + "?updateMask=" + mask, body: try JSONEncoder().encode(JSONValue.object(body)),
                                            headers: ["Authorization": "Bearer owner", "Content-Type": "application/json"])
            #expect(reply.status == 200, "\(reply.body)")
        }
        for round in 0..<5 {
            let domains: [JSONValue] = ["localhost", .string("round\(round).example.com")]
            let numbers: [String: JSONValue] = ["+1555555\(String(format: "%04d", round))": "123456"]
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await patch(nodes[0], mask: "authorizedDomains", ["authorizedDomains": .array(domains)]) }
                group.addTask {
                    try await patch(nodes[1], mask: "signIn.phoneNumber.testPhoneNumbers",
                                    ["signIn": ["phoneNumber": ["testPhoneNumbers": .object(numbers)]]])
                }
                group.addTask {
                    try await patch(nodes[round % 2], mask: "signIn.anonymous.enabled",
                                    ["signIn": ["anonymous": ["enabled": .bool(round % 2 == 0)]]])
                }
                try await group.waitForAll()
            }
            for node in nodes {
                let read = try await node.send("GET", config, headers: ["Authorization": "Bearer owner"])
                #expect(read["authorizedDomains"] == .array(domains), "round \(round): a concurrent change was lost")
                #expect(read["signIn"]?["phoneNumber"]?["testPhoneNumbers"] == .object(numbers), "round \(round)")
                // The setting is in force on both nodes at once.
                let anonymous = try await node.post("/v1/accounts:signUp", ["returnSecureToken": true])
                #expect((anonymous.status == 200) == (round % 2 == 0), "round \(round): \(anonymous.body)")
            }
        }

        let rotated = try await nodeA.server.keyring.rotate()
        for node in nodes {
            let jwks = try await node.send("GET", "/.well-known/jwks.json", includeKey: false)
            #expect(jwks["keys"]?.arrayValue?.compactMap { $0["kid"]?.stringValue }.contains(rotated) == true)
        }
        try await patch(nodes[1], mask: "signIn.anonymous.enabled", ["signIn": ["anonymous": ["enabled": true]]])
        let signedOnB = try await nodes[1].signUp()
        let header = try #require(signedOnB.string("idToken")?.split(separator: ".").first.flatMap { Base64URL.decode($0) })
        #expect(try JSONDecoder().decode(JSONValue.self, from: header)["kid"] == .string(rotated))
        try await nodeB.stop()
        try await nodeA.stop()
        try await scratch.drop()
    }

    @Test func emulatorEndpoints() async throws {
        try await withServer { server, client in
            let ready = try await client.send("GET", "/", includeKey: false)
            #expect(ready["authEmulator"]?.objectValue?["ready"] == .bool(true))

            _ = try await client.signUp(email: "gone@example.com", password: "secret123")
            let config = try await client.send("GET", "/emulator/v1/projects/\(server.projectID)/config", includeKey: false)
            #expect(config["emailPrivacyConfig"]?.objectValue?["enableImprovedEmailPrivacy"] == .bool(false))
            let patched = try await client.send(
                "PATCH", "/emulator/v1/projects/\(server.projectID)/config",
                body: Data(#"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":true}}"#.utf8), includeKey: false)
            #expect(patched["emailPrivacyConfig"]?.objectValue?["enableImprovedEmailPrivacy"] == .bool(true))
            let hidden = try await client.post("/v1/accounts:signInWithPassword", ["email": "nobody@example.com", "password": "secret123"])
            #expect(hidden.errorMessage == "INVALID_LOGIN_CREDENTIALS")

            let wiped = try await client.send("DELETE", "/emulator/v1/projects/\(server.projectID)/accounts", includeKey: false)
            #expect(wiped.status == 200)
            let signIn = try await client.post("/v1/accounts:signInWithPassword", ["email": "gone@example.com", "password": "secret123"])
            #expect(signIn.errorMessage == "INVALID_LOGIN_CREDENTIALS")

            // Any project id in a path is served in emulator mode.
            let other = try await client.send("GET", "/emulator/v1/projects/another-project/config", includeKey: false)
            #expect(other.status == 200)
        }
    }

    @Test func productionHasNoEmulatorBackdoors() async throws {
        try await withServer(emulator: false) { server, client in
            let wipe = try await client.send("DELETE", "/emulator/v1/projects/\(server.projectID)/accounts", includeKey: false)
            #expect(wipe.status == 404)
        }
    }

    @Test func corsPreflightAndHeaders() async throws {
        try await withServer { _, client in
            let preflight = try await client.send("OPTIONS", "/v1/accounts:signUp", headers: [
                "Origin": "http://app.example", "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type,x-client-version",
                "Access-Control-Request-Private-Network": "true",
            ])
            #expect(preflight.status == 204)
            #expect(preflight.headers["access-control-allow-origin"] == "http://app.example")
            #expect(preflight.headers["access-control-allow-headers"] == "content-type,x-client-version")
            #expect(preflight.headers["access-control-allow-private-network"] == "true")
            let reply = try await client.post("/v1/accounts:signUp", [:], headers: ["Origin": "http://app.example"])
            #expect(reply.headers["access-control-allow-origin"] == "http://app.example")
            let error = try await client.post("/v1/accounts:lookup", [:], headers: ["Origin": "http://app.example"])
            #expect(error.status == 400 && error.headers["access-control-allow-origin"] == "http://app.example")
        }
    }
}
