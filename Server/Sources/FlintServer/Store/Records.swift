/// A user as Flint stores it. Timestamps follow Firebase: `createdAt`, `lastLoginAt`, `lastRefreshAt` and
/// `passwordUpdatedAt` in epoch milliseconds, `validSince` in epoch seconds.
///
/// The `password` and `phone` identities are not stored separately: they follow from `passwordHash`
/// and `phoneNumber`. Only federated identities (Apple, Facebook, …) are rows of their own.
public struct UserAccount: Sendable, Equatable {
    /// The realm's key: the project's ID, or its tenant's (see `Realm`).
    public var projectID: String
    public var localID: String
    public var email: String?
    public var emailVerified = false
    public var displayName: String?
    public var photoURL: String?
    public var phoneNumber: String?
    /// Base64 of the password hash, in the project's hash configuration (see `PasswordHasher`).
    public var passwordHash: String?
    public var passwordSalt: String?
    public var passwordUpdatedAt: Int64?
    public var disabled = false
    /// Custom claims as a JSON object string.
    public var customAttributes: String?
    /// ID tokens issued before this second, and refresh tokens created before it, are revoked (the wire's
    /// `validSince`; an admin may set it).
    public var validSince: Int64
    /// Counts the revocations of the account's sessions. Each session (refresh token, and the ID tokens
    /// minted from it) records the epoch it began in and dies once the account's moves past it: exact,
    /// where `validSince` has whole seconds only, and ordered by the row lock, not by clocks.
    public var sessionEpoch: Int64
    public var createdAt: Int64
    public var lastLoginAt: Int64?
    public var lastRefreshAt: Int64?
    public var emailLinkSignin = false
    public var identities: [FederatedIdentity] = []
    /// Enrolled second factors.
    public var mfaFactors: [SecondFactor] = []
    /// Enrolled passkeys (WebAuthn credentials), each unique in its realm.
    public var passkeys: [Passkey] = []
    /// Set for an imported password hash made another way than the project's own scrypt.
    public var importedPasswordHash: ImportedPasswordHash?

    public init(projectID: String, localID: String, createdAt: Int64) {
        self.projectID = projectID
        self.localID = localID
        self.createdAt = createdAt
        self.validSince = createdAt / 1000
        self.sessionEpoch = 0
    }

    public var hasPassword: Bool { passwordHash != nil }

    /// A user with no way to sign in again but their refresh token.
    public var isAnonymous: Bool {
        email == nil && phoneNumber == nil && passwordHash == nil && identities.isEmpty && passkeys.isEmpty
    }
}

/// An enrolled second factor: a phone number that receives codes, or a TOTP authenticator.
public struct SecondFactor: Codable, Sendable, Equatable {
    /// Firebase's limit on enrolled factors per account.
    static let maximumPerAccount = 5

    public enum Kind: String, Codable, Sendable {
        case phone
        case totp
    }

    /// `mfaEnrollmentId`.
    public var enrollmentID: String
    public var kind: Kind
    public var displayName: String?
    public var phoneNumber: String?
    /// TOTP: the shared secret, sealed with the master key.
    public var sealedSecret: String?
    /// Epoch milliseconds.
    public var enrolledAt: Int64

    public init(enrollmentID: String, kind: Kind, displayName: String? = nil, phoneNumber: String? = nil,
                sealedSecret: String? = nil, enrolledAt: Int64) {
        self.enrollmentID = enrollmentID
        self.kind = kind
        self.displayName = displayName
        self.phoneNumber = phoneNumber
        self.sealedSecret = sealedSecret
        self.enrolledAt = enrolledAt
    }
}

/// An enrolled passkey: a WebAuthn credential of the account's.
public struct Passkey: Codable, Sendable, Equatable {
    /// The credential's ID, base64url (WebAuthn's JSON form); unique in the realm.
    public var credentialID: String
    public var name: String
    /// The credential's public key, base64url of its COSE form; nil for the emulator's unverified credentials.
    public var publicKey: String?
    /// The key's COSE algorithm (-7 ES256, -8 EdDSA, -257 RS256); nil with `publicKey`.
    public var algorithm: Int?
    /// The authenticator's signature counter when last used; a counter that goes back is refused.
    public var signCount: Int64
    /// Epoch milliseconds.
    public var createdAt: Int64
    /// Epoch milliseconds of the last sign-in with it (production mode).
    public var lastUsedAt: Int64?

