import FlintWire
import Foundation

/// Builds the `NSError`s FlintAuth throws.
enum AuthErrorUtils {
    /// Domain of the internal error nested under `NSUnderlyingErrorKey` of an `internalError`.
    static let internalErrorDomain = "FIRAuthInternalErrorDomain"
    /// Key, in that internal error, of what the server answered.
    static let deserializedResponseKey = "FIRAuthErrorUserInfoDeserializedResponseKey"

    /// An error of `code`; `message` replaces the canned description when given.
    static func error(_ code: AuthErrorCode, message: String? = nil, userInfo: [String: Any] = [:]) -> NSError {
        var info = userInfo
        info[AuthErrors.userInfoNameKey] = code.name
        info[NSLocalizedDescriptionKey] = message ?? code.defaultDescription
        return NSError(domain: AuthErrors.domain, code: code.rawValue, userInfo: info)
    }

    /// The request never got an answer (connection refused, timeout, TLS failure, …).
    static func networkError(underlying: any Error) -> NSError {
        error(.networkError, userInfo: [NSUnderlyingErrorKey: underlying])
    }

    /// The credential store failed to read, write or delete the signed-in user.
    static func keychainError(underlying: any Error) -> NSError {
        let reason = (underlying as NSError).localizedDescription
        return error(.keychainError, userInfo: [NSUnderlyingErrorKey: underlying, NSLocalizedFailureReasonErrorKey: reason])
    }

    /// The server answered something FlintAuth cannot understand: `internalError`, with the answer
    /// (or the decoding failure) kept in the underlying error for diagnosis.
    static func internalError(response: String, underlying: (any Error)? = nil) -> NSError {
        var details: [String: Any] = [deserializedResponseKey: response]
        details[NSUnderlyingErrorKey] = underlying
        let internalError = NSError(domain: internalErrorDomain, code: 3, userInfo: details)
        return error(.internalError, userInfo: [NSUnderlyingErrorKey: internalError])
    }

    /// Maps a Firebase error body to the client error, exactly as FirebaseAuth does: the code is the
    /// message up to the first colon; the rest, if any, becomes the localized description.
    static func serverError(_ envelope: ErrorEnvelope) -> NSError {
        let serverCode = envelope.serverCode
        let detail = envelope.detail
        if let code = serverCodes[serverCode] {
            switch code {
            case .weakPassword:
                return error(.weakPassword, userInfo: detail.map { [NSLocalizedFailureReasonErrorKey: $0] } ?? [:])
            case .blockingCloudFunctionError:
                return error(code, message: detail.map(blockingFunctionMessage))
            default:
                return error(code, message: detail)
            }
        }
        let reasons = envelope.error.errors.map(\.reason)
        if reasons.contains(where: { $0.hasPrefix("keyInvalid") }) {
            return error(.invalidAPIKey)
        }
        if reasons.contains("ipRefererBlocked") {
            return error(.appNotAuthorized)
        }
        return internalError(response: envelope.error.message)
    }

    /// A blocking function's detail reads `HTTP Cloud Function returned an error: {"error":{"message":…}}`;
    /// the embedded message is what the app should see.
    private static func blockingFunctionMessage(_ detail: String) -> String {
        struct Body: Decodable {
            struct Inner: Decodable { var message: String? }
            var error: Inner
        }
        guard let start = detail.firstIndex(of: "{"),
              let body = try? JSONDecoder().decode(Body.self, from: Data(detail[start...].utf8)),
              let message = body.error.message
        else { return detail }
        return message
    }

