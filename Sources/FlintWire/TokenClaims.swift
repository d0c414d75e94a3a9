/// The `firebase` claim of an ID token.
public struct FirebaseClaim: Codable, Sendable, Equatable {
    /// Provider id → identifiers, e.g. `"email": ["a@example.com"]`, `"phone": ["+15555550100"]`.
    public var identities: [String: [String]]
    public var signInProvider: String
    public var signInSecondFactor: String?
    public var secondFactorIdentifier: String?
    public var tenant: String?
    /// Flint's addition: the account's session epoch when the session began (absent for 0). The server
    /// refuses the token once a revocation has moved the account's epoch past it.
    public var sessionEpoch: Int64?
    /// A SAML sign-in's attribute statement (Identity Platform's `sign_in_attributes`).
    public var signInAttributes: JSONValue?

    public init(identities: [String: [String]], signInProvider: String, signInSecondFactor: String? = nil,
                secondFactorIdentifier: String? = nil, tenant: String? = nil, sessionEpoch: Int64? = nil,
                signInAttributes: JSONValue? = nil) {
        self.sessionEpoch = sessionEpoch
        self.signInAttributes = signInAttributes
        self.identities = identities
        self.signInProvider = signInProvider
        self.signInSecondFactor = signInSecondFactor
        self.secondFactorIdentifier = secondFactorIdentifier
        self.tenant = tenant
    }

    enum CodingKeys: String, CodingKey {
        case identities
        case signInProvider = "sign_in_provider"
        case signInSecondFactor = "sign_in_second_factor"
        case secondFactorIdentifier = "second_factor_identifier"
        case tenant
        case sessionEpoch = "session_epoch"
        case signInAttributes = "sign_in_attributes"
    }
}

/// The standard claims of a Firebase ID token. Custom claims are carried beside these, see `IDTokenPayload`.
public struct IDTokenClaims: Codable, Sendable, Equatable {
    public var iss: String
    public var aud: String
    public var authTime: Int64
    public var userId: String
    public var sub: String
    public var iat: Int64
    public var exp: Int64
    public var email: String?
    public var emailVerified: Bool?
    public var phoneNumber: String?
    public var name: String?
    public var picture: String?
    /// `"anonymous"` for anonymous users only, as Firebase does.
    public var providerId: String?
    /// The session the token belongs to (Flint's; Firebase's SDKs ignore it): the `sessionId` of the sessions API.
    public var sid: String?
    public var firebase: FirebaseClaim

    public init(iss: String, aud: String, authTime: Int64, userId: String, iat: Int64, exp: Int64,
                email: String? = nil, emailVerified: Bool? = nil, phoneNumber: String? = nil, name: String? = nil,
                picture: String? = nil, providerId: String? = nil, sid: String? = nil, firebase: FirebaseClaim) {
        self.iss = iss
        self.aud = aud
        self.authTime = authTime
        self.userId = userId
        self.sub = userId
        self.iat = iat
        self.exp = exp
        self.email = email
        self.emailVerified = emailVerified
        self.phoneNumber = phoneNumber
        self.name = name
        self.picture = picture
        self.providerId = providerId
        self.sid = sid
        self.firebase = firebase
    }

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case iss, aud, sub, iat, exp, email, name, picture, sid, firebase
        case authTime = "auth_time"
        case userId = "user_id"
        case emailVerified = "email_verified"
        case phoneNumber = "phone_number"
        case providerId = "provider_id"
    }

    /// Claim names custom claims may not use (Firebase's reserved list).
    public static let reservedNames: Set<String> = [
        "iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf",
        "auth_time", "firebase", "at_hash", "c_hash", "user_id",
    ]
}
