import FlintWire
import Foundation

/// A user to import with `importUsers`, password hash and all.
public struct UserImportRecord: Sendable {
    public var uid: String
    public var email: String?
    public var emailVerified: Bool?
    public var displayName: String?
    public var photoURL: String?
    public var phoneNumber: String?
    public var disabled: Bool?
    public var creationTime: Date?
    public var lastSignInTime: Date?
    public var customClaims: [String: JSONValue]?
    /// Linked identities: provider id (`google.com`), the user's id there, and what the provider says of them.
    public var providerData: [ImportedIdentity]
    /// The hash, made as `UserImportHash` says; its salt beside it.
    public var passwordHash: Data?
    public var passwordSalt: Data?

    public init(uid: String, email: String? = nil, emailVerified: Bool? = nil, displayName: String? = nil,
                photoURL: String? = nil, phoneNumber: String? = nil, disabled: Bool? = nil, creationTime: Date? = nil,
                lastSignInTime: Date? = nil, customClaims: [String: JSONValue]? = nil, providerData: [ImportedIdentity] = [],
                passwordHash: Data? = nil, passwordSalt: Data? = nil) {
        self.uid = uid
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.disabled = disabled
        self.creationTime = creationTime
        self.lastSignInTime = lastSignInTime
        self.customClaims = customClaims
        self.providerData = providerData
        self.passwordHash = passwordHash
        self.passwordSalt = passwordSalt
    }

    /// The record as the server takes it, once it passes firebase-admin's checks of an imported user.
    func wire() throws -> FlintWire.UserRecord {
        try Check.profile(uid: uid, email: email, phoneNumber: phoneNumber, password: nil, displayName: displayName,
                          photoURL: photoURL)
        if let creationTime { try Check.timestamp(creationTime, code: .invalidCreationTime) }
        if let lastSignInTime { try Check.timestamp(lastSignInTime, code: .invalidLastSignInTime) }
        for identity in providerData { try identity.check() }
        var user = FlintWire.UserRecord(localId: uid)
        user.email = email
        user.emailVerified = emailVerified
        user.displayName = displayName
        user.photoUrl = photoURL
        user.phoneNumber = phoneNumber
        user.disabled = disabled
        user.createdAt = creationTime.map { String(Int64($0.timeIntervalSince1970 * 1000)) }
        user.lastLoginAt = lastSignInTime.map { String(Int64($0.timeIntervalSince1970 * 1000)) }
        user.customAttributes = try customClaims.map(CustomClaims.encode)
        user.providerUserInfo = providerData.isEmpty ? nil : providerData.map(\.wire)
        user.passwordHash = passwordHash.map(Base64URL.encode)
        user.salt = passwordSalt.map(Base64URL.encode)
        return user
    }
}

/// An identity of an imported user at a provider.
public struct ImportedIdentity: Sendable {
    public var providerID: String
    public var uid: String
    public var email: String?
    public var displayName: String?
    public var photoURL: String?

    public init(providerID: String, uid: String, email: String? = nil, displayName: String? = nil, photoURL: String? = nil) {
        self.providerID = providerID
        self.uid = uid
        self.email = email
        self.displayName = displayName
        self.photoURL = photoURL
    }

    /// firebase-admin's checks of an imported identity: a provider, the user's id there, and a well-formed email and
    /// photo URL if given.
    func check() throws {
        try Check.providerID(providerID)
        guard !uid.isEmpty else { throw AdminError(.invalidUID, "the user's id at \(providerID) is not empty") }
        if let email { try Check.email(email) }
        if let photoURL { try Check.photoURL(photoURL) }
    }

    var wire: ProviderUserInfo {
        ProviderUserInfo(providerId: providerID, rawId: uid, email: email, displayName: displayName, photoUrl: photoURL)
    }
}

/// How the imported password hashes were made: every algorithm the Admin SDKs name. Keys and separators are bytes.
public enum UserImportHash: Sendable {
    /// Firebase's own modified scrypt, with the project's signer key (`flint users import --hash-key` names the same).
    case scrypt(key: Data, saltSeparator: Data = Data(), rounds: Int, memoryCost: Int)
    case standardScrypt(memoryCost: Int, parallelization: Int, blockSize: Int, derivedKeyLength: Int)
    case bcrypt
    case pbkdf2SHA256(rounds: Int)
    case pbkdfSHA1(rounds: Int)
    case hmacSHA512(key: Data)
    case hmacSHA256(key: Data)
    case hmacSHA1(key: Data)
    case hmacMD5(key: Data)
    case md5(rounds: Int)
    case sha1(rounds: Int)
    case sha256(rounds: Int)
    case sha512(rounds: Int)

