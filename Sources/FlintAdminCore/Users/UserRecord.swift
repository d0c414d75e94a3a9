import FlintWire
import Foundation

/// A user as the Admin SDKs present one: firebase-admin's `UserRecord`, in Swift's names.
public struct UserRecord: Sendable, Equatable {
    public let uid: String
    public let email: String?
    public let emailVerified: Bool
    public let displayName: String?
    public let photoURL: String?
    public let phoneNumber: String?
    public let disabled: Bool
    public let metadata: UserMetadata
    /// The identities linked to the account (`password`, `phone`, `google.com`, …).
    public let providerData: [UserInfo]
    /// The password's hash and salt, base64, as the server gives them (only to admins; absent for accounts without).
    public let passwordHash: String?
    public let passwordSalt: String?
    /// Claims every ID token of the user carries, set with `setCustomUserClaims`.
    public let customClaims: [String: JSONValue]?
    /// ID tokens issued before this are revoked (`revokeRefreshTokens` moves it to now).
    public let tokensValidAfterTime: Date?
    public let tenantID: String?
    /// Enrolled second factors.
    public let multiFactor: [MultiFactorInfo]

    init(_ wire: FlintWire.UserRecord) {
        uid = wire.localId
        email = wire.email
        emailVerified = wire.emailVerified ?? false
        displayName = wire.displayName
        photoURL = wire.photoUrl
        phoneNumber = wire.phoneNumber
        disabled = wire.disabled ?? false
        metadata = UserMetadata(
            creationTime: Self.date(milliseconds: wire.createdAt), lastSignInTime: Self.date(milliseconds: wire.lastLoginAt),
            lastRefreshTime: wire.lastRefreshAt.flatMap { ISO8601DateFormatter.withFractionalSeconds.date(from: $0) })
        providerData = (wire.providerUserInfo ?? []).map(UserInfo.init)
        passwordHash = wire.passwordHash
        passwordSalt = wire.salt
        customClaims = wire.customAttributes.flatMap { try? JSONDecoder().decode([String: JSONValue].self, from: Data($0.utf8)) }
        tokensValidAfterTime = wire.validSince.flatMap(TimeInterval.init).map { Date(timeIntervalSince1970: $0) }
        tenantID = wire.tenantId
        multiFactor = (wire.mfaInfo ?? []).map(MultiFactorInfo.init)
    }

    private static func date(milliseconds: String?) -> Date? {
        milliseconds.flatMap(Double.init).map { Date(timeIntervalSince1970: $0 / 1000) }
    }
}

/// When a user was created, last signed in, and last refreshed a token.
public struct UserMetadata: Sendable, Equatable {
    public let creationTime: Date?
    public let lastSignInTime: Date?
    public let lastRefreshTime: Date?
}

/// One identity linked to a user.
public struct UserInfo: Sendable, Equatable {
    public let providerID: String
    /// The user's id at the provider.
    public let uid: String?
    public let email: String?
    public let displayName: String?
    public let photoURL: String?
    public let phoneNumber: String?

    init(_ wire: ProviderUserInfo) {
        providerID = wire.providerId
        uid = wire.rawId
        email = wire.email
        displayName = wire.displayName
        photoURL = wire.photoUrl
        phoneNumber = wire.phoneNumber
    }
}

/// An enrolled second factor.
public struct MultiFactorInfo: Sendable, Equatable {
    public let uid: String
    public let displayName: String?
    /// `phone` or `totp`.
    public let factorID: String
    public let phoneNumber: String?
    public let enrollmentTime: Date?

    init(_ wire: MFAEnrollment) {
        uid = wire.mfaEnrollmentId
        displayName = wire.displayName
        factorID = wire.totpInfo != nil ? "totp" : "phone"
        phoneNumber = wire.unobfuscatedPhoneInfo ?? wire.phoneInfo
        enrollmentTime = wire.enrolledAt.flatMap { ISO8601DateFormatter.withFractionalSeconds.date(from: $0) }
    }
}

extension ISO8601DateFormatter {
    /// `2026-11-29T06:11:36.123Z`, the form Firebase gives times in.
    nonisolated(unsafe) static let withFractionalSeconds: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
}
