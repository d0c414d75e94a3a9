import FlintWire
import Foundation
import Logging

/// The rules of phone-number sign-in: sending codes (`sendVerificationCode`), signing in, linking and
/// re-authenticating with them (`signInWithPhoneNumber`), and the APNs app check (`verifyClient`).
public struct PhoneService: Sendable {
    let store: Store
    let tokens: TokenService
    let codes: VerificationCodes
    let proofs: TemporaryProofs
    let limits: SendLimits
    let appVerifier: AppVerifier
    let sms: any SMSSender
    let usage: UsageCounters
    let pipeline: SignInPipeline
    let clock: any FlintClock
    let random: any RandomSource
    let policy: ModePolicy

    // MARK: Sending a code

    public func sendVerificationCode(_ request: SendVerificationCodeRequest, caller: Caller) async throws
        -> SendVerificationCodeResponse {
        if caller.project.realm.tenantID != nil, !policy.signsInPhonesInTenants { throw FlintError(.unsupportedTenantOperation) }
        let settings = caller.project.settings
        guard settings.signIn.phoneEnabled else { throw FlintError(.operationNotAllowed) }
        let phoneNumber = try Self.phoneNumber(request.phoneNumber)
        if let holder = try await store.user(projectID: caller.projectID, phoneNumber: phoneNumber), !holder.mfaFactors.isEmpty {
            throw Self.secondFactorAccount
        }
        let sessionInfo = try await deliverCode(to: phoneNumber, appCheck: request, caller: caller, purpose: VerificationCodes.signIn)
        return SendVerificationCodeResponse(sessionInfo: sessionInfo)
    }

    /// Everything sending a code takes, for sign-in and second factors alike. Fictional numbers get their
    /// fixed code with no SMS or app check, within the client's budget; real ones need the app credential
    /// in `appCheck`, an allowed region, and room under every limit.
    func deliverCode(to phoneNumber: String, appCheck: SendVerificationCodeRequest, caller: Caller, purpose: String)
        async throws -> String {
        let settings = caller.project.settings
        if let fixedCode = settings.phone.testNumbers[phoneNumber] {
            if policy.limitsSMSSends { try await limits.admit(client: caller.clientLimitKey, projectID: caller.projectID) }
            return try await codes.issue(code: fixedCode, phoneNumber: phoneNumber, projectID: caller.projectID, purpose: purpose)
        }
        try await refusing(.captcha, caller: caller) { try await appVerifier.check(appCheck, caller: caller) }
        try await refusing(.regionPolicy, caller: caller) {
            try Self.checkRegion(of: phoneNumber, policy: settings.phone.regionPolicy)
            if settings.phone.deniedPrefixes.contains(where: { phoneNumber.hasPrefix($0) }) {
                throw FlintError(.operationNotAllowed, "SMS to this number is not allowed by the project's SMS defences.")
            }
        }
        if policy.limitsSMSSends {
            try await refusing(.rateLimit, caller: caller) {
                try await limits.admit(phoneNumber: phoneNumber, projectID: caller.projectID, client: caller.clientLimitKey,
                                       purpose: purpose, regionDailyCap: settings.phone.regionDailyCap)
            }
        }
        // A project's beforeSendSms function may refuse the SMS; fictional numbers, which get none, are not asked about.
        try await pipeline.blockingFunctions.beforeSending(
            .sms(phoneNumber: phoneNumber, type: Self.blockingFunctionSMSType(purpose)), in: caller.project.realm,
            settings: settings.blockingFunctions)
        return try await sendCode(to: phoneNumber, caller: caller, purpose: purpose)
    }

    /// What a code is for, as `beforeSendSms` events name it.
    private static func blockingFunctionSMSType(_ purpose: String) -> String {
        switch purpose {
        case MultiFactorService.enrollmentPurpose: "MULTI_FACTOR_ENROLLMENT"
        case MultiFactorService.signInPurpose: "MULTI_FACTOR_SIGN_IN"
        default: "SIGN_IN_OR_SIGN_UP"
        }
    }

