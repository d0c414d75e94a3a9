@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The suite-wide check that no audit event holds a secret a test used (`TestSecrets`, run by `TestServer.stop`)
/// finds one when there is one: the tokens a client was given, the password it sent.
@Suite struct AuditSecretsScanTests {
    @Test func aSecretInAnEventFailsTheServersStop() async throws {
        let server = try await TestServer.start()
        let client = TestClient(server)
        let password = "scan-me-\(UUID().uuidString)"
        let signUp = try await client.signUp(email: "ada@example.com", password: password)
        let refreshToken = try #require(signUp.string("refreshToken"))
        #expect(try await TestSecrets.leaks(in: server.server.store, server: "127.0.0.1:\(server.port)").isEmpty)

        // Events written as a careless writer would: a secret as a whole value, and one inside a longer text.
        try await server.server.store.audit.append(
            AuditEntry(.configChanged, realm: server.projectID, detail: ["reason": "token=\(refreshToken)"], scope: nil))
        try await server.server.store.audit.append(
            AuditEntry(.profileChanged, realm: server.projectID, localID: password, scope: nil))
        let leaks = try await TestSecrets.leaks(in: server.server.store, server: "127.0.0.1:\(server.port)")
        #expect(leaks.count == 2 && !leaks.joined().contains(password), "\(leaks)")
        await #expect(throws: TestSupportError.self) { try await server.stop() }
    }
}
