import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// The outgoing-HTTP plumbing the delivery clients share: one client, bounded waits, bounded answers.
enum DeliveryHTTP {
    /// How long the answer may take once connected. Generous (providers can be slow to answer, and a loaded
    /// node can be slow to read), yet bounded: a request never waits longer than `requestTimeout`.
    static let readTimeout: TimeAmount = .seconds(30)
    /// How long one request may take from start to the last byte of the answer.
    static let requestTimeout: TimeAmount = .seconds(40)
    /// Answers larger than this are not read (every service here answers with a small JSON object).
    static let maximumResponseBytes = 64 * 1024

    /// An HTTP client for the delivery services: the system's trust roots plus `extraTrustRootsPEM`, TLS 1.2
    /// or later, a 10-second connect and a `readTimeout` read timeout, no redirects (a redirect must not carry credentials
    /// elsewhere), HTTP/2 where the server offers it (APNs requires it).
    /// A connection that fails (refused, untrusted certificate) is retried until `connectTimeout`.
    static func makeClient(extraTrustRootsPEM: [String],
                           httpVersion: HTTPClient.Configuration.HTTPVersion = .automatic,
                           connectTimeout: TimeAmount = .seconds(10)) throws -> HTTPClient {
        let tls = try clientTLS(extraTrustRootsPEM: extraTrustRootsPEM)
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: .disallow,
            timeout: .init(connect: connectTimeout, read: readTimeout))
        configuration.httpVersion = httpVersion
        return HTTPClient(eventLoopGroup: .singletonMultiThreadedEventLoopGroup, configuration: configuration)
    }

    /// Client TLS for every outside service (HTTP and SMTP): 1.2 or later, full verification, the system's
    /// roots plus `extraTrustRootsPEM`.
    static func clientTLS(extraTrustRootsPEM: [String]) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.certificateVerification = .fullVerification
        let extraRoots = try extraTrustRootsPEM.flatMap { pem in
            let certificates = try? NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
            guard let certificates, !certificates.isEmpty else {
                throw DeliveryConfigurationError.invalid(setting: "extraTrustRootsPEM", reason: "not a PEM certificate bundle")
            }
            return certificates
        }
        if !extraRoots.isEmpty { tls.additionalTrustRoots = [.certificates(extraRoots)] }
        return tls
    }

    /// A service's answer, read in full.
    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: Data

        var isSuccess: Bool { (200..<300).contains(status) }

        /// The body as text for error details, shortened.
        var bodyText: String {
            let text = String(decoding: body.prefix(300), as: UTF8.self)
            return text.isEmpty ? "(empty answer)" : text
        }

        /// A string field of a JSON object body, if the body is one.
        func jsonString(_ key: String) -> String? {
            guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
            return object[key] as? String
        }
    }

    /// Sends `request` and reads the answer. Transport failures, timeouts and oversized answers become
    /// `DeliveryError.unavailable` naming `service`; HTTP error statuses are returned for the caller to judge.
    static func send(_ request: HTTPClientRequest, with client: HTTPClient, service: String) async throws -> Answer {
        do {
            let response = try await client.execute(request, timeout: requestTimeout)
            let body = try await response.body.collect(upTo: maximumResponseBytes)
            return Answer(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
        } catch {
            throw DeliveryError.unavailable("\(service): \(error)")
        }
    }

    /// A POST of `body` with `contentType`.
    static func post(_ url: String, contentType: String, body: Data, headers: [(String, String)] = []) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: contentType)
        request.headers.add(name: "user-agent", value: "Flint")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        return request
    }
}
