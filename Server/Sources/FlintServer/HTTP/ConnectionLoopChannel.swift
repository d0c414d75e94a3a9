import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL

/// A connection whose task runs on the connection's own event loop.
///
/// Hummingbird makes every connection's task from its accept loop, and NIO's global executor keeps a task on the loop
/// that made it: without this, all of Flint's request work ran on one loop while the other only moved bytes. Here each
/// connection's task (and its child tasks) prefers the loop NIO gave the connection, so the work spreads over the
/// loops as the connections do, and a request's bytes and its handler share a thread.
struct ConnectionLoopChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await inner.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1, or with `tls` HTTP/2 negotiated by ALPN (HTTP/1.1 otherwise); with `onConnectionLoops`, each
    /// connection served from its own event loop (`ConnectionLoopChannel`).
    static func flint(tls: TLSConfiguration?, onConnectionLoops: Bool) throws -> HTTPServerBuilder {
        guard let tls else {
            return .init { responder in
                let channel = HTTP1Channel(responder: responder)
                return onConnectionLoops ? ConnectionLoopChannel(inner: channel) : channel
            }
        }
        return .init { responder in
            let channel = try HTTP2UpgradeChannel(tlsConfiguration: tls, responder: responder)
            return onConnectionLoops ? ConnectionLoopChannel(inner: channel) : channel
        }
    }
}
