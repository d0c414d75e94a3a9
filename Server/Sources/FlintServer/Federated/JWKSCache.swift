import AsyncHTTPClient
import Crypto
import FlintWire
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import _CryptoExtras

/// The signing keys an outside identity provider (Apple, Facebook Limited Login) publishes as a JWKS
/// document, fetched on demand and cached.
///
/// - The document is kept for its `Cache-Control: max-age` (capped at `maximumMaxAge`), else `defaultMaxAge`.
/// - A key id that is not in the cached document causes a refetch (the provider may have rotated keys),
///   but fetches start at most once per `refetchFloor`, so tokens with made-up key ids cannot make us
///   hammer the provider. The floor also spaces out retries while the provider is down.
/// - When the provider is unreachable or answers nonsense, the last good document keeps being used.
/// - Concurrent callers share one in-flight fetch, bounded in time and size by the `OutsideHTTP` limits.
public final class JWKSCache: Sendable {
    /// A public key of the document, with the algorithm it is for.
    public enum Key: Sendable {
        /// An RSA key (`kty: RSA`), used with RS256.
        case rsa(_RSA.Signing.PublicKey)
        /// An EC P-256 key (`kty: EC, crv: P-256`), used with ES256.
        case p256(P256.Signing.PublicKey)

        /// The one JWS `alg` this key verifies.
        public var algorithm: String {
            switch self {
            case .rsa: "RS256"
            case .p256: "ES256"
            }
        }

