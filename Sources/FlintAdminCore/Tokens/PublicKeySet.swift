import FlintWire
import Foundation

/// The keys a `KeySource` publishes, fetched when first needed and kept as long as the answer's
/// `Cache-Control: max-age` says (not at all without one, or with `no-store`). Concurrent callers that find the keys stale share one fetch.
actor PublicKeySet {
    private let source: AdminEndpoints.KeySource
    private let transport: any AdminTransport
    private let now: @Sendable () -> Date
    private var keys: [String: RSAPublicKey] = [:]
    private var expiresAt = Date.distantPast
    private var pending: Task<([String: RSAPublicKey], Date), any Error>?

    init(source: AdminEndpoints.KeySource, transport: any AdminTransport, now: @escaping @Sendable () -> Date) {
        self.source = source
        self.transport = transport
        self.now = now
    }

    /// The key `id` names, or nil when the published set has none of that name.
    func key(id: String) async throws -> RSAPublicKey? {
        if now() >= expiresAt {
            let task = pending ?? Task { [source, transport, now] in try await Self.fetch(source, transport: transport, now: now) }
            pending = task
            defer { pending = nil }
            (keys, expiresAt) = try await task.value
        }
        return keys[id]
    }

    private static func fetch(_ source: AdminEndpoints.KeySource, transport: any AdminTransport,
                              now: @Sendable () -> Date) async throws -> ([String: RSAPublicKey], Date) {
        let url: URL
        switch source {
        case .x509Certificates(let address), .jwks(let address): url = address
        }
        let response: AdminHTTPResponse
        do {
            response = try await AdminConnection.send(AdminHTTPRequest(method: "GET", url: url, timeout: AdminConnection.timeout),
                                                      with: transport)
        } catch let error as AdminError {
            throw AdminError(.certificateFetchFailed, error.message)
        }
        guard response.status == 200 else {
            throw AdminError(.certificateFetchFailed, "\(url.absoluteString) answered HTTP \(response.status)")
        }
        let data = response.body
        let keys: [String: RSAPublicKey]
        do {
            switch source {
            case .x509Certificates: keys = try certificates(data)
            case .jwks: keys = try jwks(data)
            }
        } catch {
            throw AdminError(.certificateFetchFailed, "\(url.absoluteString) published keys that cannot be read: \(error)")
        }
        return (keys, now().addingTimeInterval(CacheControl.maxAge(response.headers["cache-control"]) ?? 0))
    }

    /// Key id → PEM certificate. A certificate whose key cannot be used (not RSA, under 2048 bits) is passed over: tokens
    /// that name it are refused, the others still verify.
    private static func certificates(_ data: Data) throws -> [String: RSAPublicKey] {
        try JSONDecoder().decode([String: String].self, from: data).compactMapValues { try? RSAPublicKey(certificatePEM: $0) }
    }

    /// A JWK Set's RSA signing keys (`kty: RSA`, no `use` or `use: sig`, no `alg` or `alg: RS256`); others, and keys
    /// that cannot be used, are passed over.
    private static func jwks(_ data: Data) throws -> [String: RSAPublicKey] {
        struct Set: Decodable {
            struct Key: Decodable {
                var kty: String?
                var kid: String?
                var use: String?
                var alg: String?
                var n: String?
                var e: String?
            }

            var keys: [Key]
        }
        var keys: [String: RSAPublicKey] = [:]
        for key in try JSONDecoder().decode(Set.self, from: data).keys
        where key.kty == "RSA" && (key.use ?? "sig") == "sig" && (key.alg ?? "RS256") == "RS256" {
            guard let kid = key.kid, let n = key.n.flatMap(Base64URL.decode), let e = key.e.flatMap(Base64URL.decode) else {
                continue
            }
            keys[kid] = try? RSAPublicKey(modulus: n, exponent: e)
        }
        return keys
    }
}
