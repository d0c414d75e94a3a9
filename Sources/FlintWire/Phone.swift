// Request and response bodies of phone-number sign-in (`accounts:sendVerificationCode`,
// `accounts:signInWithPhoneNumber`, `accounts:verifyClient`, v2 `recaptchaConfig`) and the emulator's
// code listing. Field names are Firebase's own.

/// `accounts:sendVerificationCode` (v3 `sendVerificationCode`): sends a code to `phoneNumber`.
/// At most one app credential is expected: the APNs pair (`iosReceipt` + `iosSecret`) or a captcha token.
public struct SendVerificationCodeRequest: Codable, Sendable {
    public var phoneNumber: String?
    public var iosReceipt: String?
    public var iosSecret: String?
    public var recaptchaToken: String?
    /// reCAPTCHA Enterprise (`recaptchaVersion` = `RECAPTCHA_ENTERPRISE`); `NO_RECAPTCHA` in audit fallback.
    public var captchaResponse: String?
    public var recaptchaVersion: String?
    public var clientType: String?
    /// Android's app credentials (accepted by name, not verified: Play Integrity cannot be checked here).
    public var playIntegrityToken: String?
    public var safetyNetToken: String?
    public var tenantId: String?

    public init(phoneNumber: String? = nil, iosReceipt: String? = nil, iosSecret: String? = nil,
                recaptchaToken: String? = nil, tenantId: String? = nil) {
        self.phoneNumber = phoneNumber
        self.iosReceipt = iosReceipt
        self.iosSecret = iosSecret
        self.recaptchaToken = recaptchaToken
        self.tenantId = tenantId
    }
}

public struct SendVerificationCodeResponse: Codable, Sendable {
    /// Opaque handle of the code just sent; the SDKs call it the verification ID.
    public var sessionInfo: String

    public init(sessionInfo: String) { self.sessionInfo = sessionInfo }
}

/// What `accounts:signInWithPhoneNumber` is asked to do (`operation`).
public enum PhoneOperation: String, Codable, Sendable, CaseIterable {
    case signUpOrIn = "SIGN_UP_OR_IN"
    case reauth = "REAUTH"
    case link = "LINK"
    case update = "UPDATE"
    case unspecified = "VERIFY_OP_UNSPECIFIED"
}

/// `accounts:signInWithPhoneNumber` (v3 `verifyPhoneNumber`): `sessionInfo` + `code`, or
/// `temporaryProof` + `phoneNumber`; with `idToken` the number is linked to that user.
public struct SignInWithPhoneNumberRequest: Codable, Sendable {
    public var sessionInfo: String?
    public var code: String?
    public var temporaryProof: String?
    public var phoneNumber: String?
    public var idToken: String?
    public var operation: PhoneOperation?
    public var tenantId: String?

    public init(sessionInfo: String? = nil, code: String? = nil, temporaryProof: String? = nil,
                phoneNumber: String? = nil, idToken: String? = nil, operation: PhoneOperation? = nil) {
        self.sessionInfo = sessionInfo
        self.code = code
        self.temporaryProof = temporaryProof
        self.phoneNumber = phoneNumber
        self.idToken = idToken
        self.operation = operation
    }
}

/// Tokens for the signed-in user, or (when linking a number another account holds) only
/// `phoneNumber` + `temporaryProof`, which a later sign-in can present instead of a code.
public struct SignInWithPhoneNumberResponse: Codable, Sendable {
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: String?
    public var localId: String?
    public var isNewUser: Bool?
    public var phoneNumber: String?
    public var temporaryProof: String?
    public var temporaryProofExpiresIn: String?
    /// Set instead of tokens when the user must pass a second factor (`v2/accounts/mfaSignIn:*`).
    public var mfaPendingCredential: String?
    public var mfaInfo: [MFAEnrollment]?

    public init(idToken: String? = nil, refreshToken: String? = nil, expiresIn: String? = nil, localId: String? = nil,
                isNewUser: Bool? = nil, phoneNumber: String? = nil, temporaryProof: String? = nil,
                temporaryProofExpiresIn: String? = nil) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.localId = localId
        self.isNewUser = isNewUser
        self.phoneNumber = phoneNumber
        self.temporaryProof = temporaryProof
        self.temporaryProofExpiresIn = temporaryProofExpiresIn
    }
}

/// `accounts:verifyClient` (v3 `verifyClient`): the app's APNs device token (hex) for a silent push.
public struct VerifyClientRequest: Codable, Sendable {
    public var appToken: String?
    public var isSandbox: Bool?

    public init(appToken: String? = nil, isSandbox: Bool? = nil) {
        self.appToken = appToken
        self.isSandbox = isSandbox
    }
}

/// The receipt the silent push will carry (with its secret), and how long to wait for it, in seconds
/// (a string, as Firebase sends it).
public struct VerifyClientResponse: Codable, Sendable {
    public var receipt: String
    public var suggestedTimeout: String

    public init(receipt: String, suggestedTimeout: String) {
        self.receipt = receipt
        self.suggestedTimeout = suggestedTimeout
    }
}

/// The payload of the silent push `verifyClient` sends: `{"com.google.firebase.auth": {receipt, secret}}`.
public struct AppCredentialPush: Codable, Sendable, Equatable {
    public static let key = "com.google.firebase.auth"
    public var receipt: String
    public var secret: String

    public init(receipt: String, secret: String) {
        self.receipt = receipt
        self.secret = secret
    }
}

/// v2 `GET recaptchaConfig`: which providers enforce reCAPTCHA Enterprise (Flint: none, all `OFF`).
public struct RecaptchaConfigResponse: Codable, Sendable {
    public struct EnforcementState: Codable, Sendable {
        public var provider: String
        public var enforcementState: String

        public init(provider: String, enforcementState: String) {
            self.provider = provider
            self.enforcementState = enforcementState
        }
    }

    public var recaptchaKey: String?
    public var recaptchaEnforcementState: [EnforcementState]

    public init(recaptchaKey: String? = nil, recaptchaEnforcementState: [EnforcementState]) {
        self.recaptchaKey = recaptchaKey
        self.recaptchaEnforcementState = recaptchaEnforcementState
    }
}

/// `GET v1/recaptchaParams` (v3 `getRecaptchaParam`): the classic reCAPTCHA parameters older web SDKs
/// fetch before phone sign-in.
public struct RecaptchaParamsResponse: Codable, Sendable {
    public var kind = "identitytoolkit#GetRecaptchaParamResponse"
    public var recaptchaStoken: String
    public var recaptchaSiteKey: String

    public init(recaptchaStoken: String, recaptchaSiteKey: String) {
        self.recaptchaStoken = recaptchaStoken
        self.recaptchaSiteKey = recaptchaSiteKey
    }
}

/// `GET /emulator/v1/projects/{p}/verificationCodes`.
public struct VerificationCodesResponse: Codable, Sendable {
    public struct Entry: Codable, Sendable, Equatable {
        public var phoneNumber: String
        public var sessionInfo: String
        public var code: String

        public init(phoneNumber: String, sessionInfo: String, code: String) {
            self.phoneNumber = phoneNumber
            self.sessionInfo = sessionInfo
            self.code = code
        }
    }

    public var verificationCodes: [Entry]

    public init(verificationCodes: [Entry]) { self.verificationCodes = verificationCodes }
}
