import AsyncHTTPClient
@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import Testing

/// `--tls-cert` / `--tls-key`: HTTPS with HTTP/2 on the public listener, and a renewed certificate served
/// after a reload without a restart.
@Suite struct HTTPSTests {
    @Test func servesHTTPSAndHTTP2AndReloadsItsCertificate() async throws {
        let first = try SelfSignedCertificate(commonName: "Flint test", addresses: ["127.0.0.1"])
        let renewed = try SelfSignedCertificate(commonName: "Flint test, renewed", addresses: ["127.0.0.1"])
        defer { first.remove(); renewed.remove() }
        let certificates = try TLSCertificates(certificatePath: first.certificatePath, keyPath: first.keyPath)
        try await withServer(emulator: false, configure: { $0.tls = certificates }) { server, _ in
            #expect(server.server.publicURL.hasPrefix("https://"))
            let url = "https://127.0.0.1:\(server.port)/v1/accounts:signUp?key=\(server.apiKey)"
            let reply = try await Self.post(url, trusting: first.certificatePath)
            #expect(reply.status == .ok)
            #expect(reply.version == .http2)
            #expect(try JSONDecoder().decode(JSONValue.self, from: Data(buffer: reply.body))["idToken"] != nil)

            // The renewed files go in place of the old ones; a reload serves them from the next handshake on.
            for (from, to) in [(renewed.certificatePath, first.certificatePath), (renewed.keyPath, first.keyPath)] {
                try FileManager.default.removeItem(atPath: to)
                try FileManager.default.copyItem(atPath: from, toPath: to)
            }
            await #expect(throws: (any Error).self) { try await Self.post(url, trusting: renewed.certificatePath, deadline: .seconds(2)) }
            try certificates.reload()
            #expect(try await Self.post(url, trusting: renewed.certificatePath).status == .ok)
            // A client that trusts another certificate does not get through (the handshake fails; the client would
            // retry until its deadline, so a short one).
            let unrelated = try SelfSignedCertificate(commonName: "unrelated", addresses: ["127.0.0.1"])
            defer { unrelated.remove() }
            await #expect(throws: (any Error).self) { try await Self.post(url, trusting: unrelated.certificatePath, deadline: .seconds(2)) }

            // Files that cannot be read leave the certificate in use in place.
            try "not a certificate".write(toFile: first.certificatePath, atomically: true, encoding: .utf8)
            #expect(throws: TLSCertificates.Failure.self) { try certificates.reload() }
            #expect(try await Self.post(url, trusting: renewed.certificatePath).status == .ok)
        }
    }

    /// POSTs `{}` to `url` with a fresh client that trusts only the certificate at `root`.
    private static func post(_ url: String, trusting root: String, deadline: TimeAmount = .seconds(120)) async throws
        -> (status: HTTPResponseStatus, version: HTTPVersion, body: ByteBuffer) {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(root)
        let client = HTTPClient(configuration: .init(tlsConfiguration: tls))
        do {
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: "{}"))
            let response = try await client.execute(request, timeout: deadline)
            let body = try await response.body.collect(upTo: 1 << 20)
            try await client.shutdown()
            return (response.status, response.version, body)
        } catch {
            try await client.shutdown()
            throw error
        }
    }
}
