import FlintWire
import Foundation

/// Proof of a TOTP second factor: a code from the authenticator app, with the secret being enrolled or
/// the enrollment signed in with.
public final class TOTPMultiFactorAssertion: MultiFactorAssertion, @unchecked Sendable {
    enum Purpose: Sendable {
        case enrollment(TOTPSecret)
        case signIn(enrollmentID: String)
    }

    let purpose: Purpose
    let oneTimePassword: String

    init(purpose: Purpose, oneTimePassword: String) {
        self.purpose = purpose
        self.oneTimePassword = oneTimePassword
        super.init(factorID: TOTPMultiFactorID)
    }

    /// An assertion for sign-in cannot enroll: `invalidMultiFactorSession`.
    override func apply(to request: inout FinalizeMFAEnrollmentRequest) throws {
        guard case .enrollment(let secret) = purpose else {
            throw AuthErrorUtils.error(.invalidMultiFactorSession,
                                       message: "Enroll with TOTPMultiFactorGenerator.assertionForEnrollment(with:oneTimePassword:).")
        }
        request.totpVerificationInfo = TOTPVerificationInfo(sessionInfo: secret.sessionInfo, verificationCode: oneTimePassword)
    }

    /// An assertion for enrollment cannot sign in: `missingMultiFactorInfo`.
    override func apply(to request: inout FinalizeMFASignInRequest) throws {
        guard case .signIn(let enrollmentID) = purpose else {
            throw AuthErrorUtils.error(.missingMultiFactorInfo,
                                       message: "Sign in with TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID:oneTimePassword:).")
        }
        request.mfaEnrollmentId = enrollmentID
        request.totpVerificationInfo = TOTPVerificationInfo(verificationCode: oneTimePassword)
    }
}

/// Makes TOTP secrets and TOTP second-factor assertions.
public final class TOTPMultiFactorGenerator: NSObject, Sendable {
    /// A new shared secret for the user of `session` (from `MultiFactor.session()`) to add to an
    /// authenticator app (`mfaEnrollment:start`). Fails with `invalidMultiFactorSession` for a sign-in session.
    public static func generateSecret(with session: MultiFactorSession) async throws -> TOTPSecret {
        let (idToken, user) = try session.enrollment()
        let response = try await user.auth.backend.startMFAEnrollment(
            StartMFAEnrollmentRequest(idToken: idToken, totpEnrollmentInfo: TOTPEnrollmentInfo()))
        guard let info = response.totpSessionInfo else {
            throw AuthErrorUtils.internalError(response: "mfaEnrollment:start answered without totpSessionInfo")
        }
        return TOTPSecret(info)
    }

    /// Completion-handler form of `generateSecret(with:)`; `completion` runs on the main actor.
    public static func generateSecret(
        with session: MultiFactorSession,
        completion: @escaping @MainActor (TOTPSecret?, (any Error)?) -> Void
    ) {
        completeOnMainActor(completion) { try await generateSecret(with: session) }
    }

    /// An assertion enrolling `secret` with the app's current `oneTimePassword`, for
    /// `MultiFactor.enroll(with:displayName:)`.
    public static func assertionForEnrollment(with secret: TOTPSecret, oneTimePassword: String) -> TOTPMultiFactorAssertion {
        TOTPMultiFactorAssertion(purpose: .enrollment(secret), oneTimePassword: oneTimePassword)
    }

    /// An assertion signing in with the TOTP factor `enrollmentID` (a hint's `uid`) and the app's current
    /// `oneTimePassword`, for `MultiFactorResolver.resolveSignIn(with:)`.
    public static func assertionForSignIn(withEnrollmentID enrollmentID: String,
                                          oneTimePassword: String) -> TOTPMultiFactorAssertion {
        TOTPMultiFactorAssertion(purpose: .signIn(enrollmentID: enrollmentID), oneTimePassword: oneTimePassword)
    }

    private override init() {}
}
