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
        let socket = try RawConnection(port: server.port)
        defer { socket.close() }
        try socket.send("POST /v1/accounts:signUp?key=\(server.apiKey) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"email\":")
        // The server has read the head (the request is under way) when it answers another connection.
        _ = try await TestClient(server).post("/v1/accounts:signUp", ["returnSecureToken": true])
        let started = ContinuousClock.now
        try await server.stop()
        #expect(ContinuousClock.now - started < .seconds(20))
    }
}

/// A plain TCP connection to 127.0.0.1, for writing a request by hand.
private struct RawConnection {
    let descriptor: Int32

    init(port: Int) throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        try #require(fd >= 0 && connected, "cannot connect to 127.0.0.1:\(port)")
        descriptor = fd
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        let sent = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        try #require(sent == bytes.count, "the request was not written whole")
    }

    func close() {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }
}
