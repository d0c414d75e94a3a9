@testable import FlintAuth
import FlintWire
import Foundation
import Testing

/// The server-message → client-code table of FirebaseAuth (reference §1.9), without a server.
@Suite struct ErrorMappingTests {
    static let table: [(String, AuthErrorCode)] = [
        ("USER_NOT_FOUND", .userNotFound), ("EMAIL_NOT_FOUND", .userNotFound),
        ("MISSING_CONTINUE_URI", .missingContinueURI),
        ("INVALID_IDENTIFIER", .invalidEmail), ("INVALID_EMAIL", .invalidEmail),
        ("INVALID_ID_TOKEN", .invalidUserToken),
        ("INVALID_AUTHENTICATOR_RESPONSE", .invalidAuthenticatorResponse),
        ("MISSING_AUTHENTICATOR_RESPONSE", .invalidAuthenticatorResponse),
        ("PASSKEY_CREDENTIAL_NOT_FOUND", .missingPasskeyEnrollment),
        ("CREDENTIAL_ALREADY_IN_USE", .credentialAlreadyInUse),
        ("CREDENTIAL_TOO_OLD_LOGIN_AGAIN", .requiresRecentLogin),
        ("EMAIL_EXISTS", .emailAlreadyInUse),
        ("OPERATION_NOT_ALLOWED", .operationNotAllowed), ("PASSWORD_LOGIN_DISABLED", .operationNotAllowed),
        ("USER_DISABLED", .userDisabled),
        ("EXPIRED_OOB_CODE", .expiredActionCode), ("INVALID_OOB_CODE", .invalidActionCode),
        ("INVALID_MESSAGE_PAYLOAD", .invalidMessagePayload), ("INVALID_SENDER", .invalidSender),
        ("INVALID_RECIPIENT_EMAIL", .invalidRecipientEmail),
        ("WEAK_PASSWORD", .weakPassword),
        ("TOO_MANY_ATTEMPTS_TRY_LATER", .tooManyRequests),
        ("MISSING_EMAIL", .missingEmail), ("MISSING_IOS_BUNDLE_ID", .missingIosBundleID),
        ("MISSING_ANDROID_PACKAGE_NAME", .missingAndroidPackageName),
        ("UNAUTHORIZED_DOMAIN", .unauthorizedDomain), ("INVALID_CONTINUE_URI", .invalidContinueURI),
        ("INVALID_PASSWORD", .wrongPassword),
        ("INVALID_IDP_RESPONSE", .invalidCredential), ("INVALID_PENDING_TOKEN", .invalidCredential),
        ("INVALID_LOGIN_CREDENTIALS", .invalidCredential),
        ("INVALID_CUSTOM_TOKEN", .invalidCustomToken), ("CREDENTIAL_MISMATCH", .customTokenMismatch),
        ("INVALID_PHONE_NUMBER", .invalidPhoneNumber), ("QUOTA_EXCEEDED", .quotaExceeded),
        ("APP_NOT_VERIFIED", .appNotVerified), ("CAPTCHA_CHECK_FAILED", .captchaCheckFailed),
        ("INVALID_APP_CREDENTIAL", .invalidAppCredential), ("MISSING_APP_CREDENTIAL", .missingAppCredential),
        ("INVALID_CODE", .invalidVerificationCode), ("INVALID_SESSION_INFO", .invalidVerificationID),
        ("SESSION_EXPIRED", .sessionExpired), ("INVALID_HOSTING_LINK_DOMAIN", .invalidHostingLinkDomain),
        ("ADMIN_ONLY_OPERATION", .adminRestrictedOperation),
        ("BLOCKING_FUNCTION_ERROR_RESPONSE", .blockingCloudFunctionError),
        ("EMAIL_CHANGE_NEEDS_VERIFICATION", .emailChangeNeedsVerification),
        ("INVALID_MFA_PENDING_CREDENTIAL", .invalidMultiFactorSession),
        ("INVALID_PROVIDER_ID", .invalidProviderID), ("MFA_ENROLLMENT_NOT_FOUND", .multiFactorInfoNotFound),
        ("MISSING_CLIENT_IDENTIFIER", .missingClientIdentifier), ("MISSING_IOS_APP_TOKEN", .missingAppToken),
        ("MISSING_MFA_ENROLLMENT_ID", .missingMultiFactorInfo),
        ("MISSING_MFA_PENDING_CREDENTIAL", .missingMultiFactorSession),
        ("MISSING_OR_INVALID_NONCE", .missingOrInvalidNonce),
        ("PASSWORD_DOES_NOT_MEET_REQUIREMENTS", .passwordDoesNotMeetRequirements),
        ("SECOND_FACTOR_EXISTS", .secondFactorAlreadyEnrolled),
        ("SECOND_FACTOR_LIMIT_EXCEEDED", .maximumSecondFactorCountExceeded),
        ("TENANT_ID_MISMATCH", .tenantIDMismatch), ("TOKEN_EXPIRED", .userTokenExpired),
        ("UNSUPPORTED_FIRST_FACTOR", .unsupportedFirstFactor),
        ("UNSUPPORTED_TENANT_OPERATION", .unsupportedTenantOperation),
        ("UNVERIFIED_EMAIL", .unverifiedEmail),
        ("FEDERATED_USER_ID_ALREADY_LINKED", .credentialAlreadyInUse),
        // Phone codes FirebaseAuth leaves unmapped, mapped by Flint to their natural codes.
        ("MISSING_PHONE_NUMBER", .missingPhoneNumber), ("MISSING_CODE", .missingVerificationCode),
        ("MISSING_SESSION_INFO", .missingVerificationID), ("INVALID_TEMPORARY_PROOF", .invalidCredential),
        ("PHONE_NUMBER_EXISTS", .credentialAlreadyInUse), ("REJECTED_CREDENTIAL", .rejectedCredential),
        ("INVALID_RECAPTCHA_TOKEN", .invalidRecaptchaToken),
        // Email action codes FirebaseAuth leaves unmapped, mapped by Flint as the web SDK does.
        ("RESET_PASSWORD_EXCEED_LIMIT", .tooManyRequests), ("MISSING_NEW_EMAIL", .missingEmail),
        // Flint's own sessions API.
        ("SESSION_NOT_FOUND", .sessionNotFound),
        // Codes FirebaseAuth leaves unmapped.
        ("INVALID_REFRESH_TOKEN", .internalError), ("SOMETHING_NEW", .internalError),
    ]

