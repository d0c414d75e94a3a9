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
        public static let internalError = Code(rawValue: "auth/internal-error")
        public static let networkError = Code(rawValue: "app/network-error")

        // Tokens and session cookies
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

        // Users and their fields
        public static let userNotFound = Code(rawValue: "auth/user-not-found")
        public static let userDisabled = Code(rawValue: "auth/user-disabled")
        public static let emailAlreadyExists = Code(rawValue: "auth/email-already-exists")
        public static let uidAlreadyExists = Code(rawValue: "auth/uid-already-exists")
        public static let phoneNumberAlreadyExists = Code(rawValue: "auth/phone-number-already-exists")
        public static let emailNotFound = Code(rawValue: "auth/email-not-found")
        public static let invalidUID = Code(rawValue: "auth/invalid-uid")
        public static let missingUID = Code(rawValue: "auth/missing-uid")
        public static let invalidEmail = Code(rawValue: "auth/invalid-email")
        public static let missingEmail = Code(rawValue: "auth/missing-email")
        public static let invalidNewEmail = Code(rawValue: "auth/invalid-new-email")
        public static let unverifiedEmail = Code(rawValue: "auth/unverified-email")
        public static let invalidPassword = Code(rawValue: "auth/invalid-password")
        public static let invalidPhoneNumber = Code(rawValue: "auth/invalid-phone-number")
        public static let invalidDisplayName = Code(rawValue: "auth/invalid-display-name")
        public static let missingDisplayName = Code(rawValue: "auth/missing-display-name")
        public static let invalidPhotoURL = Code(rawValue: "auth/invalid-photo-url")
        public static let invalidProviderUID = Code(rawValue: "auth/invalid-provider-uid")
        public static let invalidCreationTime = Code(rawValue: "auth/invalid-creation-time")
        public static let invalidLastSignInTime = Code(rawValue: "auth/invalid-last-sign-in-time")
        public static let invalidClaims = Code(rawValue: "auth/invalid-claims")
        public static let claimsTooLarge = Code(rawValue: "auth/claims-too-large")
        /// A reserved claim name (`sub`, `firebase`, …) among custom claims; firebase-admin's `FORBIDDEN_CLAIM`,
        /// which it spells `auth/reserved-claim`.
        public static let forbiddenClaim = Code(rawValue: "auth/reserved-claim")
        public static let maximumUserCountExceeded = Code(rawValue: "auth/maximum-user-count-exceeded")
        public static let invalidPageToken = Code(rawValue: "auth/invalid-page-token")
        public static let operationNotAllowed = Code(rawValue: "auth/operation-not-allowed")
        public static let unsupportedFirstFactor = Code(rawValue: "auth/unsupported-first-factor")
        public static let unsupportedSecondFactor = Code(rawValue: "auth/unsupported-second-factor")
        public static let secondFactorLimitExceeded = Code(rawValue: "auth/second-factor-limit-exceeded")
        public static let secondFactorUIDAlreadyExists = Code(rawValue: "auth/second-factor-uid-already-exists")

        // Imports
        /// A user the server refused to import (its reason in the message).
        public static let invalidUserImport = Code(rawValue: "auth/invalid-user-import")
        public static let invalidHashKey = Code(rawValue: "auth/invalid-hash-key")
        public static let invalidHashRounds = Code(rawValue: "auth/invalid-hash-rounds")
        public static let invalidHashMemoryCost = Code(rawValue: "auth/invalid-hash-memory-cost")
        public static let invalidHashParallelization = Code(rawValue: "auth/invalid-hash-parallelization")
        public static let invalidHashBlockSize = Code(rawValue: "auth/invalid-hash-block-size")
        public static let invalidHashDerivedKeyLength = Code(rawValue: "auth/invalid-hash-derived-key-length")

        // Email action links
        public static let missingContinueURI = Code(rawValue: "auth/missing-continue-uri")
        public static let invalidContinueURI = Code(rawValue: "auth/invalid-continue-uri")
        public static let unauthorizedContinueURI = Code(rawValue: "auth/unauthorized-continue-uri")
        public static let missingIOSBundleID = Code(rawValue: "auth/missing-ios-bundle-id")
        public static let missingAndroidPackageName = Code(rawValue: "auth/missing-android-package-name")
        public static let invalidDynamicLinkDomain = Code(rawValue: "auth/invalid-dynamic-link-domain")
        public static let invalidHostingLinkDomain = Code(rawValue: "auth/invalid-hosting-link-domain")

        // Projects, tenants and provider configs
        public static let tenantNotFound = Code(rawValue: "auth/tenant-not-found")
        public static let invalidTenantID = Code(rawValue: "auth/invalid-tenant-id")
        public static let invalidTenantType = Code(rawValue: "auth/invalid-tenant-type")
        public static let unsupportedTenantOperation = Code(rawValue: "auth/unsupported-tenant-operation")
        public static let invalidTestingPhoneNumber = Code(rawValue: "auth/invalid-testing-phone-number")
        public static let projectNotFound = Code(rawValue: "auth/project-not-found")
        public static let invalidProjectID = Code(rawValue: "auth/invalid-project-id")
        public static let invalidName = Code(rawValue: "auth/invalid-name")
        public static let billingNotEnabled = Code(rawValue: "auth/billing-not-enabled")
        public static let configurationNotFound = Code(rawValue: "auth/configuration-not-found")
        public static let configurationExists = Code(rawValue: "auth/configuration-exists")
        public static let invalidConfig = Code(rawValue: "auth/invalid-config")
        public static let missingConfig = Code(rawValue: "auth/missing-config")
        public static let invalidProviderID = Code(rawValue: "auth/invalid-provider-id")
        public static let missingProviderID = Code(rawValue: "auth/missing-provider-id")
        public static let invalidOAuthClientID = Code(rawValue: "auth/invalid-oauth-client-id")
        public static let missingOAuthClientID = Code(rawValue: "auth/missing-oauth-client-id")
        public static let missingIssuer = Code(rawValue: "auth/missing-issuer")
        public static let missingSAMLRelyingPartyConfig = Code(rawValue: "auth/missing-saml-relying-party-config")
        public static let invalidRecaptchaAction = Code(rawValue: "auth/invalid-recaptcha-action")
        public static let invalidRecaptchaEnforcementState = Code(rawValue: "auth/invalid-recaptcha-enforcement-state")
        public static let recaptchaNotEnabled = Code(rawValue: "auth/recaptcha-not-enabled")
        public static let insufficientPermission = Code(rawValue: "auth/insufficient-permission")
        public static let quotaExceeded = Code(rawValue: "auth/quota-exceeded")
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

    /// The server's codes firebase-admin gives names of their own: firebase-admin-node's server-to-client table, entry
    /// for entry. Codes it leaves out are `internalError` there, and here too; among them `INVALID_ARGUMENT`, which
    /// is why the calls check their arguments before sending (`Check`).
    static let clientCodes: [String: Code] = [
        "BILLING_NOT_ENABLED": .billingNotEnabled, "CLAIMS_TOO_LARGE": .claimsTooLarge,
        "CONFIGURATION_EXISTS": .configurationExists, "CONFIGURATION_NOT_FOUND": .configurationNotFound,
        "INSUFFICIENT_PERMISSION": .insufficientPermission, "INVALID_CONFIG": .invalidConfig,
        "INVALID_CONFIG_ID": .invalidProviderID, "INVALID_CONTINUE_URI": .invalidContinueURI,
        "INVALID_DYNAMIC_LINK_DOMAIN": .invalidDynamicLinkDomain, "INVALID_HOSTING_LINK_DOMAIN": .invalidHostingLinkDomain,
        "DUPLICATE_EMAIL": .emailAlreadyExists, "DUPLICATE_LOCAL_ID": .uidAlreadyExists,
        "DUPLICATE_MFA_ENROLLMENT_ID": .secondFactorUIDAlreadyExists, "EMAIL_EXISTS": .emailAlreadyExists,
        "EMAIL_NOT_FOUND": .emailNotFound, "FORBIDDEN_CLAIM": .forbiddenClaim, "INVALID_CLAIMS": .invalidClaims,
        "INVALID_DURATION": .invalidSessionCookieDuration, "INVALID_EMAIL": .invalidEmail,
        "INVALID_NEW_EMAIL": .invalidNewEmail, "INVALID_DISPLAY_NAME": .invalidDisplayName,
        "INVALID_ID_TOKEN": .invalidIDToken, "INVALID_NAME": .invalidName, "INVALID_OAUTH_CLIENT_ID": .invalidOAuthClientID,
        "INVALID_PAGE_SELECTION": .invalidPageToken, "INVALID_PHONE_NUMBER": .invalidPhoneNumber,
        "INVALID_PROJECT_ID": .invalidProjectID, "INVALID_PROVIDER_ID": .invalidProviderID,
        "INVALID_SERVICE_ACCOUNT": .invalidCredential, "INVALID_TESTING_PHONE_NUMBER": .invalidTestingPhoneNumber,
        "INVALID_TENANT_TYPE": .invalidTenantType, "MISSING_ANDROID_PACKAGE_NAME": .missingAndroidPackageName,
        "MISSING_CONFIG": .missingConfig, "MISSING_CONFIG_ID": .missingProviderID,
        "MISSING_DISPLAY_NAME": .missingDisplayName, "MISSING_EMAIL": .missingEmail,
        "MISSING_IOS_BUNDLE_ID": .missingIOSBundleID, "MISSING_ISSUER": .missingIssuer, "MISSING_LOCAL_ID": .missingUID,
        "MISSING_OAUTH_CLIENT_ID": .missingOAuthClientID, "MISSING_PROVIDER_ID": .missingProviderID,
        "MISSING_SAML_RELYING_PARTY_CONFIG": .missingSAMLRelyingPartyConfig, "MISSING_USER_ACCOUNT": .missingUID,
        "OPERATION_NOT_ALLOWED": .operationNotAllowed, "PERMISSION_DENIED": .insufficientPermission,
        "PHONE_NUMBER_EXISTS": .phoneNumberAlreadyExists, "PROJECT_NOT_FOUND": .projectNotFound,
        "QUOTA_EXCEEDED": .quotaExceeded, "SECOND_FACTOR_LIMIT_EXCEEDED": .secondFactorLimitExceeded,
        "TENANT_NOT_FOUND": .tenantNotFound, "TENANT_ID_MISMATCH": .tenantIDMismatch, "TOKEN_EXPIRED": .idTokenExpired,
        "UNAUTHORIZED_DOMAIN": .unauthorizedContinueURI, "UNSUPPORTED_FIRST_FACTOR": .unsupportedFirstFactor,
        "UNSUPPORTED_SECOND_FACTOR": .unsupportedSecondFactor, "UNSUPPORTED_TENANT_OPERATION": .unsupportedTenantOperation,
        "UNVERIFIED_EMAIL": .unverifiedEmail, "USER_NOT_FOUND": .userNotFound, "USER_DISABLED": .userDisabled,
        "WEAK_PASSWORD": .invalidPassword, "INVALID_RECAPTCHA_ACTION": .invalidRecaptchaAction,
        "INVALID_RECAPTCHA_ENFORCEMENT_STATE": .invalidRecaptchaEnforcementState,
        "RECAPTCHA_NOT_ENABLED": .recaptchaNotEnabled,
    ]
}