        /// Whether `jwt`'s signature is this key's over its signing input (the caller has checked that its `alg` is
        /// `algorithm`).
        func isValidSignature(of jwt: CompactJWT) -> Bool {
            let input = Data(jwt.signingInput.utf8)
            switch self {
            case .rsa(let publicKey):
                let signature = _RSA.Signing.RSASignature(rawRepresentation: jwt.signature)
                return publicKey.isValidSignature(signature, for: input, padding: .insecurePKCS1v1_5)
            case .p256(let publicKey):
                // JWS ES256 signatures are the raw 64-byte r || s (RFC 7518 §3.4).
                guard jwt.signature.count == 64, let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jwt.signature)
                else { return false }
                return publicKey.isValidSignature(signature, for: input)
            }
        }
    }

    /// Why a key could not be produced.
    public enum LookupError: Error, Sendable, Equatable {
        /// The document (fresh or stale) has no key with this id.
        case unknownKey(String)
        /// No document has ever been fetched successfully; the detail says why the last attempt failed.
        case providerUnavailable(String)
    }

    public let url: String
    public let defaultMaxAge: TimeInterval
    public let maximumMaxAge: TimeInterval
    public let refetchFloor: TimeInterval
    private let http: OutsideHTTP
    private let clock: any FlintClock
    private let state = NIOLockedValueBox(State())

    private struct State {
        var keys: [String: Key]?
        var expiresAt = Date.distantPast
        var lastAttempt: Date?
        var lastFailure: String?
        var inFlight: Task<Void, Never>?
    }

    /// - Parameters:
    ///   - url: the JWKS address, e.g. `https://appleid.apple.com/auth/keys`.
    ///   - http: the client to fetch with (owned, and shut down, by the caller) and its limits.
    public init(url: String, http: OutsideHTTP, clock: any FlintClock,
                defaultMaxAge: TimeInterval = 3600, maximumMaxAge: TimeInterval = 86400,
                refetchFloor: TimeInterval = 60) {
        self.url = url
        self.http = http
        self.clock = clock
        self.defaultMaxAge = defaultMaxAge
        self.maximumMaxAge = maximumMaxAge
        self.refetchFloor = refetchFloor
    }

    /// The key with id `kid`, fetching the document first when it is missing, expired, or lacks the id
    /// (subject to `refetchFloor`).
    public func key(id kid: String) async throws(LookupError) -> Key {
        let now = clock.now()
        let (cached, fresh, mayFetch) = state.withLockedValue { state -> (Key?, Bool, Bool) in
            let mayFetch = state.lastAttempt.map { now.timeIntervalSince($0) >= refetchFloor } ?? true
            return (state.keys?[kid], now < state.expiresAt, mayFetch)
        }
        if let cached, fresh { return cached }
        if mayFetch || state.withLockedValue({ $0.inFlight != nil }) {
            await refresh()
        }
        let result = state.withLockedValue { state -> Result<Key, LookupError> in
            if let key = state.keys?[kid] { return .success(key) }
            guard state.keys != nil else {
                return .failure(.providerUnavailable(state.lastFailure ?? "the key document has not been fetched"))
            }
            return .failure(.unknownKey(kid))
        }
        return try result.get()
    }

    /// Fetches the document now, or joins the fetch already under way. Failures keep the old document.
    public func refresh() async {
        let task = state.withLockedValue { state -> Task<Void, Never> in
            if let inFlight = state.inFlight { return inFlight }
            state.lastAttempt = clock.now()
            let task = Task { await self.fetchAndStore() }
            state.inFlight = task
            return task
        }
        await task.value
    }

    private func fetchAndStore() async {
        let outcome: Result<([String: Key], TimeInterval), FetchError>
        do throws(FetchError) {
            outcome = .success(try await fetch())
        } catch {
            outcome = .failure(error)
        }
        let now = clock.now()
        state.withLockedValue { state in
            switch outcome {
            case .success(let (keys, maxAge)):
                state.keys = keys
                state.expiresAt = now.addingTimeInterval(maxAge)
                state.lastFailure = nil
            case .failure(let error):
                state.lastFailure = error.detail
            }
            state.inFlight = nil
        }
    }

    private struct FetchError: Error {
        var detail: String
    }

    private func fetch() async throws(FetchError) -> ([String: Key], TimeInterval) {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "accept", value: "application/json")
        request.headers.add(name: "user-agent", value: "Flint")
        let answer: DeliveryHTTP.Answer
        do {
            answer = try await http.send(request, to: .jwks)
        } catch {
            throw FetchError(detail: "\(url): \(error)")
        }
        guard answer.isSuccess else { throw FetchError(detail: "\(url): HTTP \(answer.status)") }
        guard let keys = Self.parse(answer.body) else { throw FetchError(detail: "\(url): not a JWKS document") }
        let maxAge = CacheControl.maxAge(answer.headers.first(name: "cache-control")).map { min($0, maximumMaxAge) } ?? defaultMaxAge
        return (keys, maxAge)
    }

    private struct Document: Decodable {
        struct JWK: Decodable {
            var kty: String?
            var kid: String?
            var alg: String?
            var use: String?
            var n: String?
            var e: String?
            var crv: String?
            var x: String?
            var y: String?
        }
        var keys: [JWK]
    }

    /// The signing keys of a JWKS document by id, or nil if it is not one. Keys that are not for
    /// signatures, lack an id, are of another type, or do not decode are skipped.
    static func parse(_ data: Data) -> [String: Key]? {
        guard let document = try? JSONDecoder().decode(Document.self, from: data) else { return nil }
        var keys: [String: Key] = [:]
        for jwk in document.keys {
            guard let kid = jwk.kid, !kid.isEmpty, jwk.use == nil || jwk.use == "sig" else { continue }
            switch jwk.kty {
            case "RSA":
                guard jwk.alg == nil || jwk.alg == "RS256",
                      let n = jwk.n.flatMap(Base64URL.decode), let e = jwk.e.flatMap(Base64URL.decode),
                      let key = try? _RSA.Signing.PublicKey(n: n, e: e)
                else { continue }
                keys[kid] = .rsa(key)
            case "EC":
                guard jwk.crv == "P-256", jwk.alg == nil || jwk.alg == "ES256",
                      let x = jwk.x.flatMap(Base64URL.decode), let y = jwk.y.flatMap(Base64URL.decode),
                      x.count == 32, y.count == 32,
                      let key = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y)
                else { continue }
                keys[kid] = .p256(key)
            default:
                continue
            }
        }
        return keys
    }
}
