import FlintWire
import Foundation

/// Second factors: enrolling and withdrawing them (`v2/accounts/mfaEnrollment:*`), and signing in
/// with one after the first factor (`v2/accounts/mfaSignIn:*`). Phone factors reuse phone sign-in's
/// codes, fictional numbers, app verification and limits; TOTP factors follow RFC 6238.
public struct MultiFactorService: Sendable {
    let accounts: AccountStore
    let counters: CounterStore
    let tokens: TokenService
    let phoneCodes: PhoneCodes
    let gate: SecondFactorGate
    let pipeline: SignInPipeline
    let secrets: SecretBox
    /// TOTP enrollment sessions: the new secret, sealed into the `sessionInfo` until finalize.
    let totpEnrollments: SingleUseTokens<TOTPEnrollment>
    let budgets: BudgetLedger
    let clock: any FlintClock
    let random: any RandomSource

    init(core: ServerCore, tokens: TokenService, phoneCodes: PhoneCodes, gate: SecondFactorGate, pipeline: SignInPipeline) {
        accounts = core.store.accounts
        counters = core.store.counters
        self.tokens = tokens
        self.phoneCodes = phoneCodes
        self.gate = gate
        self.pipeline = pipeline
        secrets = core.secrets
        totpEnrollments = core.singleUseTokens(purpose: "totp-enrollment", lifetimeSeconds: 1800)
        budgets = core.budgets
        clock = core.clock
        random = core.random
    }

    /// First factors a second factor cannot be added to (`firebase.sign_in_provider`).
    static let ineligibleFirstFactors: Set<String> = [ProviderID.anonymous, ProviderID.phone, ProviderID.custom, "gc.apple.com"]
    static let phoneAlreadyEnrolled = FlintError(.secondFactorExists, "Phone number already enrolled as second factor for this account.")

    struct TOTPEnrollment: Codable, Sendable {
        var projectID: String
        var localID: String
        /// Base64 of the secret (the token is sealed, so it travels encrypted).
        var secret: String
    }

    // MARK: Enrollment

    public func startEnrollment(_ request: StartMFAEnrollmentRequest, caller: Caller) async throws -> StartMFAEnrollmentResponse {
        let user = try await enrollingUser(request.idToken, caller: caller)
        let settings = caller.project.settings.multiFactor
        if let info = request.phoneEnrollmentInfo {
            guard settings.phone else { throw FlintError(.operationNotAllowed, "SMS multi-factor is disabled for this project.") }
            let number = try Validation.dialledPhoneNumber(info.phoneNumber)
            if user.mfaFactors.contains(where: { $0.phoneNumber == number }) { throw Self.phoneAlreadyEnrolled }
            let sessionInfo = try await phoneCodes.deliver(
                to: number, appCheck: info, caller: caller, purpose: .multiFactorEnrollment)
            return StartMFAEnrollmentResponse(phoneSessionInfo: PhoneSessionInfo(sessionInfo: sessionInfo))
        }
        if request.totpEnrollmentInfo != nil {
            guard settings.totp else { throw FlintError(.operationNotAllowed, "TOTP multi-factor is disabled for this project.") }
            if user.mfaFactors.contains(where: { $0.kind == .totp }) { throw FlintError(.secondFactorExists) }
            let secret = Data(random.bytes(TOTP.secretLength))
            let session = try totpEnrollments.make(TOTPEnrollment(
                projectID: caller.projectID, localID: user.localID, secret: secret.base64EncodedString()))
            return StartMFAEnrollmentResponse(totpSessionInfo: TOTPSessionInfo(
                sharedSecretKey: TOTP.base32(secret), verificationCodeLength: TOTP.digits, hashingAlgorithm: TOTP.algorithm,
                periodSec: Int(TOTP.period), sessionInfo: session,
                finalizeEnrollmentTime: UserRecord.iso8601(milliseconds: (clock.seconds + totpEnrollments.lifetimeSeconds) * 1000)))
        }
        throw FlintError(.invalidArgument, "phoneEnrollmentInfo or totpEnrollmentInfo is required.")
    }

