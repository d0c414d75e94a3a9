import FlintWire
import Foundation
import Hummingbird
import HummingbirdHTTP2
import NIOConcurrencyHelpers
import NIOCore

/// A web server where clients publish their Client ID Metadata Documents: https on 127.0.0.1 with its own throwaway
/// CA (`caCertificatePEM`, to trust), answering each path as `publish` set it: a JSON document (with a
/// `Cache-Control`), a redirect, a body of some size, or nothing at all until the fake stops. Requests are counted by
/// path, and whether they carried a cookie is recorded.
public final class FakeClientMetadataHost: Sendable {
    /// How a path answers.
    public enum Answer: Sendable {
        case document(JSONValue, cacheControl: String? = nil)
        /// A 302 to this location.
        case redirect(String)
        /// A 200 JSON-looking body of this many bytes.
        case bytes(Int)
        /// No answer, until the fake stops.
        case silence
    }

    /// Trust this (`DeliveryConfiguration.extraTrustRootsPEM`) to reach the fake.
    public let caCertificatePEM: String
    private let answers = NIOLockedValueBox<[String: Answer]>([:])
    private let counts = NIOLockedValueBox<[String: Int]>([:])
    private let cookies = NIOLockedValueBox(0)
    private let release = FakeRelease()
    private let server = NIOLockedValueBox<FakeHTTPServer?>(nil)

    public var port: Int { server.withLockedValue { $0?.port ?? 0 } }
    /// The URL of `path` (which starts with `/`) on the fake.
    public func url(_ path: String) -> String { "https://127.0.0.1:\(port)\(path)" }
    /// How many requests reached `path`.
    public func requests(to path: String) -> Int { counts.withLockedValue { $0[path] ?? 0 } }
    /// How many requests carried a `Cookie` header.
    public var requestsWithCookies: Int { cookies.withLockedValue { $0 } }

    private init(caCertificatePEM: String) {
        self.caCertificatePEM = caCertificatePEM
    }

    public static func start() async throws -> FakeClientMetadataHost {
        let authority = try FakeCertificateAuthority()
        let fake = FakeClientMetadataHost(caCertificatePEM: authority.caCertificatePEM)
        let server = try await FakeHTTPServer.start(
            name: "fake-client-metadata", server: .http2Upgrade(tlsConfiguration: authority.serverTLSConfiguration()),
            context: BasicRequestContext.self) { [weak fake] request, _ in
            guard let fake else { return FakeHTTP.empty(503) }
            return await fake.answer(request)
        }
        fake.server.withLockedValue { $0 = server }
        return fake
    }

    /// From now on, `path` answers `answer`.
    public func publish(_ path: String, _ answer: Answer) { answers.withLockedValue { $0[path] = answer } }

    public func stop() async {
        release.fire()
        await server.withLockedValue { $0 }?.stop()
    }

    private func answer(_ request: Request) async -> Response {
        let path = request.uri.path
        counts.withLockedValue { $0[path, default: 0] += 1 }
        if request.headers[.cookie] != nil { cookies.withLockedValue { $0 += 1 } }
        switch answers.withLockedValue({ $0[path] }) {
        case nil:
            return FakeHTTP.empty(404)
        case let .document(document, cacheControl):
            let body = (try? JSONEncoder().encode(document)) ?? Data()
            var response = Response(status: .ok, headers: [.contentType: "application/json"],
                                    body: .init(byteBuffer: ByteBuffer(bytes: body)))
            if let cacheControl { response.headers[.cacheControl] = cacheControl }
            return response
        case .redirect(let location):
            return Response(status: .found, headers: [.location: location])
        case .bytes(let count):
            let chunk = ByteBuffer(string: String(repeating: " ", count: 64 * 1024))
            let release = release
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(contentLength: count) { writer in
                var sent = 0
                while sent < count, !release.isFired {
                    let size = min(chunk.readableBytes, count - sent)
                    try await writer.write(chunk.getSlice(at: 0, length: size)!)
                    sent += size
                }
                try await writer.finish(nil)
            })
        case .silence:
            await release.wait()
            return FakeHTTP.empty(503)
        }
    }
}
