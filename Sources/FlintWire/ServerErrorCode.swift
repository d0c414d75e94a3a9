/// The error strings Firebase servers put in `error.message` (before an optional `" : detail"`).
///
/// The official SDKs map these exact strings onto their client error codes, so the server must emit
/// them verbatim and the SDK reads them back through the same type.
public enum ServerErrorCode: String, Sendable, CaseIterable, Codable {
    // Generic
    case invalidArgument = "INVALID_ARGUMENT"
    case permissionDenied = "PERMISSION_DENIED"
    case unauthenticated = "UNAUTHENTICATED"
    case notFound = "NOT_FOUND"
    case internalError = "INTERNAL"
    case notImplemented = "NOT_IMPLEMENTED"
    case projectNotFound = "PROJECT_NOT_FOUND"
    case insufficientPermission = "INSUFFICIENT_PERMISSION"
    case operationNotAllowed = "OPERATION_NOT_ALLOWED"
    case adminOnlyOperation = "ADMIN_ONLY_OPERATION"
    case userNotFound = "USER_NOT_FOUND"
    case userDisabled = "USER_DISABLED"
    case missingLocalID = "MISSING_LOCAL_ID"
    case unexpectedParameter = "UNEXPECTED_PARAMETER"
    case missingProviderID = "MISSING_PROVIDER_ID"
    case missingRawID = "MISSING_RAW_ID"
    case tooManyAttempts = "TOO_MANY_ATTEMPTS_TRY_LATER"

    // Project configuration (`v2/projects/{p}/config`)
    case invalidBlockingFunction = "INVALID_BLOCKING_FUNCTION"
    case blockingFunctionErrorResponse = "BLOCKING_FUNCTION_ERROR_RESPONSE"

    // ID tokens
    case missingIDToken = "MISSING_ID_TOKEN"
    case invalidIDToken = "INVALID_ID_TOKEN"
    case tokenExpired = "TOKEN_EXPIRED"
    case credentialTooOld = "CREDENTIAL_TOO_OLD_LOGIN_AGAIN"

    // Email and password
    case missingEmail = "MISSING_EMAIL"
    case missingPassword = "MISSING_PASSWORD"
    case invalidEmail = "INVALID_EMAIL"
    case invalidIdentifier = "INVALID_IDENTIFIER"
    case missingIdentifier = "MISSING_IDENTIFIER"
    case missingContinueURI = "MISSING_CONTINUE_URI"
    case invalidContinueURI = "INVALID_CONTINUE_URI"
    case emailExists = "EMAIL_EXISTS"
    case emailNotFound = "EMAIL_NOT_FOUND"
    case invalidPassword = "INVALID_PASSWORD"
    case invalidLoginCredentials = "INVALID_LOGIN_CREDENTIALS"
    case weakPassword = "WEAK_PASSWORD"
    case passwordDoesNotMeetRequirements = "PASSWORD_DOES_NOT_MEET_REQUIREMENTS"
    case passwordLoginDisabled = "PASSWORD_LOGIN_DISABLED"
    case phoneNumberExists = "PHONE_NUMBER_EXISTS"
    case invalidPhoneNumber = "INVALID_PHONE_NUMBER"
    case duplicateLocalID = "DUPLICATE_LOCAL_ID"
    // Bulk import and delete (`accounts:batchCreate`, `accounts:batchDelete`)
    case missingUserAccount = "MISSING_USER_ACCOUNT"
    case duplicateEmail = "DUPLICATE_EMAIL"
    case duplicateRawID = "DUPLICATE_RAW_ID"
    case localIDListExceedsLimit = "LOCAL_ID_LIST_EXCEEDS_LIMIT"
    case invalidProviderID = "INVALID_PROVIDER_ID"
    case invalidClaims = "INVALID_CLAIMS"
    case claimsTooLarge = "CLAIMS_TOO_LARGE"
    case forbiddenClaim = "FORBIDDEN_CLAIM"

    // Phone
    case missingPhoneNumber = "MISSING_PHONE_NUMBER"
    case missingCode = "MISSING_CODE"
    case invalidCode = "INVALID_CODE"
    case missingSessionInfo = "MISSING_SESSION_INFO"
    case invalidSessionInfo = "INVALID_SESSION_INFO"
    case sessionExpired = "SESSION_EXPIRED"
    case invalidTemporaryProof = "INVALID_TEMPORARY_PROOF"
    case quotaExceeded = "QUOTA_EXCEEDED"
    case missingAppCredential = "MISSING_APP_CREDENTIAL"
    case invalidAppCredential = "INVALID_APP_CREDENTIAL"
    case missingIOSAppToken = "MISSING_IOS_APP_TOKEN"
    case invalidRecaptchaToken = "INVALID_RECAPTCHA_TOKEN"
    case captchaCheckFailed = "CAPTCHA_CHECK_FAILED"
    case rejectedCredential = "REJECTED_CREDENTIAL"
    case unsupportedTenantOperation = "UNSUPPORTED_TENANT_OPERATION"
    case tenantNotFound = "TENANT_NOT_FOUND"
    case tenantIDMismatch = "TENANT_ID_MISMATCH"
    case projectDisabled = "PROJECT_DISABLED"
    case unsupportedFirstFactor = "UNSUPPORTED_FIRST_FACTOR"
    case missingMFAPendingCredential = "MISSING_MFA_PENDING_CREDENTIAL"
    case invalidMFAPendingCredential = "INVALID_MFA_PENDING_CREDENTIAL"
    case missingMFAEnrollmentID = "MISSING_MFA_ENROLLMENT_ID"
    case mfaEnrollmentNotFound = "MFA_ENROLLMENT_NOT_FOUND"
    case unverifiedEmail = "UNVERIFIED_EMAIL"
    case secondFactorExists = "SECOND_FACTOR_EXISTS"
    case invalidMFAPhoneNumber = "INVALID_MFA_PHONE_NUMBER"
    case invalidMFAEnrollmentID = "INVALID_MFA_ENROLLMENT_ID"
    case duplicateMFAEnrollmentID = "DUPLICATE_MFA_ENROLLMENT_ID"
    case secondFactorLimitExceeded = "SECOND_FACTOR_LIMIT_EXCEEDED"
    case missingTOTPCode = "MISSING_TOTP_VERIFICATION_CODE"

