import FlintWire
import Foundation

/// Everything FlintAuth knows about a signed-in user. It is the `User`'s state, and its JSON
/// encoding is what the credential store persists (FirebaseAuth archives the same fields).
struct UserSnapshot: Codable, Sendable, Equatable {
    var uid: String
    /// Set by the sign-in path (anonymous sign-in), not by the server, as in FirebaseAuth.
    var isAnonymous: Bool
    var email: String?
    var phoneNumber: String?
    var displayName: String?
    var photoURL: URL?
    var isEmailVerified: Bool
    var providerData: [ProviderUserInfo]
    var creationDate: Date?
    var lastSignInDate: Date?
    var tenantID: String?
    /// The enrolled second factors (`mfaInfo`); nil when there are none.
    var mfaInfo: [MFAEnrollment]?
    /// The enrolled passkeys (`passkeyInfo`); nil when there are none.
    var passkeyInfo: [FlintWire.PasskeyInfo]?
    var tokens: TokenSnapshot

    init(record: UserRecord, tokens: TokenSnapshot, isAnonymous: Bool, tenantID: String?) {
        self.uid = record.localId
        self.isAnonymous = isAnonymous
        self.isEmailVerified = false
        self.providerData = []
        self.tenantID = tenantID
        self.tokens = tokens
        apply(record)
    }

    /// Takes over the profile of an `accounts:lookup` answer.
    mutating func apply(_ record: UserRecord) {
        email = record.email
        phoneNumber = record.phoneNumber
        displayName = record.displayName
        photoURL = record.photoUrl.flatMap { URL(string: $0) }
        isEmailVerified = record.emailVerified ?? false
        providerData = record.providerUserInfo ?? []
        creationDate = Self.date(millisecondsString: record.createdAt)
        lastSignInDate = Self.date(millisecondsString: record.lastLoginAt)
        mfaInfo = record.mfaInfo
        passkeyInfo = record.passkeyInfo
    }

    /// `createdAt` and `lastLoginAt` are epoch milliseconds as strings.
    private static func date(millisecondsString: String?) -> Date? {
        millisecondsString.flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1000) }
    }

    // MARK: Persistence

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(self)
    }

    init(encoded data: Data) throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        self = try decoder.decode(UserSnapshot.self, from: data)
    }
}
