// Admin-only account operations: import (`accounts:batchCreate`), bulk delete (`accounts:batchDelete`),
// query (`accounts:query`) and session cookies (`projects/{p}:createSessionCookie`). Field names are Firebase's.

/// `projects/{p}/accounts:batchCreate`: users to import, with the hash algorithm their `passwordHash`es
/// were made with. Byte fields (`signerKey`, `saltSeparator`, users' `passwordHash` and `salt`) are base64,
/// standard or URL-safe.
public struct BatchCreateRequest: Codable, Sendable {
    public var users: [UserRecord]?
    /// `SCRYPT` (Firebase's modified scrypt), `STANDARD_SCRYPT`, `PBKDF2_SHA256`, `HMAC_SHA256`,
    /// `HMAC_SHA512`, `SHA256`, `SHA512`.
    public var hashAlgorithm: String?
    /// `SCRYPT`: the signer key; `HMAC_*`: the HMAC key.
    public var signerKey: String?
    public var saltSeparator: String?
    /// `SCRYPT`: r; `PBKDF2_*`, `SHA*`: iterations.
    public var rounds: Int?
    /// `SCRYPT`: log2 of N.
    public var memoryCost: Int?
    /// `STANDARD_SCRYPT`: N, r, p and the key length.
    public var cpuMemCost: Int?
    public var blockSize: Int?
    public var parallelization: Int?
    public var dkLen: Int?
    /// `SALT_AND_PASSWORD` or `PASSWORD_AND_SALT` (for `HMAC_*`/`SHA*`; default salt first).
    public var passwordHashOrder: String?
    public var allowOverwrite: Bool?
    public var sanityCheck: Bool?
    /// The legacy v3 `uploadAccount` names the project here.
    public var targetProjectId: String?
    public var tenantId: String?

    public init(users: [UserRecord], hashAlgorithm: String? = nil) {
        self.users = users
        self.hashAlgorithm = hashAlgorithm
    }
}

/// The legacy v3 `downloadAccount`: a page of users (as `accounts:batchGet` gives it) of `targetProjectId`.
public struct DownloadAccountRequest: Codable, Sendable {
    public var targetProjectId: String?
    public var maxResults: LenientString?
    public var nextPageToken: String?
}

/// Per-user failures of an import; users not listed were imported.
public struct BatchCreateResponse: Codable, Sendable {
    public struct Failure: Codable, Sendable, Equatable {
        public var index: Int
        public var message: String

        public init(index: Int, message: String) {
            self.index = index
            self.message = message
        }
    }

    public var error: [Failure]?

    public init(error: [Failure]? = nil) { self.error = error }
}

/// `projects/{p}/accounts:batchDelete`: enabled users are skipped unless `force`.
public struct BatchDeleteRequest: Codable, Sendable {
    public var localIds: [String]?
    public var force: Bool?
    public var tenantId: String?

    public init(localIds: [String], force: Bool? = nil) {
        self.localIds = localIds
        self.force = force
    }
}

public struct BatchDeleteResponse: Codable, Sendable {
    public struct Failure: Codable, Sendable, Equatable {
        public var index: Int
        public var localId: String
        public var message: String

        public init(index: Int, localId: String, message: String) {
            self.index = index
            self.localId = localId
            self.message = message
        }
    }

    public var errors: [Failure]?

    public init(errors: [Failure]? = nil) { self.errors = errors }
}

/// `projects/{p}/accounts:query`: a page of users (by local id), or only their count.
public struct QueryAccountsRequest: Codable, Sendable {
    public var returnUserInfo: Bool?
    public var limit: LenientString?
    public var offset: LenientString?
    public var tenantId: String?
}

public struct QueryAccountsResponse: Codable, Sendable {
    public var recordsCount: String
    public var userInfo: [UserRecord]?

    public init(recordsCount: String, userInfo: [UserRecord]? = nil) {
        self.recordsCount = recordsCount
        self.userInfo = userInfo
    }
}

/// `projects/{p}:createSessionCookie`: a session cookie for the user of `idToken`, valid `validDuration`
/// seconds (5 minutes to 14 days).
public struct CreateSessionCookieRequest: Codable, Sendable {
    public var idToken: String?
    public var validDuration: LenientString?
    public var tenantId: String?

    public init(idToken: String? = nil, validDuration: LenientString? = nil) {
        self.idToken = idToken
        self.validDuration = validDuration
    }
}

public struct CreateSessionCookieResponse: Codable, Sendable {
    public var sessionCookie: String

    public init(sessionCookie: String) { self.sessionCookie = sessionCookie }
}
