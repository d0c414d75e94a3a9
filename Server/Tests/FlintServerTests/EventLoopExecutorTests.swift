import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// `flint serve` on each `FLINT_EXECUTOR` (see `EventLoopExecutor`): the default, Swift concurrency on NIO's event loops
/// with RS256 signatures on their own threads, and `swift`, Swift's own pool. Sign-ups, lookups, refreshes and
/// custom-token sign-ins are served many at once, each answer is checked, and the server stops cleanly.
@Suite struct EventLoopExecutorTests {
    @Test(arguments: ["event-loops", "swift"])
    func servesEveryKindOfRequest(executor: String) async throws {
        let flint = try FlintCLI()
        defer { flint.removeDataDirectory() }
        let (serve, url, serverPID) = try await flint.serve(
            ["--emulator", "--port", "0", "--management-port", "0"], variables: ["FLINT_EXECUTOR": executor])
        let client = TestClient(baseURL: url, apiKey: "fake-api-key").flooding(connections: 16)

        let sessions = try await withThrowingTaskGroup(of: (idToken: String, refreshToken: String, uid: String).self) { group in
            for _ in 0..<32 {
                group.addTask {
                    let reply = try await client.post("/v1/accounts:signUp", ["returnSecureToken": true])
                    return (try #require(reply.string("idToken"), "\(reply.body)"), try #require(reply.string("refreshToken")),
                            try #require(reply.string("localId")))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(sessions.map(\.uid)).count == 32)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for session in sessions {
                group.addTask {
                    let lookup = try await client.post("/v1/accounts:lookup", ["idToken": .string(session.idToken)])
                    #expect(lookup["users"]?.arrayValue?.first?["localId"]?.stringValue == session.uid, "\(lookup.body)")
                    let refreshed = try await client.post(
                        "/securetoken.googleapis.com/v1/token",
                        ["grant_type": "refresh_token", "refresh_token": .string(session.refreshToken)])
                    #expect(refreshed.string("user_id") == session.uid && refreshed.string("id_token") != nil, "\(refreshed.body)")
                    // The emulator takes unsigned custom tokens, as the official one does.
                    let custom = try await client.post("/v1/accounts:signInWithCustomToken", [
                        "token": .string(Self.unsignedCustomToken(uid: "custom-" + session.uid)), "returnSecureToken": true,
                    ])
                    #expect(custom.status == 200 && custom.string("idToken") != nil, "\(custom.body)")
                }
            }
            try await group.waitForAll()
        }

        kill(serverPID, SIGTERM)
        let stopped = await serve.finish()
        #expect(stopped.status == 0, "\(stopped.errors)")
    }

    static func unsignedCustomToken(uid: String) -> String {
        func segment(_ json: String) -> String { Base64URL.encode(Data(json.utf8)) }
        let now = Int(Date().timeIntervalSince1970)
        return segment(#"{"alg":"none","typ":"JWT"}"#) + "." + segment(
            #"{"aud":"https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit","# +
            #""iat":\#(now),"exp":\#(now + 3600),"iss":"x@example.com","sub":"x@example.com","uid":"\#(uid)"}"#) + "."
    }
}