    static func envelope(_ message: String, reasons: [String] = ["invalid"]) -> ErrorEnvelope {
        ErrorEnvelope(error: .init(code: 400, message: message,
                                   errors: reasons.map { .init(message: message, reason: $0) }, status: nil))
    }

    @Test(arguments: table)
    func serverCodeMapsToClientCode(serverCode: String, expected: AuthErrorCode) {
        let error = AuthErrorUtils.serverError(Self.envelope(serverCode))
        #expect(error.domain == "FIRAuthErrorDomain")
        #expect(error.code == expected.rawValue)
        #expect(error.userInfo[AuthErrorUserInfoNameKey] as? String == expected.name)
        #expect(error.userInfo[NSLocalizedDescriptionKey] as? String == expected.defaultDescription)
        #expect(AuthErrorCode(error) == expected)
    }

    @Test func detailAfterFirstColonBecomesTheDescription() {
        let error = AuthErrorUtils.serverError(Self.envelope("INVALID_EMAIL : bad: really bad"))
        #expect(AuthErrorCode(error) == .invalidEmail)
        #expect(error.localizedDescription == "bad: really bad")
    }

    @Test func weakPasswordDetailIsTheFailureReason() {
        let error = AuthErrorUtils.serverError(Self.envelope("WEAK_PASSWORD : Password should be at least 6 characters"))
        #expect(AuthErrorCode(error) == .weakPassword)
        #expect(error.userInfo[NSLocalizedFailureReasonErrorKey] as? String == "Password should be at least 6 characters")
        #expect(error.localizedDescription == AuthErrorCode.weakPassword.defaultDescription)
    }

    @Test func blockingFunctionMessageIsExtracted() {
        let detail = #"HTTP Cloud Function returned an error: {"error":{"message":"No sign-ups today"}}"#
        let error = AuthErrorUtils.serverError(Self.envelope("BLOCKING_FUNCTION_ERROR_RESPONSE : \(detail)"))
        #expect(AuthErrorCode(error) == .blockingCloudFunctionError)
        #expect(error.localizedDescription == "No sign-ups today")
    }

    @Test func errorReasonsMapUnknownMessages() {
        let badKey = AuthErrorUtils.serverError(Self.envelope("API key not valid.", reasons: ["keyInvalid"]))
        #expect(AuthErrorCode(badKey) == .invalidAPIKey)
        let blocked = AuthErrorUtils.serverError(Self.envelope("Requests are blocked.", reasons: ["ipRefererBlocked"]))
        #expect(AuthErrorCode(blocked) == .appNotAuthorized)
        let mapped = AuthErrorUtils.serverError(Self.envelope("EMAIL_EXISTS", reasons: ["keyInvalid"]))
        #expect(AuthErrorCode(mapped) == .emailAlreadyInUse)
    }

    @Test func unknownCodeKeepsTheServerMessageForDiagnosis() throws {
        let error = AuthErrorUtils.serverError(Self.envelope("SOMETHING_NEW : details"))
        let underlying = try #require(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        #expect(underlying.userInfo[AuthErrorUtils.deserializedResponseKey] as? String == "SOMETHING_NEW : details")
    }

    @Test func everyCodeHasAnOfficialName() {
        #expect(AuthErrorCode.allCases.count == 94)
        #expect(Set(AuthErrorCode.allCases.map(\.name)).count == AuthErrorCode.allCases.count)
        #expect(AuthErrorCode.missingAppCredential.name == "MISSING_APP_CREDENTIAL")
        #expect(AuthErrorCode.networkError.name == "ERROR_NETWORK_REQUEST_FAILED")
        #expect(AuthErrorCode.malformedJWT.rawValue == 18000)
    }

    @Test func codesBridgeToTheFirebaseDomain() {
        let error = AuthErrorCode.userMismatch as NSError
        #expect(error.domain == AuthErrors.domain)
        #expect(error.code == 17024)
        #expect(AuthErrorCode(error) == .userMismatch)
        #expect(AuthErrorCode(NSError(domain: "other", code: 17024)) == nil)
    }

    @Test func unreachableServerIsANetworkError() async throws {
        let name = "flint-auth-test-\(UUID().uuidString)"
        FirebaseApp.configure(name: name, options: FirebaseOptions(apiKey: "key", projectID: "p"))
        let app = try #require(FirebaseApp.app(name: name))
        let auth = Auth(app: app, credentialStore: InMemoryCredentialStore())
        auth.useEmulator(withHost: "127.0.0.1", port: 9) // discard port: nothing listens
        let error = await expectAuthError(.networkError) { try await auth.signInAnonymously() }
        #expect(error?.userInfo[NSUnderlyingErrorKey] != nil)
        await app.delete()
    }
}