    /// Server message codes → client codes (FirebaseAuth's `AuthBackend.clientError(withServerErrorMessage:)`).
    static let serverCodes: [String: AuthErrorCode] = [
        "USER_NOT_FOUND": .userNotFound,
        "EMAIL_NOT_FOUND": .userNotFound,
        "MISSING_CONTINUE_URI": .missingContinueURI,
        "INVALID_IDENTIFIER": .invalidEmail,
        "INVALID_EMAIL": .invalidEmail,
        "INVALID_ID_TOKEN": .invalidUserToken,
        "CREDENTIAL_TOO_OLD_LOGIN_AGAIN": .requiresRecentLogin,
        "PROVIDER_ALREADY_LINKED": .providerAlreadyLinked,
        "EMAIL_EXISTS": .emailAlreadyInUse,
        "OPERATION_NOT_ALLOWED": .operationNotAllowed,
        "PASSWORD_LOGIN_DISABLED": .operationNotAllowed,
        "USER_DISABLED": .userDisabled,
        "EXPIRED_OOB_CODE": .expiredActionCode,
        "INVALID_OOB_CODE": .invalidActionCode,
        "INVALID_MESSAGE_PAYLOAD": .invalidMessagePayload,
        "INVALID_SENDER": .invalidSender,
        "INVALID_RECIPIENT_EMAIL": .invalidRecipientEmail,
        "WEAK_PASSWORD": .weakPassword,
        "TOO_MANY_ATTEMPTS_TRY_LATER": .tooManyRequests,
        "MISSING_EMAIL": .missingEmail,
        "MISSING_IOS_BUNDLE_ID": .missingIosBundleID,
        "MISSING_ANDROID_PACKAGE_NAME": .missingAndroidPackageName,
        "UNAUTHORIZED_DOMAIN": .unauthorizedDomain,
        "INVALID_CONTINUE_URI": .invalidContinueURI,
        "INVALID_PASSWORD": .wrongPassword,
        "INVALID_IDP_RESPONSE": .invalidCredential,
        "INVALID_PENDING_TOKEN": .invalidCredential,
        "INVALID_LOGIN_CREDENTIALS": .invalidCredential,
        "INVALID_CUSTOM_TOKEN": .invalidCustomToken,
        "CREDENTIAL_MISMATCH": .customTokenMismatch,
        "INVALID_PHONE_NUMBER": .invalidPhoneNumber,
        "QUOTA_EXCEEDED": .quotaExceeded,
        "APP_NOT_VERIFIED": .appNotVerified,
        "CAPTCHA_CHECK_FAILED": .captchaCheckFailed,
        "INVALID_APP_CREDENTIAL": .invalidAppCredential,
        "MISSING_APP_CREDENTIAL": .missingAppCredential,
        "INVALID_CODE": .invalidVerificationCode,
        "INVALID_SESSION_INFO": .invalidVerificationID,
        "SESSION_EXPIRED": .sessionExpired,
        "INVALID_HOSTING_LINK_DOMAIN": .invalidHostingLinkDomain,
        "ADMIN_ONLY_OPERATION": .adminRestrictedOperation,
        "BLOCKING_FUNCTION_ERROR_RESPONSE": .blockingCloudFunctionError,
        "EMAIL_CHANGE_NEEDS_VERIFICATION": .emailChangeNeedsVerification,
        "INVALID_MFA_PENDING_CREDENTIAL": .invalidMultiFactorSession,
        "INVALID_PROVIDER_ID": .invalidProviderID,
        "MFA_ENROLLMENT_NOT_FOUND": .multiFactorInfoNotFound,
        "MISSING_CLIENT_IDENTIFIER": .missingClientIdentifier,
        "MISSING_IOS_APP_TOKEN": .missingAppToken,
        "MISSING_MFA_ENROLLMENT_ID": .missingMultiFactorInfo,
        "MISSING_MFA_PENDING_CREDENTIAL": .missingMultiFactorSession,
        "MISSING_OR_INVALID_NONCE": .missingOrInvalidNonce,
        "PASSWORD_DOES_NOT_MEET_REQUIREMENTS": .passwordDoesNotMeetRequirements,
        "SECOND_FACTOR_EXISTS": .secondFactorAlreadyEnrolled,
        "SECOND_FACTOR_LIMIT_EXCEEDED": .maximumSecondFactorCountExceeded,
        "TENANT_ID_MISMATCH": .tenantIDMismatch,
        "TOKEN_EXPIRED": .userTokenExpired,
        "UNSUPPORTED_FIRST_FACTOR": .unsupportedFirstFactor,
        "UNSUPPORTED_TENANT_OPERATION": .unsupportedTenantOperation,
        "UNVERIFIED_EMAIL": .unverifiedEmail,
        "FEDERATED_USER_ID_ALREADY_LINKED": .credentialAlreadyInUse,
        // Phone sign-in codes FirebaseAuth leaves unmapped (it checks these conditions before sending,
        // or never meets them); Flint's server can send them, so they get their natural codes.
        "MISSING_PHONE_NUMBER": .missingPhoneNumber,
        "MISSING_CODE": .missingVerificationCode,
        "MISSING_SESSION_INFO": .missingVerificationID,
        "INVALID_TEMPORARY_PROOF": .invalidCredential,
        "PHONE_NUMBER_EXISTS": .credentialAlreadyInUse,
        "REJECTED_CREDENTIAL": .rejectedCredential,
        "INVALID_RECAPTCHA_TOKEN": .invalidRecaptchaToken,
        // Email action codes FirebaseAuth leaves unmapped, mapped as the web SDK does.
        "RESET_PASSWORD_EXCEED_LIMIT": .tooManyRequests,
        "MISSING_NEW_EMAIL": .missingEmail,
        // A TOTP second factor without its code, mapped as the web SDK does.
        "MISSING_TOTP_VERIFICATION_CODE": .missingVerificationCode,
        // Passkeys: FirebaseAuth's passkey branch maps the first two; the others are Flint's server's.
        "INVALID_AUTHENTICATOR_RESPONSE": .invalidAuthenticatorResponse,
        "PASSKEY_ENROLLMENT_NOT_FOUND": .missingPasskeyEnrollment,
        "PASSKEY_CREDENTIAL_NOT_FOUND": .missingPasskeyEnrollment,
        "MISSING_AUTHENTICATOR_RESPONSE": .invalidAuthenticatorResponse,
        "INVALID_CREDENTIAL_ID": .invalidAuthenticatorResponse,
        "CREDENTIAL_ALREADY_IN_USE": .credentialAlreadyInUse,
        // Sessions (a Flint extension): a session ID that names none of the user's live sessions.
        "SESSION_NOT_FOUND": .sessionNotFound,
    ]
}

