import AsyncHTTPClient
@testable import FlintServer
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Testing

/// `ConnectionLoopChannel`: a connection's handler runs on the event loop NIO gave the connection, whichever of the
/// loops that is; without it (as Hummingbird makes the tasks) it runs elsewhere.
@Suite struct ConnectionLoopChannelTests {
    /// Remembers the loop of the request's connection.
    struct LoopContext: RequestContext {
        var coreContext: CoreRequestContextStorage
        let connectionLoop: any EventLoop

        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            connectionLoop = source.channel.eventLoop
        }
    }

    static let quiet: Logger = {
        var logger = Logger(label: "ConnectionLoopChannelTests")
        logger.logLevel = .warning
        return logger
    }()

    @Test(arguments: [true, false])
    func handlersRunOnTheirConnectionsLoop(onConnectionLoops: Bool) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let router = Router(context: LoopContext.self)
        router.get("/") { _, context in
            // A child task inherits its parent's preference.
            let child = await withTaskGroup(of: Bool.self) { tasks in
                tasks.addTask { context.connectionLoop.inEventLoop }
                return await tasks.next() ?? false
            }
            return "\(context.connectionLoop.inEventLoop) \(child)"
        }
        let (ports, port) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router, server: try .flint(tls: nil, onConnectionLoops: onConnectionLoops),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)), onServerRunning: { channel in
                port.yield(channel.localAddress?.port ?? 0)
            }, eventLoopGroupProvider: .shared(group), logger: Self.quiet)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let services = ServiceGroup(configuration: .init(
            services: [app], gracefulShutdownSignals: [], logger: Self.quiet))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await services.run() }
            var iterator = ports.makeAsyncIterator()
            let bound = try #require(await iterator.next())
            var answers: [String] = []
            // A connection each, so that both loops serve some.
            for _ in 0..<8 {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(bound)/")
                request.headers.add(name: "Connection", value: "close")
                let response = try await client.execute(request, timeout: .seconds(10))
                answers.append(String(buffer: try await response.body.collect(upTo: 1024)))
            }
            #expect(answers == Array(repeating: onConnectionLoops ? "true true" : "false false", count: 8))
            await services.triggerGracefulShutdown()
        }
        try await client.shutdown()
        try await group.shutdownGracefully()
    }
}
