import Foundation

/// The error codes of the `FIRAuthErrorDomain` domain, with the official FirebaseAuth names and raw values.
///
/// FlintAuth throws `NSError(domain: AuthErrors.domain, code: AuthErrorCode.x.rawValue, …)`, as the
/// official SDK does. Swift does not cast those errors to `AuthErrorCode` (nor FirebaseAuth's to its own), so
/// `error as? AuthErrorCode` compiles but does not match them: match with `AuthErrorCode(error)` or
/// `(error as NSError).code == AuthErrorCode.x.rawValue`.
public enum AuthErrorCode: Int, Error, CaseIterable, Sendable {
    case invalidCustomToken = 17000
    case customTokenMismatch = 17002
    case invalidCredential = 17004
    case userDisabled = 17005
    case operationNotAllowed = 17006
    case emailAlreadyInUse = 17007
    case invalidEmail = 17008
    case wrongPassword = 17009
    case tooManyRequests = 17010
    case userNotFound = 17011
    case accountExistsWithDifferentCredential = 17012
    case requiresRecentLogin = 17014
    case providerAlreadyLinked = 17015
    case noSuchProvider = 17016
    case invalidUserToken = 17017
    case networkError = 17020
    case userTokenExpired = 17021
    case invalidAPIKey = 17023
    case userMismatch = 17024
    case credentialAlreadyInUse = 17025
    case weakPassword = 17026
    case appNotAuthorized = 17028
    case expiredActionCode = 17029
    case invalidActionCode = 17030
    case invalidMessagePayload = 17031
    case invalidSender = 17032
    case invalidRecipientEmail = 17033
    case missingEmail = 17034
    case missingIosBundleID = 17036
    case missingAndroidPackageName = 17037
    case unauthorizedDomain = 17038
    case invalidContinueURI = 17039
    case missingContinueURI = 17040
    case missingPhoneNumber = 17041
    case invalidPhoneNumber = 17042
    case missingVerificationCode = 17043
    case invalidVerificationCode = 17044
    case missingVerificationID = 17045
    case invalidVerificationID = 17046
    case missingAppCredential = 17047
    case invalidAppCredential = 17048
    case sessionExpired = 17051
    case quotaExceeded = 17052
    case missingAppToken = 17053
    case notificationNotForwarded = 17054
    case appNotVerified = 17055
    case captchaCheckFailed = 17056
    case webContextAlreadyPresented = 17057
    case webContextCancelled = 17058
    case appVerificationUserInteractionFailure = 17059
    case invalidClientID = 17060
    case webNetworkRequestFailed = 17061
    case webInternalError = 17062
    case webSignInUserInteractionFailure = 17063
    case localPlayerNotAuthenticated = 17066
    case nullUser = 17067
    case invalidProviderID = 17071
    case tenantIDMismatch = 17072
    case unsupportedTenantOperation = 17073
    case rejectedCredential = 17075
    case gameKitNotLinked = 17076
    case secondFactorRequired = 17078
    case missingMultiFactorSession = 17081
    case missingMultiFactorInfo = 17082
    case invalidMultiFactorSession = 17083
    case multiFactorInfoNotFound = 17084
    case adminRestrictedOperation = 17085
    case unverifiedEmail = 17086
    case secondFactorAlreadyEnrolled = 17087
    case maximumSecondFactorCountExceeded = 17088
    case unsupportedFirstFactor = 17089
    case emailChangeNeedsVerification = 17090
    case missingClientIdentifier = 17093
    case missingOrInvalidNonce = 17094
    case blockingCloudFunctionError = 17105
    case recaptchaNotEnabled = 17200
    case missingRecaptchaToken = 17201
    case invalidRecaptchaToken = 17202
    case invalidRecaptchaAction = 17203
    case missingClientType = 17204
    case missingRecaptchaVersion = 17205
    case invalidRecaptchaVersion = 17206
    case invalidReqType = 17207
    case recaptchaSDKNotLinked = 17208
    case recaptchaSiteKeyMissing = 17209
    case recaptchaActionCreationFailed = 17210
    case passwordDoesNotMeetRequirements = 17211
    /// No such passkey on the account (or, at sign-in, on any account). The number of Firebase's passkey branch.
    case missingPasskeyEnrollment = 17212
    /// The server refused a passkey's registration or signature. Firebase's passkey branch numbers it 17211, which
    /// released FirebaseAuth gives `passwordDoesNotMeetRequirements`.
    case invalidAuthenticatorResponse = 17213
    case invalidHostingLinkDomain = 17214
    /// Flint: the session a call named is none of the user's live sessions (unknown, or ended already); see
    /// `User.revokeSession(_:)`. FirebaseAuth has no sessions API, hence no such code: Flint numbers it 17300.
    case sessionNotFound = 17300
    case keychainError = 17995
    case internalError = 17999
    case malformedJWT = 18000

    /// The code of `error` if it belongs to `FIRAuthErrorDomain`, else `nil`. Works on every platform.
    public init?(_ error: any Error) {
        let error = error as NSError
        guard error.domain == AuthErrors.domain else { return nil }
        self.init(rawValue: error.code)
    }

