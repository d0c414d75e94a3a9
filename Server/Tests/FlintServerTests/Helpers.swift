import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Runs `body` against a fresh server (its configuration changed by `configure`) and always stops it.
func withServer(emulator: Bool = true, database: TestDatabase = .sqlite, clock: TestClock = TestClock(),
                configure: (inout ServerConfiguration) -> Void = { _ in },
                _ body: (TestServer, TestClient) async throws -> Void) async throws {
    let server = try await TestServer.start(emulator: emulator, database: database, clock: clock, configure: configure)
    do {
        try await body(server, TestClient(server))
    } catch {
        try? await server.stop()
        throw error
    }
    try await server.stop()
}

/// Runs `body` against two nodes (sharing one clock) on one fresh database, PostgreSQL unless told, and stops them.
func withTwoNodes(emulator: Bool = true, database: TestDatabase = .postgres,
                  _ body: (TestServer, [TestClient]) async throws -> Void) async throws {
    let first = try await TestServer.start(emulator: emulator, database: database)
    let second = try await TestServer.start(emulator: emulator, sharing: first.database, clock: first.clock)
    do {
        try await body(first, [TestClient(first), TestClient(second)])
        try await second.stop()
        try await first.stop()
    } catch {
        try? await second.stop()
        try? await first.stop()
        throw error
    }
}

extension TestClient {
    /// Signs up with email and password (or anonymously) and returns the reply, expecting success.
    func signUp(email: String? = nil, password: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Reply {
        var body: [String: JSONValue] = ["returnSecureToken": .bool(true)]
        if let email { body["email"] = .string(email) }
        if let password { body["password"] = .string(password) }
        let reply = try await post("/v1/accounts:signUp", body)
        #expect(reply.status == 200, "sign-up failed: \(reply.body)", sourceLocation: sourceLocation)
        return reply
    }

    func lookup(idToken: String?) async throws -> Reply {
        try await post("/v1/accounts:lookup", ["idToken": idToken.map(JSONValue.string) ?? .null])
    }

    func refresh(_ refreshToken: String?) async throws -> Reply {
        try await post("/securetoken.googleapis.com/v1/token", [
            "grant_type": .string("refresh_token"), "refresh_token": refreshToken.map(JSONValue.string) ?? .null,
        ])
    }

    /// Admin call with the emulator's `Bearer owner`.
    func admin(_ path: String, _ body: [String: JSONValue]) async throws -> Reply {
        try await post(path, body, headers: ["Authorization": "Bearer owner"])
    }
}

extension TestClient.Reply {
    /// The error code before any ` : detail`.
    var errorCode: String? {
        errorMessage.map { message in
            String(message.split(separator: ":", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces)
        }
    }

    var firstUser: [String: JSONValue]? { self["users"]?.arrayValue?.first?.objectValue }
}

extension JSONValue {
    /// A member of an object (nil for other values).
    subscript(key: String) -> JSONValue? { objectValue?[key] }

}

/// The claims of a JWT, decoded without verification (tests verify separately).
func claims(of token: String?) -> [String: JSONValue] {
    guard let token else { return [:] }
    let parts = token.split(separator: ".")
    guard parts.count >= 2, let data = Base64URL.decode(parts[1]),
          case .object(let claims)? = try? JSONDecoder().decode(JSONValue.self, from: data)
    else { return [:] }
    return claims
}
