import FlintWire
import Foundation

extension UserRecord {
    /// Firebase's stand-in for a password hash shown to non-admin callers (base64 of "REDACTED").
    static let redactedPasswordHash = "UkVEQUNURUQ="

    /// The wire form of a stored user. Non-admin callers never see the real hash or salt.
    init(_ user: UserAccount, revealPasswordHash: Bool) {
        self.init(localId: user.localID)
        email = user.email
        emailVerified = user.emailVerified
        displayName = user.displayName
        photoUrl = user.photoURL
        phoneNumber = user.phoneNumber
        screenName = user.identities.lazy.compactMap(\.screenName).first
        if user.hasPassword {
            passwordHash = revealPasswordHash ? user.passwordHash : Self.redactedPasswordHash
            salt = revealPasswordHash ? user.passwordSalt : nil
            passwordUpdatedAt = user.passwordUpdatedAt.map(Double.init)
        }
        providerUserInfo = user.providerUserInfo
        validSince = String(user.validSince)
        disabled = user.disabled
        createdAt = String(user.createdAt)
        lastLoginAt = user.lastLoginAt.map(String.init)
        lastRefreshAt = user.lastRefreshAt.map(Self.iso8601)
        customAttributes = user.customAttributes
        emailLinkSignin = user.emailLinkSignin ? true : nil
        mfaInfo = user.mfaFactors.isEmpty ? nil : user.mfaFactors.map { $0.wire(maskingPhone: false) }
        passkeyInfo = user.passkeys.isEmpty ? nil : user.passkeys.map { passkey in
            var info = PasskeyInfo(credentialId: passkey.credentialID, name: passkey.name)
            // Firebase's shape for everyone else; an admin (an export) sees what signing in with it again needs.
            if revealPasswordHash {
                info.publicKey = passkey.publicKey
                info.algorithm = passkey.algorithm
                info.signCount = String(passkey.signCount)
                info.createdAt = String(passkey.createdAt)
                info.lastUsedAt = passkey.lastUsedAt.map(String.init)
            }
            return info
        }
        tenantId = Realm(key: user.projectID).tenantID
    }
}

extension UserRecord {
    /// `2026-11-22T04:00:29.527Z`, the form Firebase gives `lastRefreshAt` in.
    static func iso8601(milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        // Written digit by digit: `String(format:)` cost a few percent of every lookup.
        var text = ""
        text.reserveCapacity(24)
        func append(_ value: Int, width: Int, then separator: String) {
            let digits = String(value)
            text += String(repeating: "0", count: max(0, width - digits.count)) + digits + separator
        }
        append(Int(parts.tm_year) + 1900, width: 4, then: "-")
        append(Int(parts.tm_mon) + 1, width: 2, then: "-")
        append(Int(parts.tm_mday), width: 2, then: "T")
        append(Int(parts.tm_hour), width: 2, then: ":")
        append(Int(parts.tm_min), width: 2, then: ":")
        append(Int(parts.tm_sec), width: 2, then: ".")
        append(Int(milliseconds % 1000), width: 3, then: "Z")
        return text
    }

    /// The inverse of `iso8601(milliseconds:)`, fractional seconds optional; nil for anything else.
    static func milliseconds(iso8601 text: String) -> Int64? {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let date = withFraction.date(from: text) ?? ISO8601DateFormatter().date(from: text) else { return nil }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}

extension UserAccount {
    /// `providerUserInfo[]`: the password and phone identities (derived from the user's own fields)
    /// followed by the federated ones.
    var providerUserInfo: [ProviderUserInfo] {
        var infos: [ProviderUserInfo] = []
        if hasPassword || emailLinkSignin, let email {
            infos.append(ProviderUserInfo(
                providerId: ProviderID.password, rawId: email, federatedId: email, email: email,
                displayName: displayName, photoUrl: photoURL))
        }
        if let phoneNumber {
            infos.append(ProviderUserInfo(providerId: ProviderID.phone, rawId: phoneNumber, phoneNumber: phoneNumber))
        }
        for identity in identities {
            var info = ProviderUserInfo(
                providerId: identity.providerID, rawId: identity.rawID, federatedId: identity.rawID,
                email: identity.email, displayName: identity.displayName, photoUrl: identity.photoURL)
            info.screenName = identity.screenName
            infos.append(info)
        }
        return infos
    }

    /// The `signinMethods` of `createAuthUri`: `password`, `emailLink`, then provider ids.
    var signInMethods: [String] {
        var methods: [String] = []
        if hasPassword { methods.append(ProviderID.password) }
        if emailLinkSignin { methods.append(ProviderID.emailLinkSignInMethod) }
        methods += identities.map(\.providerID)
        return methods
    }
}
