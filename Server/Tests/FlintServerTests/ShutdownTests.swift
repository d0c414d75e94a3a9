import FlintServer
import FlintTestSupport
import Foundation
import Testing

/// A graceful shutdown waits for open requests, but not for ever: one that never ends (a client that stops halfway
/// through its body, a query caught in a database restart) is cut off after the grace period, and the server stops.
@Suite struct ShutdownTests {
    @Test func aRequestThatNeverEndsDoesNotHoldTheShutdown() async throws {
        let server = try await TestServer.start { $0.shutdownGracePeriod = .milliseconds(300) }
        // A sign-up whose body never comes: the request is open, and stays open.
        let socket = try LoopbackSocket.connected(to: server.port)
        defer { socket.close() }
        try socket.write("POST /v1/accounts:signUp?key=\(server.apiKey) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"email\":")
        // The server has read the head (the request is under way) when it answers another connection.
        _ = try await TestClient(server).post("/v1/accounts:signUp", ["returnSecureToken": true])
        let started = ContinuousClock.now
        try await server.stop()
        #expect(ContinuousClock.now - started < .seconds(20))
    }
}
