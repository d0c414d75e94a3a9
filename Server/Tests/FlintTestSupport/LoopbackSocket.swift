import Foundation
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// A plain TCP socket on 127.0.0.1, for what no client library does: a listener that never accepts, or a request
/// written by hand and left unfinished.
public struct LoopbackSocket: Sendable {
    public let descriptor: Int32
    /// The local port of a listener; the peer's of a connection.
    public let port: Int

    public enum Failure: Error { case unavailable(String) }

    private init(descriptor: Int32, port: Int) {
        self.descriptor = descriptor
        self.port = port
    }

    /// A socket listening on an ephemeral port that nobody accepts from: connections complete, nothing answers.
    public static func listening() throws -> LoopbackSocket {
        let fd = try makeSocket()
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else { throw Failure.unavailable("cannot listen on 127.0.0.1") }
        return LoopbackSocket(descriptor: fd, port: Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A connection to 127.0.0.1:`port`.
    public static func connected(to port: Int) throws -> LoopbackSocket {
        let fd = try makeSocket()
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { throw Failure.unavailable("cannot connect to 127.0.0.1:\(port)") }
        return LoopbackSocket(descriptor: fd, port: port)
    }

    /// Writes all of `text`.
    public func write(_ text: String) throws {
        let bytes = Array(text.utf8)
        let sent = bytes.withUnsafeBytes { buffer in
            #if canImport(Glibc)
            Glibc.write(descriptor, buffer.baseAddress, buffer.count)
            #else
            Darwin.write(descriptor, buffer.baseAddress, buffer.count)
            #endif
        }
        guard sent == bytes.count else { throw Failure.unavailable("wrote \(sent) of \(bytes.count) bytes") }
    }

    public func close() {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }

    private static func makeSocket() throws -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure.unavailable("no socket") }
        return fd
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return address
    }
}
