import FlintWire
import Foundation

/// The JSON of a claim.
public typealias JSONValue = FlintWire.JSONValue

/// A verified ID token or session cookie: who it names, when it was issued, how the user signed in, and every claim
/// (the developer's custom claims among them).
public struct DecodedIDToken: Sendable, Equatable {
    /// The user's uid (`sub`).
    public let uid: String
    public let issuer: String
    /// The project ID (`aud`).
    public let audience: String
    public let issuedAt: Date
    public let expiresAt: Date
    /// When the user signed in (`auth_time`), which refreshes keep.
    public let authTime: Date
    /// `firebase.sign_in_provider`: `password`, `phone`, `google.com`, `custom`, …
    public let signInProvider: String?
    /// The tenant the user belongs to (`firebase.tenant`), nil for the project's own users.
    public let tenantID: String?
    /// Every claim of the token, as JSON.
    public let claims: [String: JSONValue]

    public var email: String? { claims["email"]?.stringValue }
    public var emailVerified: Bool? { claims["email_verified"]?.boolValue }
    public var phoneNumber: String? { claims["phone_number"]?.stringValue }
    public var name: String? { claims["name"]?.stringValue }
    public var picture: String? { claims["picture"]?.stringValue }

    /// The session the token belongs to (`sid`): the sign-in that began it, one of the user's
    /// ``AdminAuth/sessions(uid:)``. Flint's tokens carry it; Firebase's do not.
    public var sessionID: String? { claims["sid"]?.stringValue }

    /// One claim by name, e.g. a custom claim set with `setCustomUserClaims`.
    public subscript(claim: String) -> JSONValue? { claims[claim] }

    init(claims: [String: JSONValue], uid: String, issuedAt: Int64, expiresAt: Int64, authTime: Int64) {
        self.claims = claims
        self.uid = uid
        issuer = claims["iss"]?.stringValue ?? ""
        audience = claims["aud"]?.stringValue ?? ""
        self.issuedAt = Date(timeIntervalSince1970: TimeInterval(issuedAt))
        self.expiresAt = Date(timeIntervalSince1970: TimeInterval(expiresAt))
        self.authTime = Date(timeIntervalSince1970: TimeInterval(authTime))
        let firebase = claims["firebase"]?.objectValue
        signInProvider = firebase?["sign_in_provider"]?.stringValue
        tenantID = firebase?["tenant"]?.stringValue
    }
}
