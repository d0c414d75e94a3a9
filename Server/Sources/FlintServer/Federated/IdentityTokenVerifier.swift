import Crypto
import FlintWire
import Foundation
import _CryptoExtras

/// Why an outside provider's ID token was refused.
public enum IdentityTokenError: Error, Sendable, Equatable {
    /// Not a compact JWS, too large, or claims that are missing or of the wrong type.
    case malformed(String)
    /// The header `alg` is not RS256/ES256, or does not fit the key (`none` and HS256 always land here).
    case unsupportedAlgorithm(String)
    /// No `kid`, or one the provider does not publish.
    case unknownKey
    case badSignature
    case wrongIssuer
    case wrongAudience
    case expired
    case issuedInFuture
    /// The token's nonce does not match the raw nonce the client sent.
    case nonceMismatch
    /// A nonce on one side only (the token carries one and the client sent none, or the reverse).
    case missingNonce
    /// The provider's keys could not be fetched and none are cached.
    case providerUnavailable(String)

    /// The error the client sees. Kept in one place so the codes are easy to change.
    public var flintError: FlintError {
        switch self {
        case .nonceMismatch, .missingNonce:
            FlintError(.missingOrInvalidNonce)
        case .providerUnavailable(let detail):
            FlintError(.invalidIDPResponse, "The identity provider's keys are unavailable.", status: .serviceUnavailable)
                .withCause(detail)
        case .malformed(let detail):
            FlintError(.invalidIDPResponse, "The ID token is malformed: \(detail)")
        case .unsupportedAlgorithm, .unknownKey, .badSignature:
            FlintError(.invalidIDPResponse, "The ID token's signature is invalid.")
        case .wrongIssuer:
            FlintError(.invalidIDPResponse, "The ID token's issuer is not the expected one.")
        case .wrongAudience:
            FlintError(.invalidIDPResponse, "The ID token's audience is not one of the configured client IDs.")
        case .expired:
            FlintError(.invalidIDPResponse, "The ID token has expired.")
        case .issuedInFuture:
            FlintError(.invalidIDPResponse, "The ID token is issued in the future.")
        }
    }
}

/// The claims of a verified outside ID token.
public struct VerifiedIdentityToken: Sendable, Equatable {
    public var subject: String
    public var issuer: String
    /// Every audience the token names (`aud` may be a string or an array).
    public var audiences: [String]
    public var expiresAt: Int64
    public var issuedAt: Int64?
    public var email: String?
    /// `email_verified`, as a boolean or Apple's `"true"`/`"false"` strings.
    public var emailVerified: Bool?
    /// Apple's `is_private_email` (a relay address), boolean or string.
    public var isPrivateEmail: Bool?
    public var nonce: String?
    public var name: String?
    public var picture: String?
    /// All claims as sent.
    public var claims: [String: JSONValue]
}

/// Verifies ID tokens that outside OpenID providers sign (Sign in with Apple, Facebook Limited Login)
/// against the provider's published keys.
public struct IdentityTokenVerifier: Sendable {
    /// How the token's `nonce` relates to the raw nonce the client sends.
    public enum NonceRule: Sendable {
        /// The token carries lowercase hex SHA-256 of the raw nonce (Apple; Facebook Limited Login when
        /// the app hashed it).
        case sha256Hex
        /// The token carries the raw nonce itself; the hashed form is accepted as well.
        case plain
    }

    /// Tokens larger than this are refused before any decoding.
    public static let maximumLength = 16 * 1024

    public let keys: JWKSCache
    public let clock: any FlintClock
    /// Tolerance for clocks that disagree, applied to `exp` and `iat`.
    public let allowedSkew: TimeInterval

    public init(keys: JWKSCache, clock: any FlintClock, allowedSkew: TimeInterval = 60) {
        self.keys = keys
        self.clock = clock
        self.allowedSkew = allowedSkew
    }