    public func finalizeEnrollment(_ request: FinalizeMFAEnrollmentRequest, caller: Caller) async throws -> MFATokensResponse {
        try Self.requireEnrollment(in: caller.project)
        let verified = try await tokens.verifyIDToken(request.idToken, projectID: caller.projectID)
        let user = try await enrollingUser(verified, caller: caller)
        let enrollmentID = random.localID()
        let factor: SecondFactor
        if let info = request.phoneVerificationInfo {
            let number = try await phoneCodes.redeem(
                sessionInfo: info.sessionInfo, code: info.code, caller: caller, purpose: .multiFactorEnrollment)
            if user.mfaFactors.contains(where: { $0.phoneNumber == number }) { throw Self.phoneAlreadyEnrolled }
            factor = SecondFactor(enrollmentID: enrollmentID, kind: .phone, displayName: request.displayName,
                                  phoneNumber: number, enrolledAt: clock.milliseconds)
        } else if let info = request.totpVerificationInfo {
            guard let sessionInfo = info.sessionInfo, !sessionInfo.isEmpty else { throw FlintError(.missingSessionInfo) }
            guard let session = totpEnrollments.open(sessionInfo), session.payload.projectID == caller.projectID,
                  session.payload.localID == user.localID, let secret = Data(base64Encoded: session.payload.secret)
            else { throw FlintError(.invalidSessionInfo) }
            guard totpEnrollments.isLive(session) else { throw FlintError(.sessionExpired) }
            if user.mfaFactors.contains(where: { $0.kind == .totp }) { throw FlintError(.secondFactorExists) }
            // Wrong codes are counted per enrollment session (the factor has no id yet).
            let step = try await checkTOTP(info.verificationCode, secret: secret,
                                           failureKey: "enrollment:\(Hex.sha256(sessionInfo))", caller: caller)
            guard try await totpEnrollments.redeem(session) else { throw FlintError(.invalidSessionInfo) }
            try await spend(step, enrollmentID: enrollmentID, user: user)
            factor = SecondFactor(
                enrollmentID: enrollmentID, kind: .totp, displayName: request.displayName,
                sealedSecret: try secrets.seal(secret, context: Self.secretContext(user, enrollmentID: enrollmentID)),
                enrolledAt: clock.milliseconds)
        } else {
            throw FlintError(.invalidArgument, "phoneVerificationInfo or totpVerificationInfo is required.")
        }
        // The factor list is decided on the account as stored now: a concurrent enrollment is not lost, and
        // the limit and duplicate rules hold against it.
        var attempt = SignInPipeline.Attempt.reissue(for: verified) { current in
            guard current.mfaFactors.count < SecondFactor.maximumPerAccount else { throw FlintError(.secondFactorLimitExceeded) }
            if factor.kind == .totp, current.mfaFactors.contains(where: { $0.kind == .totp }) { throw FlintError(.secondFactorExists) }
            if factor.kind == .phone, current.mfaFactors.contains(where: { $0.phoneNumber == factor.phoneNumber }) {
                throw Self.phoneAlreadyEnrolled
            }
            return AccountChange([.secondFactors(current.mfaFactors + [factor])])
        }
        attempt.secondFactor = PassedSecondFactor(kind: factor.kind.rawValue, enrollmentID: factor.enrollmentID)
        return try tokenResponse(try await pipeline.signIn(user.localID, projectID: caller.projectID, attempt))
    }

    public func withdraw(_ request: WithdrawMFARequest, caller: Caller) async throws -> MFATokensResponse {
        let verified = try await tokens.verifyIDToken(request.idToken, projectID: caller.projectID)
        try tokens.requireRecentSignIn(verified)
        guard let enrollmentID = request.mfaEnrollmentId, !enrollmentID.isEmpty else { throw FlintError(.missingMFAEnrollmentID) }
        var attempt = SignInPipeline.Attempt.reissue(for: verified) { current in
            guard current.mfaFactors.contains(where: { $0.enrollmentID == enrollmentID }) else {
                throw FlintError(.mfaEnrollmentNotFound)
            }
            return AccountChange([.secondFactors(current.mfaFactors.filter { $0.enrollmentID != enrollmentID })])
        }
        let claims = verified.claims.firebase
        attempt.secondFactor = claims.secondFactorIdentifier.flatMap { id -> PassedSecondFactor? in
            guard id != enrollmentID, let kind = claims.signInSecondFactor else { return nil }
            return PassedSecondFactor(kind: kind, enrollmentID: id)
        }
        return try tokenResponse(try await pipeline.signIn(verified.user.localID, projectID: caller.projectID, attempt))
    }

