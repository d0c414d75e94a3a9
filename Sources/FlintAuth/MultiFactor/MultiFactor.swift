import FlintWire
import Foundation

extension User {
    /// The user's second factors: those enrolled, and enrolling or removing one.
    public var multiFactor: MultiFactor { MultiFactor(user: self) }
}

/// The second factors of one user (`User.multiFactor`).
///
/// ```swift
/// let session = try await user.multiFactor.session()
/// let secret = try await TOTPMultiFactorGenerator.generateSecret(with: session)
/// // … the user adds secret.generateQRCodeURL(withAccountName:issuer:) to an authenticator app …
/// let assertion = TOTPMultiFactorGenerator.assertionForEnrollment(with: secret, oneTimePassword: code)
/// try await user.multiFactor.enroll(with: assertion, displayName: "Authenticator")
/// ```
public final class MultiFactor: NSObject, Sendable {
    private let user: User

    init(user: User) {
        self.user = user
    }

    /// The enrolled second factors, as of the last sign-in or `User.reload()`.
    public var enrolledFactors: [MultiFactorInfo] {
        (user.snapshot.mfaInfo ?? []).compactMap(MultiFactorInfo.make)
    }

    /// A session for enrolling a second factor, for
    /// `PhoneAuthProvider.verifyPhoneNumber(_:uiDelegate:multiFactorSession:)` or
    /// `TOTPMultiFactorGenerator.generateSecret(with:)`.
    public func session() async throws -> MultiFactorSession {
        MultiFactorSession(kind: .enrollment(idToken: try await user.getIDToken(), user: user))
    }

    /// Completion-handler form of `session()`; `completion` runs on the main actor.
    public func getSessionWithCompletion(_ completion: (@MainActor (MultiFactorSession?, (any Error)?) -> Void)?) {
        completeOnMainActor(completion) { try await self.session() }
    }

    /// Enrolls the second factor `assertion` proves (`mfaEnrollment:finalize`) under `displayName`, then
    /// takes the user's new tokens and reloads it, so that `enrolledFactors` lists the factor.
    public func enroll(with assertion: MultiFactorAssertion, displayName: String?) async throws {
        var request = FinalizeMFAEnrollmentRequest(displayName: displayName)
        try assertion.apply(to: &request)
        try await changeFactors { backend, idToken in
            request.idToken = idToken
            return try await backend.finalizeMFAEnrollment(request)
        }
    }

    /// Completion-handler form of `enroll(with:displayName:)`; `completion` runs on the main actor.
    public func enroll(
        with assertion: MultiFactorAssertion,
        displayName: String?,
        completion: (@MainActor ((any Error)?) -> Void)?
    ) {
        completeOnMainActor(completion) { try await self.enroll(with: assertion, displayName: displayName) }
    }

    /// Removes the enrolled second factor `factorInfo` (see `unenroll(withFactorUID:)`).
    public func unenroll(with factorInfo: MultiFactorInfo) async throws {
        try await unenroll(withFactorUID: factorInfo.uid)
    }

    /// Completion-handler form of `unenroll(with:)`; `completion` runs on the main actor.
    public func unenroll(with factorInfo: MultiFactorInfo, completion: (@MainActor ((any Error)?) -> Void)?) {
        unenroll(withFactorUID: factorInfo.uid, completion: completion)
    }

    /// Removes the enrolled second factor whose `uid` is `factorUID` (`mfaEnrollment:withdraw`), then takes
    /// the user's new tokens and reloads it. Fails with `multiFactorInfoNotFound` if there is no such factor.
    public func unenroll(withFactorUID factorUID: String) async throws {
        try await changeFactors { backend, idToken in
            try await backend.withdrawMFA(WithdrawMFARequest(idToken: idToken, mfaEnrollmentId: factorUID))
        }
    }

    /// Completion-handler form of `unenroll(withFactorUID:)`; `completion` runs on the main actor.
    public func unenroll(withFactorUID factorUID: String, completion: (@MainActor ((any Error)?) -> Void)?) {
        completeOnMainActor(completion) { try await self.unenroll(withFactorUID: factorUID) }
    }

    /// Runs an enrollment RPC with a fresh ID token, then takes the new tokens it returns and reloads the user.
    private func changeFactors(_ rpc: (AuthBackend, String) async throws -> MFATokensResponse) async throws {
        try await user.withFreshToken { backend, idToken in
            try await user.adopt(try TokenSnapshot(try await rpc(backend, idToken)), backend: backend)
        }
    }
}
