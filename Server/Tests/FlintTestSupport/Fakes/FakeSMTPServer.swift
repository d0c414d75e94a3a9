import FlintServer
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A mail relay on 127.0.0.1 that answers badly, one way per server (`Misbehaviour`), to check that
/// Flint's SMTP client gives up in bounded time. Plain TCP, no TLS: configure it with `security: .none`.
/// Every reply text carries `FakeMisbehaviour.marker`, which must never reach Flint's clients.
public final class FakeSMTPServer: Sendable {
    public enum Misbehaviour: Sendable, CaseIterable, CustomStringConvertible {
        /// A greeting that is not an SMTP reply.
        case garbage
        /// A greeting line of 4 MB, without a line break.
        case hugeLine
        /// `220-` continuation lines for as long as the client reads.
        case endlessReply
        /// Accepts the connection and never says anything.
        case silence
        /// A byte of greeting every 50 ms, for as long as the client waits.
        case dripping
        /// A proper conversation until `MAIL FROM`, refused for good (554).
        case refusesMail
        /// A proper conversation until `MAIL FROM`, refused for now (451): worth another try.
        case defersMail

        public var description: String {
            switch self {
            case .garbage: "garbage greeting"
            case .hugeLine: "4 MB reply line"
            case .endlessReply: "endless reply"
            case .silence: "silence"
            case .dripping: "dripping greeting"
            case .refusesMail: "554 to MAIL FROM"
            case .defersMail: "451 to MAIL FROM"
            }
        }
    }

    public let misbehaviour: Misbehaviour
    public var port: Int { channel.localAddress?.port ?? 0 }
    /// Connections accepted so far.
    public var connectionCount: Int { connections.withLockedValue { $0.count } }

    private let channel: any Channel
    private let connections: NIOLockedValueBox<[any Channel]>

    private init(misbehaviour: Misbehaviour, channel: any Channel, connections: NIOLockedValueBox<[any Channel]>) {
        self.misbehaviour = misbehaviour
        self.channel = channel
        self.connections = connections
    }

    public static func start(_ misbehaviour: Misbehaviour) async throws -> FakeSMTPServer {
        let connections = NIOLockedValueBox<[any Channel]>([])
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                connections.withLockedValue { $0.append(channel) }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Handler(misbehaviour))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return FakeSMTPServer(misbehaviour: misbehaviour, channel: channel, connections: connections)
    }

    /// Where Flint should send (plain SMTP on loopback).
    public func configuration(from: String) -> DeliveryConfiguration.SMTP {
        .init(host: "127.0.0.1", port: port, security: .none, from: from)
    }

    /// Stops listening and closes every connection.
    public func stop() async {
        try? await channel.close()
        for connection in connections.withLockedValue({ $0 }) { try? await connection.close() }
    }

    /// One connection's side of the conversation.
    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        private let misbehaviour: Misbehaviour
        private var received = ""
        private var drip: RepeatedTask?
        private var dripped = 0

        init(_ misbehaviour: Misbehaviour) { self.misbehaviour = misbehaviour }

        func channelActive(context: ChannelHandlerContext) {
            let marker = FakeMisbehaviour.marker
            switch misbehaviour {
            case .garbage:
                write("hello \(marker), this is no mail server\r\n", context: context)
            case .hugeLine:
                write(chunk: "220 " + String(repeating: "x", count: 64 * 1024 - 4), times: 64, context: context)
            case .endlessReply:
                let lines = String(repeating: "220-\(marker) and more\r\n", count: 2048)
                write(chunk: lines, times: nil, context: context)
            case .silence:
                break
            case .dripping:
                let bytes = Array("220 \(marker) ".utf8)
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                drip = context.eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: .milliseconds(50)) { _ in
                    let (handler, context) = bound.value
                    context.writeAndFlush(NIOAny(ByteBuffer(bytes: [bytes[handler.dripped % bytes.count]])), promise: nil)
                    handler.dripped += 1
                }
            case .refusesMail, .defersMail:
                write("220 fake ESMTP ready\r\n", context: context)
            }
            context.fireChannelActive()
        }

        func channelInactive(context: ChannelHandlerContext) {
            drip?.cancel()
            context.fireChannelInactive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            received += buffer.readString(length: buffer.readableBytes) ?? ""
            while let end = received.range(of: "\r\n") {
                let line = String(received[..<end.lowerBound]).uppercased()
                received.removeSubrange(..<end.upperBound)
                answer(line, context: context)
            }
        }

        private func answer(_ line: String, context: ChannelHandlerContext) {
            guard misbehaviour == .refusesMail || misbehaviour == .defersMail else { return }
            if line.hasPrefix("EHLO") || line.hasPrefix("HELO") {
                write("250-fake greets you\r\n250 8BITMIME\r\n", context: context)
            } else if line.hasPrefix("MAIL") {
                let code = misbehaviour == .refusesMail ? "554 5.7.1" : "451 4.3.0"
                write("\(code) \(FakeMisbehaviour.marker) not now\r\n", context: context)
            } else if line.hasPrefix("QUIT") {
                write("221 bye\r\n", context: context)
                context.close(promise: nil)
            } else {
                write("250 ok\r\n", context: context)
            }
        }

        private func write(_ text: String, context: ChannelHandlerContext) {
            context.writeAndFlush(NIOAny(ByteBuffer(string: text)), promise: nil)
        }

        /// Writes `chunk` `times` times (nil: until the connection fails), each once the last is sent, so a
        /// client that stops reading is not flooded into memory.
        private func write(chunk: String, times: Int?, context: ChannelHandlerContext) {
            guard times.map({ $0 > 0 }) ?? true, context.channel.isActive else { return }
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.writeAndFlush(NIOAny(ByteBuffer(string: chunk))).whenSuccess {
                let (handler, context) = bound.value
                handler.write(chunk: chunk, times: times.map { $0 - 1 }, context: context)
            }
        }
    }
}