extension AuthErrorUtils {
    /// A phone number is held by another account: `credentialAlreadyInUse` carrying the credential
    /// (a temporary proof) that signs in as that account, and the number.
    static func credentialAlreadyInUse(updatedCredential: AuthCredential, phoneNumber: String?) -> NSError {
        var info: [String: Any] = [AuthErrorUserInfoUpdatedCredentialKey: updatedCredential]
        info[AuthErrorUserInfoPhoneNumberKey] = phoneNumber
        return error(.credentialAlreadyInUse, userInfo: info)
    }

    /// The error a web page reports to the app as `firebaseError={"code":…,"message":…}`: the `auth/…` codes of
    /// FirebaseAuth's web flows (and of the errors the web SDK names alike), and any other code as `otherwise`
    /// makes it, the failure of the flow's user interaction.
    static func webError(code: String, message: String?, otherwise: (String) -> NSError) -> NSError {
        switch code {
        case "auth/invalid-oauth-client-id": error(.invalidClientID, message: message)
        case "auth/network-request-failed": error(.webNetworkRequestFailed, message: message)
        case "auth/internal-error": error(.webInternalError, message: message)
        case "auth/user-cancelled", "auth/web-context-cancelled": error(.webContextCancelled, message: message)
        case "auth/operation-not-allowed": error(.operationNotAllowed, message: message)
        case "auth/invalid-api-key": error(.invalidAPIKey, message: message)
        case "auth/invalid-credential": error(.invalidCredential, message: message)
        case "auth/unauthorized-domain": error(.unauthorizedDomain, message: message)
        default: otherwise(message.map { "\(code): \($0)" } ?? code)
        }
    }

    /// The reCAPTCHA page ended without a token.
    static func appVerificationFailure(reason: String) -> NSError {
        error(.appVerificationUserInteractionFailure, userInfo: [NSLocalizedFailureReasonErrorKey: reason])
    }

    /// The redirect flow's page ended without a credential.
    static func webSignInFailure(reason: String) -> NSError {
        error(.webSignInUserInteractionFailure, userInfo: [NSLocalizedFailureReasonErrorKey: reason])
    }
}

