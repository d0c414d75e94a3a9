import FlintWire
import Foundation

/// A verified OAuth access token of a project's (or tenant's) OpenID provider (RFC 9068): who it names, which client
/// holds it, what it may do, and every claim. ``AdminAuth/verifyAccessToken(_:resource:requiredScopes:checkRevoked:)``
/// makes it.
public struct VerifiedAccessToken: Sendable, Equatable {
    /// The user's uid (`sub`).
    public let subject: String
    /// The OAuth client the token was issued to (`client_id`).
    public let clientID: String
    /// The scopes granted (`scope`, space-separated), in the token's order.
    public let scopes: [String]
    /// The resources the token is for (`aud`, one string or an array); the resource it was verified for is among them.
    public let audiences: [String]
    /// The realm's issuer (`iss`): `<Flint URL>/<project>` or `<Flint URL>/<project>/tenants/<tenant>`.
    public let issuer: String
    public let issuedAt: Date
    public let expiresAt: Date
    /// When the user signed in (`auth_time`), if the token says.
    public let authTime: Date?
    /// The tenant of the user (`tenant`), nil for the project's own users.
    public let tenantID: String?
    /// The token's own identifier (`jti`).
    public let tokenID: String?
    /// Every claim of the token, as JSON.
    public let claims: [String: JSONValue]

    /// The user's uid: `subject`, named as ``DecodedIDToken/uid`` is.
    public var uid: String { subject }

    /// Whether the token was granted `scope`.
    public func hasScope(_ scope: String) -> Bool { scopes.contains(scope) }

    /// One claim by name.
    public subscript(claim: String) -> JSONValue? { claims[claim] }

    init(claims: [String: JSONValue], subject: String, clientID: String, scopes: [String], audiences: [String],
         issuedAt: Int64, expiresAt: Int64) {
        self.claims = claims
        self.subject = subject
        self.clientID = clientID
        self.scopes = scopes
        self.audiences = audiences
        issuer = claims["iss"]?.stringValue ?? ""
        self.issuedAt = Date(timeIntervalSince1970: TimeInterval(issuedAt))
        self.expiresAt = Date(timeIntervalSince1970: TimeInterval(expiresAt))
        authTime = claims["auth_time"]?.numberValue.map { Date(timeIntervalSince1970: $0.rounded(.down)) }
        tenantID = claims["tenant"]?.stringValue
        tokenID = claims["jti"]?.stringValue
    }
}