    // Email action codes
    case invalidOobCode = "INVALID_OOB_CODE"
    case expiredOobCode = "EXPIRED_OOB_CODE"
    case missingOobCode = "MISSING_OOB_CODE"
    case missingRequestType = "MISSING_REQ_TYPE"
    case unauthorizedDomain = "UNAUTHORIZED_DOMAIN"
    case missingIOSBundleID = "MISSING_IOS_BUNDLE_ID"
    case missingAndroidPackageName = "MISSING_ANDROID_PACKAGE_NAME"
    case missingNewEmail = "MISSING_NEW_EMAIL"
    case emailChangeNeedsVerification = "EMAIL_CHANGE_NEEDS_VERIFICATION"
    case resetPasswordExceedLimit = "RESET_PASSWORD_EXCEED_LIMIT"
    case invalidHostingLinkDomain = "INVALID_HOSTING_LINK_DOMAIN"

    // Federated identity providers
    case missingOrInvalidNonce = "MISSING_OR_INVALID_NONCE"
    case invalidIDPResponse = "INVALID_IDP_RESPONSE"
    case federatedUserIDAlreadyLinked = "FEDERATED_USER_ID_ALREADY_LINKED"
    case invalidProviderConfig = "INVALID_CONFIG"
    /// A SAML provider without its service-provider (relying party) side: `spConfig.spEntityId`.
    case missingSAMLRelyingPartyConfig = "MISSING_SAML_RELYING_PARTY_CONFIG"
    case configurationNotFound = "CONFIGURATION_NOT_FOUND"
    case invalidCredentialOrProviderID = "INVALID_CREDENTIAL_OR_PROVIDER_ID"
    case missingCredential = "MISSING_CREDENTIAL"
    case missingRequestURI = "MISSING_REQUEST_URI"
    case invalidRequestURI = "INVALID_REQUEST_URI"
    case invalidPendingToken = "INVALID_PENDING_TOKEN"
    case providerAlreadyLinked = "PROVIDER_ALREADY_LINKED"

    // Flint's OpenID provider (its admin API and the team's own sign-in page)
    case oauthClientNotFound = "OAUTH_CLIENT_NOT_FOUND"
    /// A client's settings that cannot be served: a redirect URI, scope or grant type the provider does not take.
    case invalidOAuthClient = "INVALID_OAUTH_CLIENT"
    /// An `authorization_id` that names no authorization in progress (unknown, expired or already ended).
    case invalidAuthorizationID = "INVALID_AUTHORIZATION_ID"
    case oauthResourceNotFound = "OAUTH_RESOURCE_NOT_FOUND"
    /// A protected resource's settings that cannot be served: not an absolute URI, a fragment, a scope of OpenID's own.
    case invalidOAuthResource = "INVALID_OAUTH_RESOURCE"

    // Sessions: a `sessionId` that names none of the user's live sessions.
    case sessionNotFound = "SESSION_NOT_FOUND"

    // Passkeys
    case missingAuthenticatorResponse = "MISSING_AUTHENTICATOR_RESPONSE"
    case invalidCredentialID = "INVALID_CREDENTIAL_ID"
    case credentialAlreadyInUse = "CREDENTIAL_ALREADY_IN_USE"
    case passkeyCredentialNotFound = "PASSKEY_CREDENTIAL_NOT_FOUND"
    /// A WebAuthn answer the relying party refused (challenge, origin, RP ID, flags, signature, counter); the detail says which.
    case invalidAuthenticatorResponse = "INVALID_AUTHENTICATOR_RESPONSE"

    // Custom tokens
    case invalidCustomToken = "INVALID_CUSTOM_TOKEN"
    case missingCustomToken = "MISSING_CUSTOM_TOKEN"
    case credentialMismatch = "CREDENTIAL_MISMATCH"

    // Session cookies
    /// A `validDuration` outside 5 minutes to 14 days (the Admin SDKs report it as `invalid-session-cookie-duration`).
    case invalidDuration = "INVALID_DURATION"

    // Secure Token
    case missingGrantType = "MISSING_GRANT_TYPE"
    case invalidGrantType = "INVALID_GRANT_TYPE"
    case missingRefreshToken = "MISSING_REFRESH_TOKEN"
    case invalidRefreshToken = "INVALID_REFRESH_TOKEN"
}
