import Crypto
import FlintWire
import Foundation
import NIOConcurrencyHelpers
import _CryptoExtras

/// RFC 7523 §2.2 and §3 client assertions (OpenID Connect Core §9's `private_key_jwt`): a confidential client registered
/// with a JWKS URI proves itself with a JWT it signs with one of the keys published there.
///
/// - The JWT is RS256 or ES256 (by its `kid`, whose key must be of that type); `none`, HS256 and every other `alg` are
///   refused, so the public key cannot be used as an HMAC secret.
/// - `iss` and `sub` are the client's ID; `aud` names the token endpoint, the issuer, or the endpoint called.
/// - `exp` is in the future and at most an hour ahead; `iat` and `nbf` not beyond the allowed skew.
/// - `jti` is used once: a store-backed marker per client and hash of the `jti`, kept until `exp`, refuses a replay on
///   every node. It is taken only after everything else checks out, so a forged assertion spends no one's `jti`.
struct ClientAssertions: Sendable {
    /// `client_assertion_type`'s one value (RFC 7523 §2.2).
    static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    /// The longest an assertion may live: `exp` at most this far ahead.
    static let maximumLifetime: Int64 = 3600
    /// Clocks that disagree: `iat` and `nbf` may be this far ahead.
    static let allowedSkew: Int64 = 300
    /// Assertions larger than this are refused before any decoding.
    static let maximumLength = 8 * 1024

    let http: OutsideHTTP
    let counters: CounterStore
    let clock: any FlintClock
    private let caches: JWKSCaches

    init(http: OutsideHTTP, counters: CounterStore, clock: any FlintClock) {
        self.http = http
        self.counters = counters
        self.clock = clock
        caches = JWKSCaches(http: http, clock: clock)
    }

    /// The client an assertion says it is from (`iss`, else `sub`), unverified: to find the client whose keys check it
    /// when the form names none.
    static func claimedClient(_ assertion: String) -> String? {
        guard assertion.utf8.count <= maximumLength, let jwt = CompactJWT(assertion),
              let claims = try? JSONDecoder().decode([String: JSONValue].self, from: jwt.payload)
        else { return nil }
        return claims["iss"]?.stringValue ?? claims["sub"]?.stringValue
    }

    /// Checks `assertion` for the client `clientID` whose keys are at `jwksURI`, `audiences` the values its `aud` may
    /// name; throws `invalid_client` saying why not.
    func verify(_ assertion: String, clientID: String, jwksURI: String, audiences: Set<String>) async throws(OAuthError) {
        let cache = caches.cache(for: jwksURI)
        try await verify(assertion, clientID: clientID, audiences: audiences) { kid throws(OAuthError) in
            do throws(JWKSCache.LookupError) {
                return try await cache.key(id: kid)
            } catch {
                switch error {
                case .unknownKey: throw Self.refusal("the client's JWKS has no key \(kid)")
                case .providerUnavailable: throw Self.refusal("the client's JWKS could not be fetched")
                }
            }
        }
    }

    /// Checks `assertion` for `clientID`, its key the one `key` gives for the header's `kid` (a service account's own).
    func verify(_ assertion: String, clientID: String, audiences: Set<String>,
                key keyOf: (String) async throws(OAuthError) -> JWKSCache.Key) async throws(OAuthError) {
        let refuse = Self.refusal
        guard assertion.utf8.count <= Self.maximumLength, let jwt = CompactJWT(assertion), let header = jwt.header() else {
            throw refuse("not a compact JWS")
        }
        guard header.alg == "RS256" || header.alg == "ES256" else { throw refuse("alg must be RS256 or ES256") }
        guard let kid = header.kid, !kid.isEmpty else { throw refuse("the header names no kid") }
        let key = try await keyOf(kid)
        guard key.algorithm == header.alg else { throw refuse("key \(kid) is not for \(header.alg)") }
        guard key.isValidSignature(of: jwt) else { throw refuse("bad signature") }

        guard let claims = try? JSONDecoder().decode([String: JSONValue].self, from: jwt.payload) else {
            throw refuse("its claims are not a JSON object")
        }
        guard claims["iss"]?.stringValue == clientID, claims["sub"]?.stringValue == clientID else {
            throw refuse("iss and sub must both be the client's ID")
        }
        let audience: [String] = switch claims["aud"] {
        case .string(let value)?: [value]
        case .array(let values)?: values.compactMap(\.stringValue)
        default: []
        }
        guard audience.contains(where: audiences.contains) else { throw refuse("aud must name this provider's token endpoint") }
        let now = clock.seconds
        guard let expiresAt = Self.seconds(claims["exp"]) else { throw refuse("exp is missing") }
        guard expiresAt > now else { throw refuse("it has expired") }
        guard expiresAt <= now + Self.maximumLifetime else { throw refuse("exp is more than an hour ahead") }
        for name in ["iat", "nbf"] where claims[name] != nil && claims[name] != .null {
            guard let instant = Self.seconds(claims[name]) else { throw refuse("\(name) is not a number") }
            guard instant <= now + Self.allowedSkew else { throw refuse("\(name) is in the future") }
        }
        guard let jti = claims["jti"]?.stringValue, (1...256).contains(jti.utf8.count) else { throw refuse("jti is missing") }
        let firstUse: Bool
        do {
            firstUse = try await counters.claimOnce("oauth-client-assertion:\(clientID):\(Hex.sha256(jti))", keepUntil: expiresAt)
        } catch {
            throw OAuthError(.serverError)
        }
        guard firstUse else { throw refuse("its jti was used before") }
    }

    static func refusal(_ reason: String) -> OAuthError {
        OAuthError(.invalidClient, "The client assertion is not valid: \(reason).")
    }

    /// A NumericDate claim as whole seconds.
    private static func seconds(_ value: JSONValue?) -> Int64? {
        guard let number = value?.numberValue, number.isFinite, abs(number) < 1e15 else { return nil }
        return Int64(number.rounded(.down))
    }

}

/// One `JWKSCache` per client JWKS URI, shared by every request: at most `capacity` of them, all dropped when full
/// (each refetches on its next use), so made-up URIs cannot grow it without bound.
private final class JWKSCaches: Sendable {
    static let capacity = 1000

    private let http: OutsideHTTP
    private let clock: any FlintClock
    private let caches = NIOLockedValueBox([String: JWKSCache]())

    init(http: OutsideHTTP, clock: any FlintClock) {
        self.http = http
        self.clock = clock
    }

    func cache(for url: String) -> JWKSCache {
        caches.withLockedValue { caches in
            if let cache = caches[url] { return cache }
            if caches.count >= Self.capacity { caches.removeAll() }
            // A client's keys change when its admin rotates them: kept five minutes unless the document says otherwise.
            let cache = JWKSCache(url: url, http: http, clock: clock, defaultMaxAge: 300, maximumMaxAge: 3600, refetchFloor: 30)
            caches[url] = cache
            return cache
        }
    }
}
