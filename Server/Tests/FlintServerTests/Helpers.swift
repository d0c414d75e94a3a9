import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Runs `body` against two nodes (sharing one clock) on one fresh database, PostgreSQL unless told, and stops them.
func withTwoNodes(emulator: Bool = true, database: TestDatabase = .postgres,
                  _ body: (TestServer, [TestClient]) async throws -> Void) async throws {
    try await withServer(emulator: emulator, database: database) { first, firstClient in
        try await withServer(emulator: emulator, sharing: first.database, clock: first.clock) { _, secondClient in
            try await body(first, [firstClient, secondClient])
        }
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

/// The Python scripts of `Tests/python`, run as a client nobody here wrote would be.
enum PythonScripts {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("python")

    /// Runs a script with `environment` and expects it to exit 0 (its output is the failure's detail).
    static func expectSuccess(_ script: String, _ environment: [String: String],
                              sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let process = try ChildProcess.launch(
            "python3", [folder.appendingPathComponent(script).path],
            environment: ChildProcess.environment.merging(environment) { $1 }, errors: .standardOutput)
        let result = await process.finish()
        #expect(result.status == 0, "\(result.output)", sourceLocation: sourceLocation)
    }

    /// A service-account key file of `server`'s project, written for the script and removed after `body`.
    static func withKeyFile(of server: TestServer, _ body: (String) async throws -> Void) async throws {
        let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("flint-key-\(UUID().uuidString).json")
        try JSONEncoder().encode(keyFile).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        try await body(path.path)
    }
}
