import NIOCore
import NIOPosix

/// Forwards each TCP connection it accepts to `target`, byte for byte, so a test reaches a server through an
/// address other than the one the server listens on (e.g. 127.0.0.2, which is loopback too).
public final class TCPForwarder: Sendable {
    private let listener: any Channel
    public let port: Int

    public static func start(host: String, forwardingTo target: SocketAddress) async throws -> TCPForwarder {
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop).connect(to: target).flatMap { outbound in
                    outbound.pipeline.addHandler(Relay(to: inbound)).flatMap {
                        inbound.pipeline.addHandler(Relay(to: outbound))
                    }
                }
            }
            .bind(host: host, port: 0).get()
        guard let port = listener.localAddress?.port else { throw TestSupportError.serverDidNotStart }
        return TCPForwarder(listener: listener, port: port)
    }

    private init(listener: any Channel, port: Int) {
        self.listener = listener
        self.port = port
    }

    /// Stops accepting connections (those open end when their other side closes).
    public func stop() async throws {
        try await listener.close().get()
    }

    /// Writes what one side reads to the other, and closes the other when this one closes.
    private final class Relay: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let other: any Channel

        init(to other: any Channel) { self.other = other }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            other.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            other.close(promise: nil)
        }
    }
}
