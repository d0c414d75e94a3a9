import FlintWire
import Foundation

/// The rules of phone-number sign-in: sending codes (`sendVerificationCode`), signing in, linking and
/// re-authenticating with them (`signInWithPhoneNumber`), and the APNs app check (`verifyClient`).
public struct PhoneService: Sendable {
    let accounts: AccountStore
    let tokens: TokenService
    let codes: PhoneCodes
    let proofs: TemporaryProofs
    let pipeline: SignInPipeline
    let clock: any FlintClock
    let random: any RandomSource
    let policy: ModePolicy

    init(core: ServerCore, tokens: TokenService, codes: PhoneCodes, pipeline: SignInPipeline) {
        accounts = core.store.accounts
        self.tokens = tokens
        self.codes = codes
        proofs = TemporaryProofs(core: core)
        self.pipeline = pipeline
        clock = core.clock
        random = core.random
        policy = core.policy
    }

    // MARK: Sending a code

    public func sendVerificationCode(_ request: SendVerificationCodeRequest, caller: Caller) async throws
        -> SendVerificationCodeResponse {
        if caller.project.realm.tenantID != nil, !policy.signsInPhonesInTenants { throw FlintError(.unsupportedTenantOperation) }
        let settings = caller.project.settings
        guard settings.signIn.phoneEnabled else { throw FlintError(.operationNotAllowed) }
        let phoneNumber = try Validation.dialledPhoneNumber(request.phoneNumber)
        if let holder = try await accounts.user(projectID: caller.projectID, phoneNumber: phoneNumber), !holder.mfaFactors.isEmpty {
            throw Self.secondFactorAccount
        }
        let sessionInfo = try await codes.deliver(to: phoneNumber, appCheck: request, caller: caller, purpose: .signIn)
        return SendVerificationCodeResponse(sessionInfo: sessionInfo)
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
            try proofs.check(proof, phoneNumber: try request.phoneNumber.map { try Validation.dialledPhoneNumber($0) },
                             projectID: caller.projectID)
        }
        let phoneNumber: String
        if let proof {
            phoneNumber = proof.phoneNumber
        } else {
            phoneNumber = try await codes.redeem(
                sessionInfo: request.sessionInfo, code: request.code, caller: caller, purpose: .signIn)
        }

        if let idToken = request.idToken, !idToken.isEmpty, request.operation != .reauth {
            return try await link(phoneNumber, idToken: idToken, proof: proof, caller: caller)
        }
        if let proof { try await proofs.redeem(proof) }
        let existing = try await accounts.user(projectID: caller.projectID, phoneNumber: phoneNumber)
        if request.operation == .reauth, existing == nil { throw FlintError(.userNotFound) }
        if let existing { return try await signIn(existing.localID, phoneNumber: phoneNumber, caller: caller) }

        var user = UserAccount(projectID: caller.projectID, localID: random.localID(), createdAt: clock.milliseconds)
        user.phoneNumber = phoneNumber
        do {
            let outcome = try await pipeline.signIn(creating: user, .init(provider: ProviderID.phone))
            return Self.response(outcome, isNewUser: true)
        } catch let error as FlintError where error.is(.phoneNumberExists) {
            // Another request created the same user a moment ago: sign in as that user.
            guard let winner = try await accounts.user(projectID: caller.projectID, phoneNumber: phoneNumber) else { throw FlintError.internalError }
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
        if let owner = try await accounts.user(projectID: caller.projectID, phoneNumber: phoneNumber), owner.localID != verified.user.localID {
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
}