extension AuthErrorCode {
    /// The description used when the server sent no detail (FirebaseAuth's wording where it has one).
    var defaultDescription: String {
        switch self {
        case .invalidCredential: "The supplied auth credential is malformed or has expired."
        case .userDisabled: "The user account has been disabled by an administrator."
        case .operationNotAllowed: "The given sign-in provider is disabled for this Firebase project."
        case .emailAlreadyInUse: "The email address is already in use by another account."
        case .invalidEmail: "The email address is badly formatted."
        case .wrongPassword: "The password is invalid or the user does not have a password."
        case .tooManyRequests: "We have blocked all requests from this device due to unusual activity. Try again later."
        case .userNotFound: "There is no user record corresponding to this identifier. The user may have been deleted."
        case .requiresRecentLogin:
            "This operation is sensitive and requires recent authentication. Log in again before retrying this request."
        case .providerAlreadyLinked: "User can only be linked to one identity for the given provider."
        case .noSuchProvider: "User was not linked to an account with the given provider."
        case .invalidUserToken: "This user's credential isn't valid for this project. This may happen if the user's token has been tampered with, or if the user isn't for the project associated with this API key."
        case .networkError: "Network error (such as timeout, interrupted connection or unreachable host) has occurred."
        case .userTokenExpired: "The user's credential is no longer valid. The user must sign in again."
        case .invalidAPIKey: "An invalid API Key was supplied in the request."
        case .userMismatch: "The supplied credentials do not correspond to the previously signed in user."
        case .credentialAlreadyInUse: "This credential is already associated with a different user account."
        case .weakPassword: "The password must be 6 characters long or more."
        case .passwordDoesNotMeetRequirements: "The password does not meet the project's password policy."
        case .appNotAuthorized: "This app is not authorized to use Firebase Authentication with the provided API key."
        case .missingEmail: "An email address must be provided."
        case .nullUser: "A null user object was provided as the argument for an operation which requires a non-null user object."
        case .tenantIDMismatch: "The provided user's tenant ID does not match the Auth instance's tenant ID."
        case .keychainError: "An error occurred when accessing the keychain or the credential store."
        case .internalError: "An internal error has occurred, print and inspect the error details for more information."
        case .malformedJWT: "Failed to parse JWT. Check the userInfo dictionary for the full token."
        case .missingPhoneNumber: "A phone number is required to send a verification code."
        case .invalidPhoneNumber: "The phone number is not valid. Write it in E.164 format: +, the country code, then the subscriber number."
        case .missingVerificationCode: "The phone credential has an empty verification code."
        case .invalidVerificationCode: "The verification code is not valid. Send a new code and try again."
        case .missingVerificationID: "The phone credential has an empty verification ID."
        case .invalidVerificationID: "The verification ID of the phone credential is not valid."
        case .sessionExpired: "The verification code has expired. Send a new code and try again."
        case .quotaExceeded: "The project's quota of verification codes is used up. Try again later."
        case .missingAppCredential: "The request carries no app credential: no APNs receipt and secret, and no reCAPTCHA token."
        case .invalidAppCredential: "The app credential (APNs receipt and secret, or APNs device token) is not valid."
        case .missingAppToken: "No APNs device token is available to verify the app. Pass it to Auth.setAPNSToken(_:type:)."
        case .appNotVerified: "The app could not be verified: no silent push notification arrived and no reCAPTCHA page could be shown."
        case .captchaCheckFailed: "The reCAPTCHA token is not valid, has expired or was already used."
        case .webContextAlreadyPresented: "Another web page of Auth is being shown; only one can be shown at a time."
        case .webContextCancelled: "The user closed the web page before it finished."
        case .appVerificationUserInteractionFailure: "App verification failed; the failure reason in the error's userInfo says why."
        case .webSignInUserInteractionFailure: "Signing in on the web page failed; the failure reason in the error's userInfo says why."
        case .invalidRecaptchaToken: "The reCAPTCHA token is not valid."
        case .rejectedCredential: "The request carries a malformed or mismatched credential."
        case .expiredActionCode: "The action code has expired."
        case .invalidActionCode: "The action code is invalid. This can happen if the code is malformed, expired, or has already been used."
        case .unauthorizedDomain: "The domain of the continue URL is not allowlisted. Add it to the project's authorized domains."
        case .invalidContinueURI: "The continue URL provided in the request is invalid."
        case .missingContinueURI: "A continue URL must be provided in the request."
        case .missingIosBundleID: "An iOS bundle ID must be provided when an App Store ID is given."
        case .missingAndroidPackageName: "An Android package name must be provided when installing the Android app is requested."
        case .secondFactorRequired: "Please complete a second factor challenge to finish signing into this account."
        case .missingMultiFactorSession: "The request is missing proof of first factor successful sign-in."
        case .missingMultiFactorInfo: "No second factor identifier is provided."
        case .invalidMultiFactorSession: "The request does not contain a valid proof of first factor successful sign-in."
        case .multiFactorInfoNotFound: "The user does not have a second factor matching the identifier provided."
        case .unverifiedEmail: "This operation requires a verified email."
        case .secondFactorAlreadyEnrolled: "The second factor is already enrolled on this account."
        case .maximumSecondFactorCountExceeded: "The maximum allowed number of second factors on a user has been exceeded."
        case .invalidAuthenticatorResponse:
            "During passkey enrollment and sign in, the authenticator response is not parseable, missing required fields, or certain fields are invalid values that compromise the security of the sign-in or enrollment."
        case .missingPasskeyEnrollment: "Cannot find the passkey linked to the current account."
        case .sessionNotFound: "The user has no such session: it is unknown, or it has ended already."
        case .unsupportedFirstFactor:
            "Enrolling a second factor or signing in with a multi-factor account requires sign-in with a supported first factor."
        default: "The operation failed (\(name))."
        }
    }
}
