// Request and response bodies of multi-factor authentication: enrollment (`v2/accounts/mfaEnrollment:*`),
// second-factor sign-in (`v2/accounts/mfaSignIn:*`) and the `mfaInfo` entries of users and first-factor
// answers. Field names are Firebase's own. Phone (SMS) and TOTP (RFC 6238) factors.

/// One enrolled second factor, as `mfaInfo[]` shows it. Exactly one of `phoneInfo` and `totpInfo` is set.
public struct MFAEnrollment: Codable, Sendable, Equatable {
    public var mfaEnrollmentId: String
    public var displayName: String?
    /// The phone number: masked (`+*******0111`) in first-factor answers, whole in lookups.
    public var phoneInfo: String?
    /// Present (an empty object) for TOTP factors.
    public var totpInfo: TOTPInfo?
    /// `2026-11-23T10:00:00.000Z`.
    public var enrolledAt: String?
    /// The whole number, for admin callers.
    public var unobfuscatedPhoneInfo: String?

    public init(mfaEnrollmentId: String, displayName: String? = nil, phoneInfo: String? = nil, totpInfo: TOTPInfo? = nil,
                enrolledAt: String? = nil, unobfuscatedPhoneInfo: String? = nil) {
        self.mfaEnrollmentId = mfaEnrollmentId
        self.displayName = displayName
        self.phoneInfo = phoneInfo
        self.totpInfo = totpInfo
        self.enrolledAt = enrolledAt
        self.unobfuscatedPhoneInfo = unobfuscatedPhoneInfo
    }

    /// A factor an admin sets or imports may come without an id (the server then makes one): read as "".
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mfaEnrollmentId = try container.decodeIfPresent(String.self, forKey: .mfaEnrollmentId) ?? ""
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        phoneInfo = try container.decodeIfPresent(String.self, forKey: .phoneInfo)
        totpInfo = try container.decodeIfPresent(TOTPInfo.self, forKey: .totpInfo)
        enrolledAt = try container.decodeIfPresent(String.self, forKey: .enrolledAt)
        unobfuscatedPhoneInfo = try container.decodeIfPresent(String.self, forKey: .unobfuscatedPhoneInfo)
    }
}

/// `totpInfo`: an empty object marking a TOTP factor.
public struct TOTPInfo: Codable, Sendable, Equatable {
    public init() {}
}

/// A phone number and the app-verification fields that go with it (`phoneEnrollmentInfo`, `phoneSignInInfo`):
/// the same shape as `sendVerificationCode`'s body. For sign-in the SDK sends the masked hint as the number;
/// the server uses the enrolled number instead.
public typealias PhoneMFAInfo = SendVerificationCodeRequest

/// `phoneVerificationInfo`: the code the user received for a session.
public struct PhoneVerificationInfo: Codable, Sendable {
    public var sessionInfo: String?
    public var code: String?

    public init(sessionInfo: String? = nil, code: String? = nil) {
        self.sessionInfo = sessionInfo
        self.code = code
    }
}

/// `totpEnrollmentInfo` of `mfaEnrollment:start`: an empty object asking for a new TOTP secret.
public struct TOTPEnrollmentInfo: Codable, Sendable {
    public init() {}
}

/// `totpSessionInfo`: the new shared secret (base32) and its parameters, and the session that finalizes it.
public struct TOTPSessionInfo: Codable, Sendable, Equatable {
    public var sharedSecretKey: String
    public var verificationCodeLength: Int
    public var hashingAlgorithm: String
    public var periodSec: Int
    public var sessionInfo: String
    /// The time by which enrollment must be finalized (RFC 3339).
    public var finalizeEnrollmentTime: String

    public init(sharedSecretKey: String, verificationCodeLength: Int, hashingAlgorithm: String, periodSec: Int,
                sessionInfo: String, finalizeEnrollmentTime: String) {
        self.sharedSecretKey = sharedSecretKey
        self.verificationCodeLength = verificationCodeLength
        self.hashingAlgorithm = hashingAlgorithm
        self.periodSec = periodSec
        self.sessionInfo = sessionInfo
        self.finalizeEnrollmentTime = finalizeEnrollmentTime
    }
}

/// `totpVerificationInfo`: a code from the authenticator app (with the enrollment session when enrolling).
public struct TOTPVerificationInfo: Codable, Sendable {
    public var sessionInfo: String?
    public var verificationCode: String?

    public init(sessionInfo: String? = nil, verificationCode: String? = nil) {
        self.sessionInfo = sessionInfo
        self.verificationCode = verificationCode
    }
}

/// `{sessionInfo}` (`phoneSessionInfo`, `phoneResponseInfo`).
public struct PhoneSessionInfo: Codable, Sendable {
    public var sessionInfo: String?

