import FlintWire
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// A Hummingbird application serving one handler on 127.0.0.1 and an ephemeral port until `stop()`:
/// the common base of the fake outside services. `misbehave(_:)` makes it answer every request badly
/// instead (see `FakeMisbehaviour`).
final class FakeHTTPServer: Sendable {
    let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, Error>
    private let misbehaviour: NIOLockedValueBox<FakeMisbehaviour?>
    private let release: FakeRelease

    private init(port: Int, group: ServiceGroup, task: Task<Void, Error>, misbehaviour: NIOLockedValueBox<FakeMisbehaviour?>,
                 release: FakeRelease) {
        self.port = port
        self.group = group
        self.task = task
        self.misbehaviour = misbehaviour
        self.release = release
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
        let misbehaviour = NIOLockedValueBox<FakeMisbehaviour?>(nil)
        let release = FakeRelease()
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            responder: CallbackResponder { request, context in
                guard let behaviour = misbehaviour.withLockedValue({ $0 }) else { return try await handler(request, context) }
                return try await behaviour.response(proper: { try await handler(request, context) }, until: release)
            },
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
        return FakeHTTPServer(port: port, group: group, task: task, misbehaviour: misbehaviour, release: release)
    }

    /// From now on, answers every request as `behaviour` says (nil: properly again).
    func misbehave(_ behaviour: FakeMisbehaviour?) {
        misbehaviour.withLockedValue { $0 = behaviour }
    }

    /// Ends every stalled or endless answer, stops listening and waits until the server has shut down.
    func stop() async {
        release.fire()
        await group.triggerGracefulShutdown()
        _ = await task.result
    }
}

/// Ways a fake outside service can answer badly, to check that Flint survives services that break: no
/// crash, no hang, a Firebase-style error, nothing of the answer shown to its clients. Every body carries
/// `marker`, which must never appear in what Flint answers.
public enum FakeMisbehaviour: Sendable, Equatable, CustomStringConvertible {
    /// A 50 MB JSON-looking body, as fast as the client reads it.
    case hugeBody
    /// Body chunks, without a length, for as long as the client reads (up to a gigabyte).
    case endlessBody
    /// The head at once, then a byte of body every 50 ms, for as long as the client waits.
    case drippingBody
    /// No answer at all.
    case silence
    /// A 200 HTML page.
    case html
    /// A 200 `application/json` body that does not parse.
    case invalidJSON
    /// A 200 JSON object whose members have unexpected types.
    case wrongShape
    /// A 400 JSON error whose every field is the marker.
    case errorJSON
    /// A 500 HTML error page.
    case serverError
    /// The proper answer, with this `Cache-Control` header.
    case cacheControl(String)

    public static let marker = "FAKE-PROVIDER-MARKER-5d41402a"

    /// The misbehaviours that replace the answer (all but `cacheControl`).
    public static let brokenAnswers: [FakeMisbehaviour] = [
        .hugeBody, .endlessBody, .drippingBody, .silence, .html, .invalidJSON, .wrongShape, .errorJSON, .serverError,
    ]

    public var description: String {
        switch self {
        case .hugeBody: "huge body"
        case .endlessBody: "endless body"
        case .drippingBody: "dripping body"
        case .silence: "silence"
        case .html: "HTML"
        case .invalidJSON: "invalid JSON"
        case .wrongShape: "JSON of the wrong shape"
        case .errorJSON: "JSON error"
        case .serverError: "server error page"
        case .cacheControl(let value): "Cache-Control: \(value)"
        }
    }

