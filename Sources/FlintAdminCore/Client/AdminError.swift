import FlintWire
import Foundation

/// What every FlintAdmin call throws: a firebase-admin error code (`auth/user-not-found`), a sentence, and for errors
/// the server gave, its own code (`USER_NOT_FOUND`) and HTTP status.
public struct AdminError: Error, Sendable, Equatable, CustomStringConvertible {
    /// firebase-admin's names for what went wrong, as its Node SDK spells them; unknown server codes keep theirs.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let invalidArgument = Code(rawValue: "auth/argument-error")
        public static let invalidIDToken = Code(rawValue: "auth/invalid-id-token")
        public static let idTokenExpired = Code(rawValue: "auth/id-token-expired")
        public static let idTokenRevoked = Code(rawValue: "auth/id-token-revoked")
        public static let invalidSessionCookie = Code(rawValue: "auth/invalid-session-cookie")
        public static let sessionCookieExpired = Code(rawValue: "auth/session-cookie-expired")
        public static let sessionCookieRevoked = Code(rawValue: "auth/session-cookie-revoked")
        public static let invalidSessionCookieDuration = Code(rawValue: "auth/invalid-session-cookie-duration")
        public static let tenantIDMismatch = Code(rawValue: "auth/mismatching-tenant-id")
        public static let certificateFetchFailed = Code(rawValue: "auth/certificate-fetch-failed")
        public static let invalidCredential = Code(rawValue: "auth/invalid-credential")
        public static let userNotFound = Code(rawValue: "auth/user-not-found")
        public static let userDisabled = Code(rawValue: "auth/user-disabled")
        public static let emailAlreadyExists = Code(rawValue: "auth/email-already-exists")
        public static let uidAlreadyExists = Code(rawValue: "auth/uid-already-exists")
        public static let phoneNumberAlreadyExists = Code(rawValue: "auth/phone-number-already-exists")
        public static let emailNotFound = Code(rawValue: "auth/email-not-found")
        public static let invalidEmail = Code(rawValue: "auth/invalid-email")
        public static let invalidPassword = Code(rawValue: "auth/invalid-password")
        public static let invalidPhoneNumber = Code(rawValue: "auth/invalid-phone-number")
        public static let invalidUID = Code(rawValue: "auth/invalid-uid")
        public static let invalidClaims = Code(rawValue: "auth/invalid-claims")
        public static let claimsTooLarge = Code(rawValue: "auth/claims-too-large")
        public static let forbiddenClaim = Code(rawValue: "auth/forbidden-claim")
        public static let invalidContinueURI = Code(rawValue: "auth/invalid-continue-uri")
        public static let unauthorizedContinueURI = Code(rawValue: "auth/unauthorized-continue-uri")
        public static let tenantNotFound = Code(rawValue: "auth/tenant-not-found")
        public static let projectNotFound = Code(rawValue: "auth/project-not-found")
        public static let configurationNotFound = Code(rawValue: "auth/configuration-not-found")
        public static let insufficientPermission = Code(rawValue: "auth/insufficient-permission")
        public static let quotaExceeded = Code(rawValue: "auth/quota-exceeded")
        public static let networkError = Code(rawValue: "app/network-error")
        public static let internalError = Code(rawValue: "auth/internal-error")
    }

    public let code: Code
    /// A sentence for people.
    public let message: String
    /// The server's code (`USER_NOT_FOUND`) when the server refused the call.
    public let serverCode: String?
    /// The HTTP status of that refusal.
    public let httpStatus: Int?

    public init(_ code: Code, _ message: String, serverCode: String? = nil, httpStatus: Int? = nil) {
        self.code = code
        self.message = message
        self.serverCode = serverCode
        self.httpStatus = httpStatus
    }

    public var description: String { "\(code): \(message)" }

    /// A refusal in Firebase's error envelope, named as firebase-admin names it.
    init(refusal envelope: ErrorEnvelope, httpStatus: Int) {
        let serverCode = envelope.serverCode
        self.init(Self.clientCodes[serverCode] ?? .internalError, envelope.detail ?? serverCode,
                  serverCode: serverCode, httpStatus: httpStatus)
    }

    /// The server's codes firebase-admin gives names of their own.
    private static let clientCodes: [String: Code] = [
        "USER_NOT_FOUND": .userNotFound, "USER_DISABLED": .userDisabled,
        "EMAIL_EXISTS": .emailAlreadyExists, "DUPLICATE_EMAIL": .emailAlreadyExists,
        "DUPLICATE_LOCAL_ID": .uidAlreadyExists, "PHONE_NUMBER_EXISTS": .phoneNumberAlreadyExists,
        "EMAIL_NOT_FOUND": .emailNotFound, "INVALID_EMAIL": .invalidEmail, "WEAK_PASSWORD": .invalidPassword,
        "INVALID_PHONE_NUMBER": .invalidPhoneNumber, "INVALID_LOCAL_ID": .invalidUID, "MISSING_LOCAL_ID": .invalidUID,
        "INVALID_CLAIMS": .invalidClaims, "CLAIMS_TOO_LARGE": .claimsTooLarge, "FORBIDDEN_CLAIM": .forbiddenClaim,
        "INVALID_ID_TOKEN": .invalidIDToken, "TOKEN_EXPIRED": .idTokenExpired,
        "INVALID_SESSION_COOKIE_DURATION": .invalidSessionCookieDuration,
        "INVALID_CONTINUE_URI": .invalidContinueURI, "UNAUTHORIZED_DOMAIN": .unauthorizedContinueURI,
        "TENANT_ID_MISMATCH": .tenantIDMismatch, "INVALID_TENANT_ID": .tenantIDMismatch,
        "TENANT_NOT_FOUND": .tenantNotFound, "PROJECT_NOT_FOUND": .projectNotFound,
        "CONFIGURATION_NOT_FOUND": .configurationNotFound, "INSUFFICIENT_PERMISSION": .insufficientPermission,
        "PERMISSION_DENIED": .insufficientPermission, "QUOTA_EXCEEDED": .quotaExceeded,
    ]
}