    public init(credentialID: String, name: String, publicKey: String? = nil, algorithm: Int? = nil, signCount: Int64 = 0,
                createdAt: Int64, lastUsedAt: Int64? = nil) {
        self.credentialID = credentialID
        self.name = name
        self.publicKey = publicKey
        self.algorithm = algorithm
        self.signCount = signCount
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// The second factor a session passed: its kind (`phone`, `totp`) and enrollment id, for the ID token's
/// `sign_in_second_factor` and `second_factor_identifier` claims.
public struct PassedSecondFactor: Sendable, Equatable {
    public var kind: String
    public var enrollmentID: String

    public init(kind: String, enrollmentID: String) {
        self.kind = kind
        self.enrollmentID = enrollmentID
    }
}

/// A link between a user and an outside identity provider account.
public struct FederatedIdentity: Sendable, Equatable {
    public var providerID: String
    public var rawID: String
    public var email: String?
    public var displayName: String?
    public var photoURL: String?
    public var screenName: String?

    public init(providerID: String, rawID: String, email: String? = nil, displayName: String? = nil,
                photoURL: String? = nil, screenName: String? = nil) {
        self.providerID = providerID
        self.rawID = rawID
        self.email = email
        self.displayName = displayName
        self.photoURL = photoURL
        self.screenName = screenName
    }
}

/// What a refresh token stands for. The token itself is never stored, only its SHA-256.
public struct RefreshTokenRecord: Sendable, Equatable {
    public var projectID: String
    public var localID: String
    public var signInProvider: String
    /// Epoch seconds of the sign-in the token descends from (the ID tokens' `auth_time`).
    public var authTime: Int64
    /// Epoch seconds.
    public var createdAt: Int64
    /// The second factor the sign-in passed, if any.
    public var secondFactor: PassedSecondFactor?
    /// Developer claims of a custom-token sign-in (a JSON object string), carried by every ID token of the session.
    public var sessionClaims: String?
    /// A SAML sign-in's attribute statement (a JSON object string): every ID token of the session carries it as
    /// `firebase.sign_in_attributes`, as Identity Platform's do.
    public var signInAttributes: String?
    /// The user's `sessionEpoch` when the session began; a later revocation ends it.
    public var sessionEpoch: Int64
    /// Epoch seconds the token was last used (kept to `TokenService.lastUsedGranularity`).
    public var lastUsedAt: Int64
    /// The session's public ID: its ID tokens' `sid`, what the sessions API names it by (never the token).
    public var sessionID = ""
    /// Where the sign-in came from, and the last refresh that was written down.
    public var createdFrom = SessionOrigin()
    public var lastUsedFrom = SessionOrigin()
    /// When its user or an admin ended it (epoch seconds), if they did.
    public var endedAt: Int64?

    public init(projectID: String, localID: String, signInProvider: String, authTime: Int64, createdAt: Int64,
                secondFactor: PassedSecondFactor? = nil, sessionClaims: String? = nil, sessionEpoch: Int64 = 0) {
        self.sessionEpoch = sessionEpoch
        self.secondFactor = secondFactor
        self.sessionClaims = sessionClaims
        self.projectID = projectID
        self.localID = localID
        self.signInProvider = signInProvider
        self.authTime = authTime
        self.createdAt = createdAt
        self.lastUsedAt = createdAt
    }
}

/// The client a session was used from: its address and its `User-Agent` (cut to 512 bytes).
public struct SessionOrigin: Sendable, Equatable {
    public var ipAddress: String?
    public var userAgent: String?

    public init(ipAddress: String? = nil, userAgent: String? = nil) {
        self.ipAddress = ipAddress
        self.userAgent = userAgent.map { String(decoding: $0.utf8.prefix(512), as: UTF8.self) }
    }
}

/// A session about to begin: the SHA-256 of its refresh token and what the token stands for.
public struct NewSession: Sendable {
    public var tokenHash: String
    public var record: RefreshTokenRecord

    public init(tokenHash: String, record: RefreshTokenRecord) {
        self.tokenHash = tokenHash
        self.record = record
    }
}

/// A token-signing key. The private key is sealed with the master key; only its owner process opens it.
public struct SigningKeyRecord: Sendable, Equatable {
    public var kid: String
    public var publicKeyPEM: String
    public var certificatePEM: String
    public var sealedPrivateKey: String
    /// Epoch seconds; the newest key signs, all keys verify.
    public var createdAt: Int64
}

/// How many signing keys are stored and when the newest was made. A rotation adds a key newer than all others
/// and a retirement removes one that is not the newest, so either changes this.
public struct SigningKeySetVersion: Sendable, Equatable {
    public var count: Int64
    public var newest: Int64?
}

extension SigningKeySetVersion {
    init(_ records: [SigningKeyRecord]) {
        self.init(count: Int64(records.count), newest: records.map(\.createdAt).max())
    }
}

/// The columns whose uniqueness the schema enforces.
public enum UniqueField: Sendable, Equatable {
    case localID, email, phoneNumber, federatedIdentity, passkeyCredential
}

public enum StoreError: Error, Equatable {
    case duplicate(UniqueField)
    /// A compare-and-swap lost to another writer more times than it retries.
    case contended
}
