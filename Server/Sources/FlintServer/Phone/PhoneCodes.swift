import FlintWire
import Foundation

/// Codes sent by SMS, as phone sign-in and phone second factors both use them: sending one past every defence
/// (fictional numbers, the app check, the region policy, the SMS budgets, `beforeSendSms`) and redeeming it.
/// Neither feature reaches into the other: both are handed this.
struct PhoneCodes: Sendable {
    let codes: VerificationCodes
    let appVerifier: AppVerifier
    let sms: any SMSSender
    let usage: UsageCounters
    let blockingFunctions: BlockingFunctions
    let store: CodeStore
    let budgets: BudgetLedger
    let clock: any FlintClock
    let limits: PhoneLimits
    let policy: ModePolicy

    init(core: ServerCore, appVerifier: AppVerifier, sms: any SMSSender, usage: UsageCounters,
         blockingFunctions: BlockingFunctions) {
        codes = VerificationCodes(core: core)
        self.appVerifier = appVerifier
        self.sms = sms
        self.usage = usage
        self.blockingFunctions = blockingFunctions
        store = core.store.codes
        budgets = core.budgets
        clock = core.clock
        limits = core.configuration.phoneLimits
        policy = core.policy
    }

    /// Sends a code for `purpose` and returns its `sessionInfo`. Fictional numbers get their fixed code with no SMS
    /// or app check, within the client's budgets and the number's own (`Budget.testNumberSessions`); real ones need the app credential in `appCheck`, an allowed
    /// region, and room in every SMS budget (`Budget.smsSends`, which the routes that call this declare).
    func deliver(to phoneNumber: String, appCheck: SendVerificationCodeRequest, caller: Caller, purpose: CodePurpose)
        async throws -> String {
        let settings = caller.project.settings
        if let fixedCode = settings.phone.testNumbers[phoneNumber] {
            try await spendClientBudget(caller)
            try await budgets.spend(.testNumberSessions, in: caller.projectID, for: phoneNumber)
            return try await codes.issue(code: fixedCode, phoneNumber: phoneNumber, projectID: caller.projectID, purpose: purpose)
        }
        try await refusing(.captcha, caller: caller) { try await appVerifier.check(appCheck, caller: caller) }
        try await refusing(.regionPolicy, caller: caller) {
            try Self.checkRegion(of: phoneNumber, policy: settings.phone.regionPolicy)
            if settings.phone.deniedPrefixes.contains(where: { phoneNumber.hasPrefix($0) }) {
                throw FlintError(.operationNotAllowed, "SMS to this number is not allowed by the project's SMS defences.")
            }
        }
        try await refusing(.rateLimit, caller: caller) {
            try await spendBudgets(phoneNumber: phoneNumber, caller: caller, purpose: purpose,
                                   regionDailyCap: settings.phone.regionDailyCap)
        }
        // A project's beforeSendSms function may refuse the SMS; fictional numbers, which get none, are not asked about.
        try await blockingFunctions.beforeSending(
            .sms(phoneNumber: phoneNumber, type: purpose.smsType), in: caller.project.realm, settings: settings.blockingFunctions)
        return try await send(to: phoneNumber, caller: caller, purpose: purpose)
    }

    /// Checks `code` against the session and uses it up; returns the phone number it was sent to.
    func redeem(sessionInfo: String?, code: String?, caller: Caller, purpose: CodePurpose) async throws -> String {
        try await codes.redeem(sessionInfo: sessionInfo, code: code, projectID: caller.projectID, purpose: purpose)
    }

    // MARK: Budgets

    /// Spends one send of every SMS budget, and throws if any is spent; nothing may be sent after a throw. The
    /// client's and the number's budgets are asked first: a pumping script they refuse takes none of the project's
    /// quota, which its real users need. A shortest interval between two codes to one number comes before them all.
    private func spendBudgets(phoneNumber: String, caller: Caller, purpose: CodePurpose, regionDailyCap: Int64?) async throws {
        guard policy.limitsSMSSends else { return }
        if let last = try await store.lastVerificationCodeSent(
            projectID: caller.projectID, phoneNumber: phoneNumber, purpose: purpose.rawValue),
           clock.milliseconds - last < limits.resendIntervalSeconds * 1000 {
            throw FlintError(.tooManyAttempts, "Wait before asking for another code for this number.")
        }
        try await spendClientBudget(caller)
        try await budgets.spend(.smsPerNumber, in: caller.projectID, for: phoneNumber)
        // Numbers are counted by the regions their calling code serves (+1: all of NANP at once).
        let region = PhoneRegions.regions(ofE164: phoneNumber).sorted().joined(separator: ",")
        try await budgets.spend(.smsPerRegion, in: caller.projectID, for: region, projectLimit: regionDailyCap)
        try await budgets.spend(.smsPerProject, in: caller.projectID)
    }

    /// The client's budget alone: what fictional test numbers, which send nothing, are held to, so their codes
    /// cannot be requested (and guessed) without bound. Clients are counted by `Caller.clientLimitKey`.
    private func spendClientBudget(_ caller: Caller) async throws {
        guard let client = caller.clientLimitKey else { return }
        try await budgets.spend(.smsPerClientMinute, .smsPerClientHour, in: caller.projectID, for: client)
    }

    // MARK: Sending

    /// Issues a fresh code and sends it by SMS; the code is withdrawn if the SMS cannot be sent.
    private func send(to phoneNumber: String, caller: Caller, purpose: CodePurpose) async throws -> String {
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

    /// Runs a defence, counting its refusal as an SMS refused for `reason`.
    private func refusing(_ reason: UsageCounters.Refusal, caller: Caller, _ defence: () async throws -> Void) async throws {
        try await usage.countingRefusal(reason, of: .sms, projectID: caller.projectID, provider: sms.metricsName, defence)
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