    /// The answer of enrollment, withdrawal and second-factor sign-in: the new tokens.
    private func tokenResponse(_ outcome: SignInPipeline.Outcome) throws -> MFATokensResponse {
        let issued = try outcome.tokens()
        return MFATokensResponse(idToken: issued.idToken, refreshToken: issued.refreshToken)
    }

    /// The user of `idToken`, if it may enroll now: MFA on for the project, a recent sign-in, a verified
    /// email (as Firebase asks), and room for another factor.
    private func enrollingUser(_ idToken: String?, caller: Caller) async throws -> UserAccount {
        try Self.requireEnrollment(in: caller.project)
        return try await enrollingUser(try await tokens.verifyIDToken(idToken, projectID: caller.projectID), caller: caller)
    }

    /// Enrollment needs MFA on with a factor kind on, which is checked before the caller's token (as Firebase does).
    private static func requireEnrollment(in project: Project) throws {
        let settings = project.settings.multiFactor
        guard settings.enabled, settings.phone || settings.totp else {
            throw FlintError(.operationNotAllowed, "Multi-factor authentication is disabled for this project.")
        }
    }

    private func enrollingUser(_ verified: TokenService.VerifiedIDToken, caller: Caller) async throws
        -> UserAccount {
        try Self.requireEnrollment(in: caller.project)
        // A second factor is for accounts a first factor proves well: not anonymous, phone (the factor
        // would be the same), custom-token or Game Center sign-ins, as Firebase rules.
        guard !Self.ineligibleFirstFactors.contains(verified.claims.firebase.signInProvider) else {
            throw FlintError(.unsupportedFirstFactor, "MFA is not available for the given first factor.")
        }
        try tokens.requireRecentSignIn(verified)
        let user = verified.user
        guard user.email != nil, user.emailVerified else {
            throw FlintError(.unverifiedEmail, "Need to verify email first before enrolling second factors.")
        }
        guard user.mfaFactors.count < SecondFactor.maximumPerAccount else { throw FlintError(.secondFactorLimitExceeded) }
        return user
    }

    // MARK: Sign-in

    public func startSignIn(_ request: StartMFASignInRequest, caller: Caller) async throws -> StartMFASignInResponse {
        try Self.requireSignIn(with: .phone, in: caller.project)
        let (_, user) = try await pendingSignIn(request.mfaPendingCredential, caller: caller)
        let factor = try enrolledFactor(request.mfaEnrollmentId, of: user)
        guard factor.kind == .phone, let number = factor.phoneNumber else {
            throw FlintError(.invalidArgument, "mfaSignIn:start sends SMS codes; this factor is not a phone.")
        }
        // The SDK sends the masked hint as the number; the code goes to the enrolled number.
        let sessionInfo = try await phoneCodes.deliver(
            to: number, appCheck: request.phoneSignInInfo ?? PhoneMFAInfo(), caller: caller, purpose: .multiFactorSignIn)
        return StartMFASignInResponse(phoneResponseInfo: PhoneSessionInfo(sessionInfo: sessionInfo))
    }

    public func finalizeSignIn(_ request: FinalizeMFASignInRequest, caller: Caller) async throws -> MFATokensResponse {
        try Self.requireSignIn(with: request.totpVerificationInfo != nil ? .totp : .phone, in: caller.project)
        let (pending, user) = try await pendingSignIn(request.mfaPendingCredential, caller: caller)
        let factor: SecondFactor
        if let info = request.phoneVerificationInfo {
            let number = try await phoneCodes.redeem(
                sessionInfo: info.sessionInfo, code: info.code, caller: caller, purpose: .multiFactorSignIn)
            guard let match = user.mfaFactors.first(where: { $0.kind == .phone && $0.phoneNumber == number }) else {
                throw FlintError(.mfaEnrollmentNotFound)
            }
            factor = match
        } else if let info = request.totpVerificationInfo {
            factor = try enrolledFactor(request.mfaEnrollmentId, of: user)
            guard factor.kind == .totp, let sealed = factor.sealedSecret else { throw FlintError(.mfaEnrollmentNotFound) }
            let secret = try secrets.open(sealed, context: Self.secretContext(user, enrollmentID: factor.enrollmentID))
            let step = try await checkTOTP(
                info.verificationCode, secret: secret,
                failureKey: "\(user.localID):\(factor.enrollmentID)", caller: caller)
            try await spend(step, enrollmentID: factor.enrollmentID, user: user)
        } else {
            throw FlintError(.invalidArgument, "phoneVerificationInfo or totpVerificationInfo is required.")
        }
        guard try await gate.pendingSignIns.redeem(pending) else { throw FlintError(.invalidMFAPendingCredential) }
        let firstFactorEpoch = pending.payload.sessionEpoch
        var attempt = SignInPipeline.Attempt(provider: pending.payload.signInProvider) { current in
            // A revocation since the first factor (a new password, a reset) voids it; so does a withdrawn factor.
            guard current.sessionEpoch == firstFactorEpoch else { throw FlintError(.invalidMFAPendingCredential) }
            guard current.mfaFactors.contains(where: { $0.enrollmentID == factor.enrollmentID }) else {
                throw FlintError(.mfaEnrollmentNotFound)
            }
            return AccountChange()
        }
        attempt.asksSecondFactor = false
        attempt.secondFactor = PassedSecondFactor(kind: factor.kind.rawValue, enrollmentID: factor.enrollmentID)
        return try tokenResponse(try await pipeline.signIn(user.localID, projectID: caller.projectID, attempt))
    }