    /// The request's hash fields for these users.
    func request(for users: [FlintWire.UserRecord]) -> BatchCreateRequest {
        var request = BatchCreateRequest(users: users)
        switch self {
        case .scrypt(let key, let separator, let rounds, let memoryCost):
            request.hashAlgorithm = "SCRYPT"
            request.signerKey = Base64URL.encode(key)
            request.saltSeparator = Base64URL.encode(separator)
            request.rounds = rounds
            request.memoryCost = memoryCost
        case .standardScrypt(let memoryCost, let parallelization, let blockSize, let derivedKeyLength):
            request.hashAlgorithm = "STANDARD_SCRYPT"
            request.cpuMemCost = memoryCost
            request.parallelization = parallelization
            request.blockSize = blockSize
            request.dkLen = derivedKeyLength
        case .bcrypt: request.hashAlgorithm = "BCRYPT"
        case .pbkdf2SHA256(let rounds): (request.hashAlgorithm, request.rounds) = ("PBKDF2_SHA256", rounds)
        case .pbkdfSHA1(let rounds): (request.hashAlgorithm, request.rounds) = ("PBKDF_SHA1", rounds)
        case .hmacSHA512(let key): (request.hashAlgorithm, request.signerKey) = ("HMAC_SHA512", Base64URL.encode(key))
        case .hmacSHA256(let key): (request.hashAlgorithm, request.signerKey) = ("HMAC_SHA256", Base64URL.encode(key))
        case .hmacSHA1(let key): (request.hashAlgorithm, request.signerKey) = ("HMAC_SHA1", Base64URL.encode(key))
        case .hmacMD5(let key): (request.hashAlgorithm, request.signerKey) = ("HMAC_MD5", Base64URL.encode(key))
        case .md5(let rounds): (request.hashAlgorithm, request.rounds) = ("MD5", rounds)
        case .sha1(let rounds): (request.hashAlgorithm, request.rounds) = ("SHA1", rounds)
        case .sha256(let rounds): (request.hashAlgorithm, request.rounds) = ("SHA256", rounds)
        case .sha512(let rounds): (request.hashAlgorithm, request.rounds) = ("SHA512", rounds)
        }
        return request
    }
}

extension AdminAuth {
    /// Imports up to 1,000 users. Users with a password hash need `hash`, which says how the hashes were made.
    ///
    /// As firebase-admin does, a user that fails a check (a malformed email, say) is not sent but reported in the
    /// result at its index, with the check's code; the others are imported. Too many users, or a `hash` out of range,
    /// refuse the whole call.
    public func importUsers(_ users: [UserImportRecord], hash: UserImportHash? = nil) async throws -> UserImportResult {
        try Check.batch(users.count, atMost: Self.maximumBatch)
        if hash == nil, users.contains(where: { $0.passwordHash != nil }) {
            throw AdminError(.invalidArgument, "users with password hashes need the hash algorithm they were made with")
        }
        try hash?.check()
        var refused: [BatchResult.Failure] = []
        // The users sent, and the index of each in `users`, which the server's answer counts from 0 among them.
        var sent: [(index: Int, user: FlintWire.UserRecord)] = []
        for (index, user) in users.enumerated() {
            do {
                sent.append((index, try user.wire()))
            } catch let error as AdminError {
                refused.append((index: index, message: error.message, code: error.code))
            }
        }
        guard !sent.isEmpty else { return BatchResult(count: users.count, errors: refused) }
        let wireUsers = sent.map(\.user)
        let request = hash?.request(for: wireUsers) ?? BatchCreateRequest(users: wireUsers)
        let answer = try await connection.call("POST", resource + "/accounts:batchCreate", body: request,
                                               as: BatchCreateResponse.self)
        let failed = (answer.error ?? []).map { failure in
            (index: sent.indices.contains(failure.index) ? sent[failure.index].index : failure.index,
             message: failure.message, code: AdminError.Code.invalidUserImport)
        }
        return BatchResult(count: users.count, errors: refused + failed)
    }
}
