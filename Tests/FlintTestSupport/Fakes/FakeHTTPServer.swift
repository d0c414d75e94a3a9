import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// A Hummingbird application serving one handler on 127.0.0.1 and an ephemeral port until `stop()`:
/// the common base of the fake outside services.
final class FakeHTTPServer: Sendable {
    let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, Error>

    private init(port: Int, group: ServiceGroup, task: Task<Void, Error>) {
        self.port = port
        self.group = group
        self.task = task
    }

    static func start(
        name: String, handler: @escaping @Sendable (Request, BasicRequestContext) async throws -> Response
    ) async throws -> FakeHTTPServer {
        try await start(name: name, server: .http1(), context: BasicRequestContext.self, handler: handler)
    }

    static func start<Context: RequestContext>(
        name: String, server: HTTPServerBuilder, context: Context.Type,
        handler: @escaping @Sendable (Request, Context) async throws -> Response
    ) async throws -> FakeHTTPServer where Context.Source == ApplicationRequestContextSource {
        var logger = Logger(label: name)
        logger.logLevel = .critical
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            responder: CallbackResponder(callback: handler),
            server: server,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: name),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port { portContinuation.yield(port) }
                portContinuation.finish()
            },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            defer { portContinuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            _ = await task.result
            throw TestSupportError.serverDidNotStart
        }
        return FakeHTTPServer(port: port, group: group, task: task)
    }

    /// Stops listening and waits until the server has shut down.
    func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}

/// Small request and response helpers of the fakes.
enum FakeHTTP {
    /// The request body, or nil when it is larger than `limit`.
    static func body(_ request: Request, limit: Int = 64 * 1024) async -> Data? {
        guard let buffer = try? await request.body.collect(upTo: limit) else { return nil }
        return Data(buffer.readableBytesView)
    }

    static func header(_ request: Request, _ name: String) -> String? {
        HTTPField.Name(name).flatMap { request.headers[$0] }
    }

    /// A JSON answer from a JSON-serialisable dictionary.
    static func json(_ status: Int, _ object: [String: Any], headers: [String: String] = [:]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        for (name, value) in headers { if let name = HTTPField.Name(name) { fields[name] = value } }
        return Response(status: .init(code: status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// An empty answer.
    static func empty(_ status: Int, headers: [String: String] = [:]) -> Response {
        var fields = HTTPFields()
        for (name, value) in headers { if let name = HTTPField.Name(name) { fields[name] = value } }
        return Response(status: .init(code: status), headers: fields)
    }

    /// Decodes `application/x-www-form-urlencoded` (`+` is a space, then percent-decoding). Repeated
    /// names keep the first value; a field that does not decode is dropped.
    static func form(_ body: Data) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String? {
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : "") else { continue }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    /// True for an application/x-www-form-urlencoded content type (parameters allowed).
    static func isForm(_ request: Request) -> Bool {
        request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
    }

    /// `count` random bytes as lowercase hex.
    static func randomHex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }
}

/// A fake service answering plain HTTP on 127.0.0.1 with `handle(_:)`.
protocol FakeService: AnyObject, Sendable {
    /// The running server, set by `serve(name:)`.
    var server: NIOLockedValueBox<FakeHTTPServer?> { get }
    func handle(_ request: Request) async -> Response
}

extension FakeService {
    /// Starts serving. The server holds the fake weakly: once the fake is gone it answers 503.
    func serve(name: String) async throws {
        let server = try await FakeHTTPServer.start(name: name) { [weak self] request, _ in
            guard let self else { return FakeHTTP.empty(503) }
            return await self.handle(request)
        }
        self.server.withLockedValue { $0 = server }
    }
}
