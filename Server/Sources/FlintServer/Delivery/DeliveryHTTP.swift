import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// The outgoing-HTTP plumbing the delivery and identity-provider clients share: the client, its TLS, requests and
/// answers. `OutsideHTTP.send` sends them, bounded and measured.
enum DeliveryHTTP {
    /// An HTTP client for the outside services: the system's trust roots plus `extraTrustRootsPEM`, TLS 1.2
    /// or later, `limits`' connect timeout, no redirects (a redirect must not carry credentials
    /// elsewhere), HTTP/2 where the server offers it (APNs requires it).
    /// A connection that fails (refused, untrusted certificate) is retried until the connect timeout.
    static func makeClient(extraTrustRootsPEM: [String], limits: OutsideCallLimits = OutsideCallLimits(),
                           httpVersion: HTTPClient.Configuration.HTTPVersion = .automatic) throws -> HTTPClient {
        let tls = try clientTLS(extraTrustRootsPEM: extraTrustRootsPEM)
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            redirectConfiguration: .disallow,
            timeout: .init(connect: limits.connectTimeout, read: limits.requestTimeout))
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
