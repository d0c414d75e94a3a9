import Crypto
import Foundation

/// What a code is for: a code of one purpose does not redeem as another. The raw values are stored.
enum CodePurpose: String, Sendable {
    case signIn
    case multiFactorEnrollment = "mfaEnrollment"
    case multiFactorSignIn = "mfaSignIn"

    /// How `beforeSendSms` events name the message.
    var smsType: String {
        switch self {
        case .signIn: "SIGN_IN_OR_SIGN_UP"
        case .multiFactorEnrollment: "MULTI_FACTOR_ENROLLMENT"
        case .multiFactorSignIn: "MULTI_FACTOR_SIGN_IN"
        }
    }
}

/// Six-digit codes sent by SMS, and the opaque `sessionInfo` that names one. Shared by phone sign-in
/// and the phone second factor, told apart by `CodePurpose`.
///
/// The client holds the only copy of `sessionInfo`. The store keeps its SHA-256 as the row id and an
/// HMAC of the code keyed with it, so a leaked table gives an attacker no code to try. Codes are single
/// use (the consuming DELETE succeeds for one caller only), expire, and die after a few wrong tries.
struct VerificationCodes: Sendable {
    let store: CodeStore
    let clock: any FlintClock
    let random: any RandomSource
    let limits: PhoneLimits
    /// Emulator mode keeps codes in clear too, for `GET /emulator/v1/projects/{p}/verificationCodes`.
    let policy: ModePolicy

    init(core: ServerCore) {
        store = core.store.codes
        clock = core.clock
        random = core.random
        limits = core.configuration.phoneLimits
        policy = core.policy
    }

    /// A fresh code from the CSPRNG (it may start with 0).
    func newCode() -> String {
        random.string(length: 6, alphabet: "0123456789")
    }

    /// Stores `code` for `phoneNumber` and returns the sessionInfo naming it.
    func issue(code: String, phoneNumber: String, projectID: String, purpose: CodePurpose) async throws -> String {
        let sessionInfo = random.token(byteCount: 48)
        let now = clock.milliseconds
        try await store.insertVerificationCode(VerificationCodeRecord(
            id: Self.id(of: sessionInfo), projectID: projectID, phoneNumber: phoneNumber, purpose: purpose.rawValue,
            codeHash: Self.hash(code: code, sessionInfo: sessionInfo), attempts: 0, createdAt: now,
            expiresAt: now + limits.codeLifetimeSeconds * 1000,
            emulatorSessionInfo: policy.servesEmulatorEndpoints ? sessionInfo : nil,
            emulatorCode: policy.servesEmulatorEndpoints ? code : nil))
        return sessionInfo
    }

    /// Checks `code` against the session and uses it up; returns the phone number it was sent to.
    func redeem(sessionInfo: String?, code: String?, projectID: String, purpose: CodePurpose) async throws -> String {
        guard let sessionInfo, !sessionInfo.isEmpty else { throw FlintError(.missingSessionInfo) }
        guard let code, !code.isEmpty else { throw FlintError(.missingCode) }
        let id = Self.id(of: sessionInfo)
        let now = clock.milliseconds
        // Every try takes one of the code's attempts before the comparison, atomically: parallel guesses get
        // no more comparisons than sequential ones.
        let maxAttempts = Int64(limits.maxAttemptsPerCode)
        guard let record = try await store.takeCodeAttempt(
            id: id, projectID: projectID, purpose: purpose.rawValue, now: now, maxAttempts: maxAttempts)
        else {
            // Why not: no such code (or another project's), expired (it stays until the janitor's sweep, so
            // every late try is told so), or out of tries.
            guard let record = try await store.verificationCode(id: id), record.projectID == projectID, record.purpose == purpose.rawValue
            else { throw FlintError(.invalidSessionInfo) }
            throw FlintError(record.expiresAt <= now ? .sessionExpired : .tooManyAttempts)
        }
        guard constantTimeEquals(Data(Self.hash(code: code, sessionInfo: sessionInfo).utf8), Data(record.codeHash.utf8)) else {
            throw FlintError(record.attempts >= maxAttempts ? .tooManyAttempts : .invalidCode)
        }
        // Two requests with the right code may race; the DELETE lets exactly one through.
        guard try await store.consumeVerificationCode(id: id) else { throw FlintError(.invalidSessionInfo) }
        return record.phoneNumber
    }

    static func id(of sessionInfo: String) -> String {
        Hex.sha256(sessionInfo)
    }

    static func hash(code: String, sessionInfo: String) -> String {
        Hex.encode(HMAC<SHA256>.authenticationCode(for: Data(code.utf8), using: SymmetricKey(data: Data(sessionInfo.utf8))))
    }
}