    /// Runs a defence, counting its refusal as an SMS refused for `reason`.
    private func refusing(_ reason: UsageCounters.Refusal, caller: Caller, _ defence: () async throws -> Void) async throws {
        try await usage.countingRefusal(reason, of: .sms, projectID: caller.projectID, provider: sms.metricsName, defence)
    }

    /// Issues a fresh code and sends it by SMS; the code is withdrawn if the SMS cannot be sent.
    private func sendCode(to phoneNumber: String, caller: Caller, purpose: String) async throws -> String {
        let code = codes.newCode()
        let sessionInfo = try await codes.issue(code: code, phoneNumber: phoneNumber, projectID: caller.projectID, purpose: purpose)
        let text = SMSText.message(code: code, appName: caller.project.realm.projectID, locale: caller.locale)
        do {
            try await sms.send(SMSMessage(
                projectID: caller.projectID, phoneNumber: phoneNumber, code: code, text: text.text, locale: text.locale))
        } catch {
            usage.count(.failed, .sms, projectID: caller.projectID, provider: sms.metricsName)
            try? await store.deleteVerificationCode(id: VerificationCodes.id(of: sessionInfo))
            throw FlintError.unavailable("Sending the verification code", cause: error)
        }
        usage.count(.sent, .sms, projectID: caller.projectID, provider: sms.metricsName)
        return sessionInfo
    }

    /// A phone number is no first factor for an account with second factors (Firebase's rule: the SMS
    /// would prove the same thing twice).
    static let secondFactorAccount = FlintError(
        .unsupportedFirstFactor, "A phone number cannot be set as a first factor on an SMS based MFA user.")

    // MARK: Signing in

    public func signInWithPhoneNumber(_ request: SignInWithPhoneNumberRequest, caller: Caller) async throws
        -> SignInWithPhoneNumberResponse {
        if caller.project.realm.tenantID != nil, !policy.signsInPhonesInTenants { throw FlintError(.unsupportedTenantOperation) }
        guard caller.project.settings.signIn.phoneEnabled else { throw FlintError(.operationNotAllowed) }
        // A temporary proof stands in for a code; it is used up only once the request will succeed.
        let proof = try request.temporaryProof.flatMap { $0.isEmpty ? nil : $0 }.map { proof in
            try proofs.check(proof, phoneNumber: try request.phoneNumber.map { try Self.phoneNumber($0) },
                             projectID: caller.projectID)
        }
        let phoneNumber: String
        if let proof {
            phoneNumber = proof.phoneNumber
        } else {
            phoneNumber = try await codes.redeem(
                sessionInfo: request.sessionInfo, code: request.code, projectID: caller.projectID,
                purpose: VerificationCodes.signIn)
        }

        if let idToken = request.idToken, !idToken.isEmpty, request.operation != .reauth {
            return try await link(phoneNumber, idToken: idToken, proof: proof, caller: caller)
        }
        if let proof { try await proofs.redeem(proof) }
        let existing = try await store.user(projectID: caller.projectID, phoneNumber: phoneNumber)
        if request.operation == .reauth, existing == nil { throw FlintError(.userNotFound) }
        if let existing { return try await signIn(existing.localID, phoneNumber: phoneNumber, caller: caller) }

        var user = UserAccount(projectID: caller.projectID, localID: random.localID(), createdAt: clock.milliseconds)
        user.phoneNumber = phoneNumber
        do {
            let outcome = try await pipeline.signIn(creating: user, .init(provider: ProviderID.phone))
            return Self.response(outcome, isNewUser: true)
        } catch let error as FlintError where error.is(.phoneNumberExists) {
            // Another request created the same user a moment ago: sign in as that user.
            guard let winner = try await store.user(projectID: caller.projectID, phoneNumber: phoneNumber) else { throw FlintError.internalError }
            return try await signIn(winner.localID, phoneNumber: phoneNumber, caller: caller)
        }
    }