    /// A second-factor sign-in needs multi-factor on with the factor's kind on, which is checked before anything
    /// the request carries (as Firebase does).
    private static func requireSignIn(with kind: SecondFactor.Kind, in project: Project) throws {
        let settings = project.settings.multiFactor
        switch kind {
        case .phone:
            guard settings.enabled, settings.phone else { throw FlintError(.operationNotAllowed, "SMS based MFA not enabled.") }
        case .totp:
            guard settings.enabled, settings.totp else { throw FlintError(.operationNotAllowed, "TOTP based MFA not enabled.") }
        }
    }

    /// The pending sign-in a credential stands for, and its user as stored now.
    private func pendingSignIn(_ credential: String?, caller: Caller) async throws
        -> (SingleUseTokens<SecondFactorGate.PendingSignIn>.Opened, UserAccount) {
        guard let credential, !credential.isEmpty else { throw FlintError(.missingMFAPendingCredential) }
        guard let pending = gate.pendingSignIns.open(credential), pending.payload.projectID == caller.projectID,
              gate.pendingSignIns.isLive(pending), !(try await gate.pendingSignIns.isSpent(pending))
        else { throw FlintError(.invalidMFAPendingCredential) }
        guard let user = try await accounts.user(projectID: caller.projectID, localID: pending.payload.localID) else {
            throw FlintError(.userNotFound)
        }
        return (pending, user)
    }

    private func enrolledFactor(_ enrollmentID: String?, of user: UserAccount) throws -> SecondFactor {
        guard let enrollmentID, !enrollmentID.isEmpty else { throw FlintError(.missingMFAEnrollmentID) }
        guard let factor = user.mfaFactors.first(where: { $0.enrollmentID == enrollmentID }) else {
            throw FlintError(.mfaEnrollmentNotFound)
        }
        return factor
    }

    // MARK: TOTP codes

    /// The step `code` belongs to, within the project's window. Tries are spent from `Budget.totpTries` under
    /// `failureKey` (the factor, or the enrollment session), each before the comparison, so parallel guesses get no
    /// more comparisons than sequential ones. A right code gives them back.
    private func checkTOTP(_ code: String?, secret: Data, failureKey: String, caller: Caller) async throws -> Int64 {
        guard let code, !code.isEmpty else { throw FlintError(.missingTOTPCode) }
        let now = clock.seconds
        try await budgets.spend(.totpTries, in: caller.projectID, for: failureKey)
        guard let step = TOTP.matchingStep(
            of: code, secret: secret, now: now, window: caller.project.settings.multiFactor.totpAdjacentIntervals)
        else { throw FlintError(.invalidCode) }
        try await budgets.refund(.totpTries, in: caller.projectID, for: failureKey)
        return step
    }

    /// Marks a code's step used for this factor, on every node; a second use (a replay) is refused.
    private func spend(_ step: Int64, enrollmentID: String, user: UserAccount) async throws {
        let bucket = "totp-step:\(user.projectID):\(user.localID):\(enrollmentID):\(step)"
        guard try await counters.incrementCounter(bucket, windowStart: step * TOTP.period) == 1 else {
            throw FlintError(.invalidCode, "This code has been used already.")
        }
    }

    private static func secretContext(_ user: UserAccount, enrollmentID: String) -> String {
        "totp-secret:\(user.projectID):\(user.localID):\(enrollmentID)"
    }
}
