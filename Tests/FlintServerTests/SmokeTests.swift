import FlintTestSupport
import FlintWire
import Testing

@Suite struct SmokeTests {
    @Test(arguments: TestDatabase.allCases)
    func signUpAndLookUp(database: TestDatabase) async throws {
        let server = try await TestServer.start(database: database)
        let client = TestClient(server)
        let signUp = try await client.post("/v1/accounts:signUp", ["returnSecureToken": .bool(true)])
        #expect(signUp.status == 200)
        let lookup = try await client.post("/v1/accounts:lookup", ["idToken": signUp["idToken"] ?? .null])
        #expect(lookup.status == 200)
        try await server.stop()
    }
}
