import FlintWire
import Foundation

/// Phone second factors: texting the code that enrolls a number, or that signs in with an enrolled one.
extension PhoneAuthProvider {
    /// Texts a code to the enrolled phone second factor `multiFactorInfo` (a hint of the
    /// `MultiFactorResolver`) for signing in (`mfaSignIn:start`), and returns the verification ID to pair
    /// with the code in `credential(withVerificationID:verificationCode:)`; the credential then goes into
    /// `PhoneMultiFactorGenerator.assertion(with:)`. `multiFactorSession` is the resolver's `session`.
    /// The app is verified as for `verifyPhoneNumber(_:uiDelegate:multiFactorSession:)`.
    public func verifyPhoneNumber(
        with multiFactorInfo: PhoneMultiFactorInfo,
        uiDelegate: AuthUIDelegate? = nil,
        multiFactorSession: MultiFactorSession?
    ) async throws -> String {
        let presenter = makeWebPagePresenter(uiDelegate, callbackQueue: auth.callbackQueue)
        return try await sendSignInCode(to: multiFactorInfo, session: multiFactorSession, presenter: presenter)
    }

    /// Completion-handler form of `verifyPhoneNumber(with:uiDelegate:multiFactorSession:)`; `completion` runs
    /// on the main actor.
    public func verifyPhoneNumber(
        with multiFactorInfo: PhoneMultiFactorInfo,
        uiDelegate: AuthUIDelegate? = nil,
        multiFactorSession: MultiFactorSession?,
        completion: (@MainActor (String?, (any Error)?) -> Void)?
    ) {
        let presenter = makeWebPagePresenter(uiDelegate, callbackQueue: auth.callbackQueue)
        completeOnMainActor(completion) {
            try await self.sendSignInCode(to: multiFactorInfo, session: multiFactorSession, presenter: presenter)
        }
    }

    /// `mfaEnrollment:start` of `phoneNumber` for the user of the enrollment `session`.
    func sendEnrollmentCode(to phoneNumber: String, session: MultiFactorSession,
                            presenter: (any WebPagePresenter)?) async throws -> String {
        let (idToken, _) = try session.enrollment()
        return try await sendCode(PhoneMFAInfo(phoneNumber: phoneNumber), presenter: presenter) { backend, info in
            let response = try await backend.startMFAEnrollment(StartMFAEnrollmentRequest(idToken: idToken,
                                                                                         phoneEnrollmentInfo: info))
            return try Self.verificationID(of: response.phoneSessionInfo)
        }
    }

    /// `mfaSignIn:start` of the enrolled phone `hint` for the pending sign-in of `session`.
    private func sendSignInCode(to hint: PhoneMultiFactorInfo, session: MultiFactorSession?,
                                presenter: (any WebPagePresenter)?) async throws -> String {
        guard let session else {
            throw AuthErrorUtils.error(.missingMultiFactorSession)
        }
        let pendingCredential = try session.pendingCredential()
        return try await sendCode(PhoneMFAInfo(phoneNumber: hint.phoneNumber), presenter: presenter) { backend, info in
            let response = try await backend.startMFASignIn(
                StartMFASignInRequest(mfaPendingCredential: pendingCredential, mfaEnrollmentId: hint.uid, phoneSignInInfo: info))
            return try Self.verificationID(of: response.phoneResponseInfo)
        }
    }

    /// The session info of a multi-factor code send; its absence is an `invalidVerificationID`, as for
    /// `sendVerificationCode`.
    private static func verificationID(of info: PhoneSessionInfo?) throws -> String {
        guard let sessionInfo = info?.sessionInfo, !sessionInfo.isEmpty else {
            throw AuthErrorUtils.error(.invalidVerificationID, message: "The server sent no verification ID.")
        }
        return sessionInfo
    }
}