    /// Signs in to the account that holds `phoneNumber` (still, when its row is locked).
    private func signIn(_ localID: String, phoneNumber: String, caller: Caller) async throws -> SignInWithPhoneNumberResponse {
        let outcome = try await pipeline.signIn(localID, projectID: caller.projectID, .init(provider: ProviderID.phone) { current in
            guard current.phoneNumber == phoneNumber else { throw FlintError(.userNotFound) }
            guard current.mfaFactors.isEmpty else { throw Self.secondFactorAccount }
            return AccountChange()
        })
        return Self.response(outcome, isNewUser: false)
    }

    /// Adds (or replaces) the phone number of the user in `idToken`. A number held by another account
    /// is not taken: the answer carries a temporary proof instead, which signs in as that account.
    private func link(_ phoneNumber: String, idToken: String, proof: TemporaryProofs.Checked?, caller: Caller) async throws
        -> SignInWithPhoneNumberResponse {
        let verified = try await tokens.verifyIDToken(idToken, projectID: caller.projectID)
        try tokens.requireRecentSignIn(verified, toChangeCredentialsOf: verified.user)
        if let owner = try await store.user(projectID: caller.projectID, phoneNumber: phoneNumber), owner.localID != verified.user.localID {
            if proof != nil { throw FlintError(.phoneNumberExists) }
            return SignInWithPhoneNumberResponse(
                phoneNumber: phoneNumber, temporaryProof: try proofs.make(phoneNumber: phoneNumber, projectID: caller.projectID),
                temporaryProofExpiresIn: String(TemporaryProofs.lifetimeSeconds))
        }
        if let proof { try await proofs.redeem(proof) }
        let attempt = SignInPipeline.Attempt.reissue(for: verified, provider: ProviderID.phone) { [tokens] current in
            try tokens.requireRecentSignIn(verified, toChangeCredentialsOf: current)
            guard current.mfaFactors.isEmpty else { throw Self.secondFactorAccount }
            return AccountChange([.phoneNumber(phoneNumber)])
        }
        return Self.response(try await pipeline.signIn(verified.user.localID, projectID: caller.projectID, attempt), isNewUser: false)
    }

    /// The wire answer for a pipeline outcome: tokens, or the second-factor challenge.
    private static func response(_ outcome: SignInPipeline.Outcome, isNewUser: Bool) -> SignInWithPhoneNumberResponse {
        var response = SignInWithPhoneNumberResponse(localId: outcome.user.localID, phoneNumber: outcome.user.phoneNumber)
        outcome.fill(&response)
        if response.idToken != nil { response.isNewUser = isNewUser }
        return response
    }

    // MARK: Rules

    /// Firebase's phone format: E.164, `+` and 7 to 15 digits; spaces, dots, dashes and brackets are
    /// dropped first.
    static func phoneNumber(_ raw: String?) throws -> String {
        // Firebase answers a missing number as a malformed one.
        guard let raw, !raw.isEmpty else { throw FlintError(.invalidPhoneNumber, "Invalid format.") }
        let cleaned = raw.filter { !" \t.-()".contains($0) }
        return try Validation.phoneNumber(cleaned)
    }

    /// Refuses numbers of regions the project's `smsRegionConfig` excludes. A calling code shared by
    /// several regions (+1, +7, +44…) counts as allowed if any of them is allowed.
    static func checkRegion(of phoneNumber: String, policy: ProjectSettings.Phone.RegionPolicy) throws {
        let regions = PhoneRegions.regions(ofE164: phoneNumber)
        let allowed: Bool
        switch policy {
        case .allowByDefault(let disallowed):
            allowed = regions.isEmpty || regions.contains { !disallowed.contains($0) }
        case .allowlistOnly(let allowedRegions):
            allowed = regions.contains { allowedRegions.contains($0) }
        }
        if !allowed {
            throw FlintError(.operationNotAllowed, "SMS unable to be sent until this region enabled by the app developer.")
        }
    }
}
