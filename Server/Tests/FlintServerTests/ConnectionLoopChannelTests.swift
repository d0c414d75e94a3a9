import AsyncHTTPClient
@testable import FlintServer
import FlintTestSupport
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle
import Testing

/// `ConnectionLoopChannel`: a connection's handler runs on the event loop NIO gave the connection, whichever of the
/// loops that is, over HTTP/1.1 and over HTTP/2; without it (as Hummingbird makes the tasks) it runs elsewhere.
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

    @Test(arguments: [true, false], [false, true])
    func handlersRunOnTheirConnectionsLoop(onConnectionLoops: Bool, https: Bool) async throws {
        let certificate = try https ? SelfSignedCertificate(commonName: "Flint loops", addresses: ["127.0.0.1"]) : nil
        defer { certificate?.remove() }
        let serverTLS = try certificate.map { try TLSCertificates(certificatePath: $0.certificatePath, keyPath: $0.keyPath).serverConfiguration }
        var clientTLS = TLSConfiguration.makeClientConfiguration()
        if let certificate { clientTLS.trustRoots = .file(certificate.certificatePath) }

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
            router: router, server: try .flint(tls: serverTLS, onConnectionLoops: onConnectionLoops),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)), onServerRunning: { channel in
                port.yield(channel.localAddress?.port ?? 0)
            }, eventLoopGroupProvider: .shared(group), logger: Self.quiet)
        let services = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: Self.quiet))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await services.run() }
            var iterator = ports.makeAsyncIterator()
            let bound = try #require(await iterator.next())
            var answers: [String] = []
            // A client, so a connection, each: both loops serve some.
            for _ in 0..<8 {
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: clientTLS))
                do {
                    let response = try await client.execute(
                        HTTPClientRequest(url: "\(https ? "https" : "http")://127.0.0.1:\(bound)/"), timeout: .seconds(10))
                    #expect(response.version == (https ? .http2 : .http1_1))
                    answers.append(String(buffer: try await response.body.collect(upTo: 1024)))
                    try await client.shutdown()
                } catch {
                    try await client.shutdown()
                    throw error
                }
            }
            #expect(answers == Array(repeating: onConnectionLoops ? "true true" : "false false", count: 8))
            await services.triggerGracefulShutdown()
        }
        try await group.shutdownGracefully()
    }
}