    public func verify(_ token: String, expectedIssuers: [String], audiences: Set<String>, rawNonce: String?,
                       nonceRule: NonceRule = .sha256Hex) async throws(IdentityTokenError) -> VerifiedIdentityToken {
        guard token.utf8.count <= Self.maximumLength else { throw .malformed("too large") }
        guard let jwt = CompactJWT(token), let header = jwt.header() else { throw .malformed("not a compact JWS") }
        guard header.alg == "RS256" || header.alg == "ES256" else { throw .unsupportedAlgorithm(header.alg) }
        guard let kid = header.kid, !kid.isEmpty else { throw .unknownKey }

        let key: JWKSCache.Key
        do {
            key = try await keys.key(id: kid)
        } catch {
            switch error {
            case .unknownKey: throw .unknownKey
            case .providerUnavailable(let detail): throw .providerUnavailable(detail)
            }
        }
        guard key.algorithm == header.alg else { throw .unsupportedAlgorithm(header.alg) }
        guard key.isValidSignature(of: jwt) else { throw .badSignature }

        let claims: [String: JSONValue]
        do {
            claims = try JSONDecoder().decode([String: JSONValue].self, from: jwt.payload)
        } catch {
            throw .malformed("claims are not a JSON object")
        }
        let verified = try Self.readClaims(claims)

        guard expectedIssuers.contains(verified.issuer) else { throw .wrongIssuer }
        guard verified.audiences.contains(where: audiences.contains) else { throw .wrongAudience }
        let now = clock.now().timeIntervalSince1970
        guard Double(verified.expiresAt) + allowedSkew > now else { throw .expired }
        if let issuedAt = verified.issuedAt, Double(issuedAt) - allowedSkew > now { throw .issuedInFuture }
        try Self.checkNonce(token: verified.nonce, raw: rawNonce, rule: nonceRule)
        return verified
    }


    private static func checkNonce(token: String?, raw: String?, rule: NonceRule) throws(IdentityTokenError) {
        switch (token, raw) {
        case (nil, nil): return
        case (nil, _?), (_?, nil): throw .missingNonce
        case let (token?, raw?):
            let hashed = Hex.sha256(raw)
            let matches = switch rule {
            case .sha256Hex: token == hashed
            case .plain: token == hashed || token == raw
            }
            guard matches else { throw .nonceMismatch }
        }
    }

    private static func readClaims(_ claims: [String: JSONValue]) throws(IdentityTokenError) -> VerifiedIdentityToken {
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw .malformed("no sub") }
        guard let issuer = claims["iss"]?.stringValue else { throw .malformed("no iss") }
        let audiences: [String]
        switch claims["aud"] {
        case .string(let audience)?: audiences = [audience]
        case .array(let values)?: audiences = values.compactMap(\.stringValue)
        default: throw .malformed("no aud")
        }
        guard let expiresAt = claims["exp"]?.numberValue.flatMap({ Int64(exactly: $0.rounded(.down)) }) else {
            throw .malformed("no exp")
        }
        let issuedAt: Int64?
        switch claims["iat"] {
        case nil, .null?: issuedAt = nil
        case .number(let value)?:
            guard let seconds = Int64(exactly: value.rounded(.down)) else { throw .malformed("bad iat") }
            issuedAt = seconds
        default: throw .malformed("bad iat")
        }
        return VerifiedIdentityToken(
            subject: subject, issuer: issuer, audiences: audiences, expiresAt: expiresAt, issuedAt: issuedAt,
            email: claims["email"]?.stringValue,
            emailVerified: flag(claims["email_verified"]),
            isPrivateEmail: flag(claims["is_private_email"]),
            nonce: claims["nonce"]?.stringValue,
            name: claims["name"]?.stringValue,
            picture: pictureURL(claims["picture"]),
            claims: claims)
    }

    /// A boolean claim sent as a boolean or as the string `"true"`/`"false"` (Apple).
    static func flag(_ value: JSONValue?) -> Bool? {
        switch value {
        case .bool(let flag)?: flag
        case .string("true")?: true
        case .string("false")?: false
        default: nil
        }
    }

    /// `picture` as a URL string; Facebook may nest it as `{"data": {"url": …}}`.
    static func pictureURL(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let url)?: url
        case .object(let object)?:
            if case .object(let data)? = object["data"] { data["url"]?.stringValue } else { object["url"]?.stringValue }
        default: nil
        }
    }
}