    public init(sessionInfo: String? = nil) { self.sessionInfo = sessionInfo }
}

/// `v2/accounts/mfaEnrollment:start`.
public struct StartMFAEnrollmentRequest: Codable, Sendable {
    public var idToken: String?
    public var phoneEnrollmentInfo: PhoneMFAInfo?
    public var totpEnrollmentInfo: TOTPEnrollmentInfo?
    public var tenantId: String?

    public init(idToken: String? = nil, phoneEnrollmentInfo: PhoneMFAInfo? = nil, totpEnrollmentInfo: TOTPEnrollmentInfo? = nil) {
        self.idToken = idToken
        self.phoneEnrollmentInfo = phoneEnrollmentInfo
        self.totpEnrollmentInfo = totpEnrollmentInfo
    }
}

public struct StartMFAEnrollmentResponse: Codable, Sendable {
    public var phoneSessionInfo: PhoneSessionInfo?
    public var totpSessionInfo: TOTPSessionInfo?

    public init(phoneSessionInfo: PhoneSessionInfo? = nil, totpSessionInfo: TOTPSessionInfo? = nil) {
        self.phoneSessionInfo = phoneSessionInfo
        self.totpSessionInfo = totpSessionInfo
    }
}

/// `v2/accounts/mfaEnrollment:finalize`.
public struct FinalizeMFAEnrollmentRequest: Codable, Sendable {
    public var idToken: String?
    public var displayName: String?
    public var phoneVerificationInfo: PhoneVerificationInfo?
    public var totpVerificationInfo: TOTPVerificationInfo?
    public var tenantId: String?

    public init(idToken: String? = nil, displayName: String? = nil, phoneVerificationInfo: PhoneVerificationInfo? = nil,
                totpVerificationInfo: TOTPVerificationInfo? = nil) {
        self.idToken = idToken
        self.displayName = displayName
        self.phoneVerificationInfo = phoneVerificationInfo
        self.totpVerificationInfo = totpVerificationInfo
    }
}

/// New tokens, from enrollment, withdrawal and second-factor sign-in (no `expiresIn`, as Firebase).
public struct MFATokensResponse: Codable, Sendable {
    public var idToken: String?
    public var refreshToken: String?

    public init(idToken: String? = nil, refreshToken: String? = nil) {
        self.idToken = idToken
        self.refreshToken = refreshToken
    }
}

/// `v2/accounts/mfaEnrollment:withdraw`.
public struct WithdrawMFARequest: Codable, Sendable {
    public var idToken: String?
    public var mfaEnrollmentId: String?
    public var tenantId: String?

    public init(idToken: String? = nil, mfaEnrollmentId: String? = nil) {
        self.idToken = idToken
        self.mfaEnrollmentId = mfaEnrollmentId
    }
}

/// `v2/accounts/mfaSignIn:start`.
public struct StartMFASignInRequest: Codable, Sendable {
    public var mfaPendingCredential: String?
    public var mfaEnrollmentId: String?
    public var phoneSignInInfo: PhoneMFAInfo?
    public var tenantId: String?

    public init(mfaPendingCredential: String? = nil, mfaEnrollmentId: String? = nil, phoneSignInInfo: PhoneMFAInfo? = nil) {
        self.mfaPendingCredential = mfaPendingCredential
        self.mfaEnrollmentId = mfaEnrollmentId
        self.phoneSignInInfo = phoneSignInInfo
    }
}

public struct StartMFASignInResponse: Codable, Sendable {
    public var phoneResponseInfo: PhoneSessionInfo?

    public init(phoneResponseInfo: PhoneSessionInfo? = nil) { self.phoneResponseInfo = phoneResponseInfo }
}

/// `v2/accounts/mfaSignIn:finalize`: a phone code, or a TOTP code for `mfaEnrollmentId`.
public struct FinalizeMFASignInRequest: Codable, Sendable {
    public var mfaPendingCredential: String?
    public var phoneVerificationInfo: PhoneVerificationInfo?
    public var totpVerificationInfo: TOTPVerificationInfo?
    public var mfaEnrollmentId: String?
    public var tenantId: String?

    public init(mfaPendingCredential: String? = nil, phoneVerificationInfo: PhoneVerificationInfo? = nil,
                totpVerificationInfo: TOTPVerificationInfo? = nil, mfaEnrollmentId: String? = nil) {
        self.mfaPendingCredential = mfaPendingCredential
        self.phoneVerificationInfo = phoneVerificationInfo
        self.totpVerificationInfo = totpVerificationInfo
        self.mfaEnrollmentId = mfaEnrollmentId
    }
}