    /// The bad answer (made from the `proper` one for `cacheControl`); stalled and endless ones end when
    /// `release` fires (the fake stops) or the client goes away.
    func response(proper: () async throws -> Response, until release: FakeRelease) async throws -> Response {
        let marker = Self.marker
        switch self {
        case .hugeBody:
            let chunk = ByteBuffer(string: "[\"\(marker)\"," + String(repeating: " ", count: 64 * 1024 - marker.count - 5) + "\n")
            let total = 50 * 1024 * 1024
            return Self.streamed(contentLength: total, contentType: "application/json") { writer in
                var sent = 0
                while sent + chunk.readableBytes <= total, !release.isFired {
                    try await writer.write(chunk)
                    sent += chunk.readableBytes
                }
            }
        case .endlessBody:
            let chunk = ByteBuffer(string: String(repeating: "{\"\(marker)\": ", count: 2048))
            return Self.streamed(contentType: "application/json") { writer in
                // Far more than any client reads (it should stop long before); the limit only keeps a fake
                // whose writes outlive its client from spinning.
                for _ in 0..<(1 << 14) where !release.isFired { try await writer.write(chunk) }
            }
        case .drippingBody:
            let bytes = Array("{\"keys\": [\"\(marker)".utf8)
            return Self.streamed(contentType: "application/json") { writer in
                var sent = 0
                while !release.isFired {
                    try await writer.write(ByteBuffer(bytes: [bytes[sent % bytes.count]]))
                    sent += 1
                    // Pacing a slow peer, not waiting for the test: the client's deadline must end this.
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
        case .silence:
            await release.wait()
            return FakeHTTP.empty(503)
        case .html:
            return Self.text(200, "text/html", "<!doctype html><html><body><h1>\(marker)</h1></body></html>")
        case .invalidJSON:
            return Self.text(200, "application/json", "{\"success\": tru, \"keys\": [\"\(marker)\"")
        case .wrongShape:
            return FakeHTTP.json(200, [
                "success": marker, "keys": marker, "sid": 7, "data": [marker], "id": [marker], "reason": 42,
                "refresh_token": ["x": marker], "access_token": 3, "error": ["code": marker],
            ])
        case .errorJSON:
            return FakeHTTP.json(400, [
                "error": marker, "message": marker, "reason": marker, "error-codes": [marker], "code": marker,
            ])
        case .serverError:
            return Self.text(500, "text/html", "<html><body>Internal error at backend-7.\(marker).internal</body></html>")
        case .cacheControl(let value):
            var response = try await proper()
            response.headers[.cacheControl] = value
            return response
        }
    }

    private static func text(_ status: Int, _ contentType: String, _ body: String) -> Response {
        Response(status: .init(code: status), headers: [.contentType: contentType],
                 body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    /// A 200 answer whose body `write` produces; a client that goes away ends it (the write fails).
    private static func streamed(contentLength: Int? = nil, contentType: String,
                                 _ write: @escaping @Sendable (inout any ResponseBodyWriter) async throws -> Void) -> Response {
        Response(status: .ok, headers: [.contentType: contentType], body: ResponseBody(contentLength: contentLength) { writer in
            try await write(&writer)
            try await writer.finish(nil)
        })
    }
}

/// A one-way signal: stalled answers wait for it, and it fires when their fake stops (so a graceful
/// shutdown, which waits for open requests, does not wait forever).
final class FakeRelease: Sendable {
    private let state = NIOLockedValueBox((fired: false, waiters: [CheckedContinuation<Void, Never>]()))

    var isFired: Bool { state.withLockedValue { $0.fired } }

    func fire() {
        let waiters = state.withLockedValue { state in
            state.fired = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let fired = state.withLockedValue { state in
                if !state.fired { state.waiters.append(continuation) }
                return state.fired
            }
            if fired { continuation.resume() }
        }
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
        jsonBody(status, object, headers: headers)
    }

    /// A JSON answer of a `JSONValue`, keys sorted.
    static func json(_ status: Int, encoding value: JSONValue) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return body(status, (try? encoder.encode(value)) ?? Data("{}".utf8), headers: [:])
    }

    /// A JSON array answer.
    static func jsonArray(_ status: Int, _ array: [Any]) -> Response {
        jsonBody(status, array, headers: [:])
    }

    private static func jsonBody(_ status: Int, _ value: Any, headers: [String: String]) -> Response {
        body(status, (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data("{}".utf8), headers: headers)
    }

    /// An `application/json` answer of `data`.
    private static func body(_ status: Int, _ data: Data, headers: [String: String]) -> Response {
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

/// A fake on a `FakeHTTPServer`, which tests can make misbehave.
protocol FakeServer: AnyObject, Sendable {
    /// The running server, once started.
    var server: NIOLockedValueBox<FakeHTTPServer?> { get }
}

extension FakeServer {
    /// From now on, answers every request as `behaviour` says (nil: properly again).
    func misbehave(_ behaviour: FakeMisbehaviour?) {
        server.withLockedValue { $0 }?.misbehave(behaviour)
    }
}

/// A fake service answering plain HTTP on 127.0.0.1 with `handle(_:)`.
protocol FakeService: FakeServer {
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
