import Foundation

/// Why ``AdminAuth/verifyAccessToken(_:resource:requiredScopes:checkRevoked:)`` refused an access token: the token's
/// fault, which a resource server answers with 401 (or 403 for ``Code/insufficientScope``) and the challenge
/// ``ProtectedResourceMetadata/challenge(for:includeDescription:)`` makes. When the token could not be checked at
/// all (the keys or the introspection endpoint unreachable, no introspection client configured) the call throws an
/// ``AdminError`` instead, which is the resource server's fault, not the caller's.
public struct AccessTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the token, in the style of ``AdminError/Code``.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Not an access token of this issuer for this resource: malformed, of another type (`typ` is not
        /// `at+jwt`), signed by a key the issuer does not publish or not RS256, of another issuer or audience, not yet
        /// valid, or lacking a claim RFC 9068 requires.
        public static let invalidAccessToken = Code(rawValue: "auth/invalid-access-token")
        /// Past its `exp`.
        public static let accessTokenExpired = Code(rawValue: "auth/access-token-expired")
        /// The issuer's introspection endpoint says it is no longer active: revoked (RFC 7009), or its user disabled
        /// or deleted.
        public static let accessTokenRevoked = Code(rawValue: "auth/access-token-revoked")
        /// Valid, but not granted every scope the call requires; ``AccessTokenError/missingScopes`` names those it lacks.
        public static let insufficientScope = Code(rawValue: "auth/insufficient-scope")
    }

    public let code: Code
    /// A sentence for people (the server's logs; not meant for the client).
    public let message: String
    /// The scopes the call required (``Code/insufficientScope`` only; empty otherwise).
    public let requiredScopes: [String]
    /// Those of `requiredScopes` the token was not granted (``Code/insufficientScope`` only; empty otherwise).
    public let missingScopes: [String]

    public init(_ code: Code, _ message: String, requiredScopes: [String] = [], missingScopes: [String] = []) {
        self.code = code
        self.message = message
        self.requiredScopes = requiredScopes
        self.missingScopes = missingScopes
    }

    public var description: String { "\(code): \(message)" }

    /// RFC 6750's error code for the challenge: `insufficient_scope` or `invalid_token`.
    public var bearerError: String { code == .insufficientScope ? "insufficient_scope" : "invalid_token" }

    /// The HTTP status a resource server answers with (RFC 6750 §3.1): 403 for ``Code/insufficientScope``, else 401.
    public var httpStatus: Int { code == .insufficientScope ? 403 : 401 }
}

extension AdminError.Code {
    /// `verifyAccessToken(checkRevoked: true)` on a client without an introspection client
    /// (``AdminAuth/introspecting(clientID:clientSecret:cacheLifetime:)``).
    public static let missingIntrospectionClient = AdminError.Code(rawValue: "auth/missing-introspection-client")
}
