// Request and response bodies of the email action codes (`accounts:sendOobCode`, `accounts:resetPassword`,
// `accounts:signInWithEmailLink`) and the emulator's oob-code listing. Field names are Firebase's own.

/// What an action code is for (`requestType`).
public enum OobRequestType: String, Codable, Sendable, CaseIterable {
    case emailSignIn = "EMAIL_SIGNIN"
    case passwordReset = "PASSWORD_RESET"
    case verifyEmail = "VERIFY_EMAIL"
    case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"
    case recoverEmail = "RECOVER_EMAIL"
}

extension OobRequestType {
    /// Google's JSON mapping of protobuf also allows an enum's number: these are Identity Toolkit's. Index 0
    /// (unspecified) and the types Firebase no longer serves (2, 3, 8) are refused like an unknown name.
    static let protobufNumbers: [Int: OobRequestType] = [
        1: .passwordReset, 4: .verifyEmail, 5: .recoverEmail, 6: .emailSignIn, 7: .verifyAndChangeEmail,
    ]

    /// The name (`"EMAIL_SIGNIN"`) or its protobuf number (`6`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let type: OobRequestType?
        if let number = try? container.decode(Int.self) {
            type = Self.protobufNumbers[number]
        } else {
            type = Self(rawValue: try container.decode(String.self))
        }
        guard let type else { throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown requestType") }
        self = type
    }
}

/// `accounts:sendOobCode` (v3 `getOobConfirmationCode`) with the ActionCodeSettings fields the SDKs send.
public struct SendOobCodeRequest: Codable, Sendable {
    public var requestType: OobRequestType?
    public var email: String?
    /// `VERIFY_EMAIL` / `VERIFY_AND_CHANGE_EMAIL`: the signed-in user.
    public var idToken: String?
    /// `VERIFY_AND_CHANGE_EMAIL`: the address to change to.
    public var newEmail: String?
    public var continueUrl: String?
    public var canHandleCodeInApp: Bool?
    public var iOSBundleId: String?
    public var androidPackageName: String?
    public var androidInstallApp: Bool?
    public var androidMinimumVersion: String?
    /// The custom link domain the emailed link should use.
    public var linkDomain: String?
    /// Deprecated Firebase Dynamic Links domain: accepted and ignored.
    public var dynamicLinkDomain: String?
    /// Admin "generate link": return the code and link instead of sending the mail.
    public var returnOobLink: Bool?
    public var targetProjectId: String?
    public var tenantId: String?
    public var captchaResp: String?
    public var clientType: String?
    public var recaptchaVersion: String?
    public var userIp: String?

    public init(requestType: OobRequestType? = nil, email: String? = nil, idToken: String? = nil, newEmail: String? = nil,
                continueUrl: String? = nil, canHandleCodeInApp: Bool? = nil) {
        self.requestType = requestType
        self.email = email
        self.idToken = idToken
        self.newEmail = newEmail
        self.continueUrl = continueUrl
        self.canHandleCodeInApp = canHandleCodeInApp
    }
}

public struct SendOobCodeResponse: Codable, Sendable {
    public var kind: String?
    public var email: String?
    /// Admin `returnOobLink` only.
    public var oobCode: String?
    public var oobLink: String?

    public init(kind: String? = "identitytoolkit#GetOobConfirmationCodeResponse", email: String? = nil,
                oobCode: String? = nil, oobLink: String? = nil) {
        self.kind = kind
        self.email = email
        self.oobCode = oobCode
        self.oobLink = oobLink
    }
}

/// `accounts:signInWithEmailLink` (v3 `emailLinkSignin`).
public struct SignInWithEmailLinkRequest: Codable, Sendable {
    public var email: String?
    public var oobCode: String?
    /// Link the email to this user instead of signing in.
    public var idToken: String?
    public var tenantId: String?

    public init(email: String? = nil, oobCode: String? = nil, idToken: String? = nil) {
        self.email = email
        self.oobCode = oobCode
        self.idToken = idToken
    }
}

public struct SignInWithEmailLinkResponse: Codable, Sendable {
    public var kind: String?
    public var idToken: String?
    public var refreshToken: String?
    public var expiresIn: String?
    public var localId: String?
    public var email: String?
    public var isNewUser: Bool?
    /// Set instead of tokens when the user must pass a second factor (`v2/accounts/mfaSignIn:*`).
    public var mfaPendingCredential: String?
    public var mfaInfo: [MFAEnrollment]?

    public init(kind: String? = "identitytoolkit#EmailLinkSigninResponse", idToken: String? = nil,
                refreshToken: String? = nil, expiresIn: String? = nil, localId: String? = nil, email: String? = nil,
                isNewUser: Bool? = nil) {
        self.kind = kind
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.localId = localId
        self.email = email
        self.isNewUser = isNewUser
    }
}

/// `accounts:resetPassword`: with `newPassword` applies a `PASSWORD_RESET` code; without it, reports
/// what the code is for ("checkActionCode").
public struct ResetPasswordRequest: Codable, Sendable {
    public var oobCode: String?
    public var newPassword: String?
    public var email: String?
    public var tenantId: String?

    public init(oobCode: String? = nil, newPassword: String? = nil) {
        self.oobCode = oobCode
        self.newPassword = newPassword
    }
}

public struct ResetPasswordResponse: Codable, Sendable {
    public var kind: String?
    public var email: String?
    public var newEmail: String?
    public var requestType: OobRequestType?

    public init(kind: String? = "identitytoolkit#ResetPasswordResponse", email: String? = nil, newEmail: String? = nil,
                requestType: OobRequestType? = nil) {
        self.kind = kind
        self.email = email
        self.newEmail = newEmail
        self.requestType = requestType
    }
}

/// `GET /emulator/v1/projects/{p}/oobCodes`.
public struct OobCodesResponse: Codable, Sendable {
    public struct Entry: Codable, Sendable, Equatable {
        public var email: String
        public var requestType: OobRequestType
        public var oobCode: String
        public var oobLink: String
        public var newEmail: String?

        public init(email: String, requestType: OobRequestType, oobCode: String, oobLink: String, newEmail: String? = nil) {
            self.email = email
            self.requestType = requestType
            self.oobCode = oobCode
            self.oobLink = oobLink
            self.newEmail = newEmail
        }
    }

    public var oobCodes: [Entry]

    public init(oobCodes: [Entry]) { self.oobCodes = oobCodes }
}