    /// FirebaseAuth 10's name for the codes, kept by code written for it: `AuthErrorCode.Code.wrongPassword`
    /// and `AuthErrorCode.Code(rawValue:)` are `AuthErrorCode.wrongPassword` and `AuthErrorCode(rawValue:)`.
    public typealias Code = AuthErrorCode

    /// The code itself, as in FirebaseAuth, for code written when `AuthErrorCode` wrapped an error:
    /// `switch authError.code { case .wrongPassword: … }`.
    public var code: Code { self }

    /// The short name the SDK puts under `AuthErrorUserInfoNameKey`, e.g. `ERROR_WRONG_PASSWORD`.
    public var name: String {
        switch self {
        case .invalidCustomToken: "ERROR_INVALID_CUSTOM_TOKEN"
        case .customTokenMismatch: "ERROR_CUSTOM_TOKEN_MISMATCH"
        case .invalidCredential: "ERROR_INVALID_CREDENTIAL"
        case .userDisabled: "ERROR_USER_DISABLED"
        case .operationNotAllowed: "ERROR_OPERATION_NOT_ALLOWED"
        case .emailAlreadyInUse: "ERROR_EMAIL_ALREADY_IN_USE"
        case .invalidEmail: "ERROR_INVALID_EMAIL"
        case .wrongPassword: "ERROR_WRONG_PASSWORD"
        case .tooManyRequests: "ERROR_TOO_MANY_REQUESTS"
        case .userNotFound: "ERROR_USER_NOT_FOUND"
        case .accountExistsWithDifferentCredential: "ERROR_ACCOUNT_EXISTS_WITH_DIFFERENT_CREDENTIAL"
        case .requiresRecentLogin: "ERROR_REQUIRES_RECENT_LOGIN"
        case .providerAlreadyLinked: "ERROR_PROVIDER_ALREADY_LINKED"
        case .noSuchProvider: "ERROR_NO_SUCH_PROVIDER"
        case .invalidUserToken: "ERROR_INVALID_USER_TOKEN"
        case .networkError: "ERROR_NETWORK_REQUEST_FAILED"
        case .userTokenExpired: "ERROR_USER_TOKEN_EXPIRED"
        case .invalidAPIKey: "ERROR_INVALID_API_KEY"
        case .userMismatch: "ERROR_USER_MISMATCH"
        case .credentialAlreadyInUse: "ERROR_CREDENTIAL_ALREADY_IN_USE"
        case .weakPassword: "ERROR_WEAK_PASSWORD"
        case .appNotAuthorized: "ERROR_APP_NOT_AUTHORIZED"
        case .expiredActionCode: "ERROR_EXPIRED_ACTION_CODE"
        case .invalidActionCode: "ERROR_INVALID_ACTION_CODE"
        case .invalidMessagePayload: "ERROR_INVALID_MESSAGE_PAYLOAD"
        case .invalidSender: "ERROR_INVALID_SENDER"
        case .invalidRecipientEmail: "ERROR_INVALID_RECIPIENT_EMAIL"
        case .missingEmail: "ERROR_MISSING_EMAIL"
        case .missingIosBundleID: "ERROR_MISSING_IOS_BUNDLE_ID"
        case .missingAndroidPackageName: "ERROR_MISSING_ANDROID_PKG_NAME"
        case .unauthorizedDomain: "ERROR_UNAUTHORIZED_DOMAIN"
        case .invalidContinueURI: "ERROR_INVALID_CONTINUE_URI"
        case .missingContinueURI: "ERROR_MISSING_CONTINUE_URI"
        case .missingPhoneNumber: "ERROR_MISSING_PHONE_NUMBER"
        case .invalidPhoneNumber: "ERROR_INVALID_PHONE_NUMBER"
        case .missingVerificationCode: "ERROR_MISSING_VERIFICATION_CODE"
        case .invalidVerificationCode: "ERROR_INVALID_VERIFICATION_CODE"
        case .missingVerificationID: "ERROR_MISSING_VERIFICATION_ID"
        case .invalidVerificationID: "ERROR_INVALID_VERIFICATION_ID"
        case .missingAppCredential: "MISSING_APP_CREDENTIAL"
        case .invalidAppCredential: "INVALID_APP_CREDENTIAL"
        case .sessionExpired: "ERROR_SESSION_EXPIRED"
        case .quotaExceeded: "ERROR_QUOTA_EXCEEDED"
        case .missingAppToken: "ERROR_MISSING_APP_TOKEN"
        case .notificationNotForwarded: "ERROR_NOTIFICATION_NOT_FORWARDED"
        case .appNotVerified: "ERROR_APP_NOT_VERIFIED"
        case .captchaCheckFailed: "ERROR_CAPTCHA_CHECK_FAILED"
        case .webContextAlreadyPresented: "ERROR_WEB_CONTEXT_ALREADY_PRESENTED"
        case .webContextCancelled: "ERROR_WEB_CONTEXT_CANCELLED"
        case .appVerificationUserInteractionFailure: "ERROR_APP_VERIFICATION_FAILED"
        case .invalidClientID: "ERROR_INVALID_CLIENT_ID"
        case .webNetworkRequestFailed: "ERROR_WEB_NETWORK_REQUEST_FAILED"
        case .webInternalError: "ERROR_WEB_INTERNAL_ERROR"
        case .webSignInUserInteractionFailure: "ERROR_WEB_USER_INTERACTION_FAILURE"
        case .localPlayerNotAuthenticated: "ERROR_LOCAL_PLAYER_NOT_AUTHENTICATED"
        case .nullUser: "ERROR_NULL_USER"
        case .invalidProviderID: "ERROR_INVALID_PROVIDER_ID"
        case .tenantIDMismatch: "ERROR_TENANT_ID_MISMATCH"
        case .unsupportedTenantOperation: "ERROR_UNSUPPORTED_TENANT_OPERATION"
        case .rejectedCredential: "ERROR_REJECTED_CREDENTIAL"
        case .gameKitNotLinked: "ERROR_GAME_KIT_NOT_LINKED"
        case .secondFactorRequired: "ERROR_SECOND_FACTOR_REQUIRED"
        case .missingMultiFactorSession: "ERROR_MISSING_MULTI_FACTOR_SESSION"
        case .missingMultiFactorInfo: "ERROR_MISSING_MULTI_FACTOR_INFO"
        case .invalidMultiFactorSession: "ERROR_INVALID_MULTI_FACTOR_SESSION"
        case .multiFactorInfoNotFound: "ERROR_MULTI_FACTOR_INFO_NOT_FOUND"
        case .adminRestrictedOperation: "ERROR_ADMIN_RESTRICTED_OPERATION"
        case .unverifiedEmail: "ERROR_UNVERIFIED_EMAIL"
        case .secondFactorAlreadyEnrolled: "ERROR_SECOND_FACTOR_ALREADY_ENROLLED"
        case .maximumSecondFactorCountExceeded: "ERROR_MAXIMUM_SECOND_FACTOR_COUNT_EXCEEDED"
        case .unsupportedFirstFactor: "ERROR_UNSUPPORTED_FIRST_FACTOR"
        case .emailChangeNeedsVerification: "ERROR_EMAIL_CHANGE_NEEDS_VERIFICATION"
        case .missingClientIdentifier: "ERROR_MISSING_CLIENT_IDENTIFIER"
        case .missingOrInvalidNonce: "ERROR_MISSING_OR_INVALID_NONCE"
        case .blockingCloudFunctionError: "ERROR_BLOCKING_CLOUD_FUNCTION_RETURNED_ERROR"
        case .recaptchaNotEnabled: "ERROR_RECAPTCHA_NOT_ENABLED"
        case .missingRecaptchaToken: "ERROR_MISSING_RECAPTCHA_TOKEN"
        case .invalidRecaptchaToken: "ERROR_INVALID_RECAPTCHA_TOKEN"
        case .invalidRecaptchaAction: "ERROR_INVALID_RECAPTCHA_ACTION"
        case .missingClientType: "ERROR_MISSING_CLIENT_TYPE"
        case .missingRecaptchaVersion: "ERROR_MISSING_RECAPTCHA_VERSION"
        case .invalidRecaptchaVersion: "ERROR_INVALID_RECAPTCHA_VERSION"
        case .invalidReqType: "ERROR_INVALID_REQ_TYPE"
        case .recaptchaSDKNotLinked: "ERROR_RECAPTCHA_SDK_NOT_LINKED"
        case .recaptchaSiteKeyMissing: "ERROR_RECAPTCHA_SITE_KEY_MISSING"
        case .recaptchaActionCreationFailed: "ERROR_RECAPTCHA_ACTION_CREATION_FAILED"
        case .passwordDoesNotMeetRequirements: "ERROR_PASSWORD_DOES_NOT_MEET_REQUIREMENTS"
        case .missingPasskeyEnrollment: "ERROR_PASSKEY_ENROLLMENT_NOT_FOUND"
        case .invalidAuthenticatorResponse: "ERROR_INVALID_AUTHENTICATOR_RESPONSE"
        case .invalidHostingLinkDomain: "ERROR_INVALID_HOSTING_LINK_DOMAIN"
        case .sessionNotFound: "ERROR_SESSION_NOT_FOUND"
        case .keychainError: "ERROR_KEYCHAIN_ERROR"
        case .internalError: "ERROR_INTERNAL_ERROR"
        case .malformedJWT: "ERROR_MALFORMED_JWT"
        }
    }
}

extension AuthErrorCode: CustomNSError {
    public static var errorDomain: String { AuthErrors.domain }
    public var errorCode: Int { rawValue }
    public var errorUserInfo: [String: Any] {
        [AuthErrors.userInfoNameKey: name, NSLocalizedDescriptionKey: defaultDescription]
    }
}
