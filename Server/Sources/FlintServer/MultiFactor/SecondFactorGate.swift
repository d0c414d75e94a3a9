import FlintWire
import Foundation

/// Stands between a first factor and the tokens: a user with enrolled second factors gets an
/// `mfaPendingCredential` and the list of factors (`mfaInfo`) instead of tokens, and finishes with
/// `v2/accounts/mfaSignIn:*`. Every first-factor sign-in (password, email link, phone, Apple, Facebook)
/// asks the gate before issuing tokens; linking and enrollment do not (their caller is signed in already).
///
/// The pending credential is sealed with the master key, names the project, user and first factor,
/// expires after ten minutes and is spent by the one `mfaSignIn:finalize` that succeeds.
struct SecondFactorGate: Sendable {
    /// What a pending credential carries.
    struct PendingSignIn: Codable, Sendable {
        var projectID: String
        var localID: String
        /// The first factor (`password`, `phone`, `apple.com`, …): the final tokens' `sign_in_provider`.
        var signInProvider: String
        /// The account's session epoch when the first factor passed: a revocation since (a password
        /// change, a reset) voids the pending sign-in.
        var sessionEpoch: Int64
    }

    /// Instead of tokens: the credential that continues the sign-in, and the factors to choose from.
    struct Challenge: Sendable {
        var pendingCredential: String
        var mfaInfo: [MFAEnrollment]
    }

    static let lifetimeSeconds: Int64 = 600

    let pendingSignIns: SingleUseTokens<PendingSignIn>

    init(core: ServerCore) {
        pendingSignIns = core.singleUseTokens(purpose: "mfa-pending-credential", lifetimeSeconds: Self.lifetimeSeconds)
    }

    /// The challenge for `user` if it has second factors, else nil (tokens may be issued).
    func challenge(for user: UserAccount, signInProvider: String) throws -> Challenge? {
        guard !user.mfaFactors.isEmpty else { return nil }
        let credential = try pendingSignIns.make(PendingSignIn(
            projectID: user.projectID, localID: user.localID, signInProvider: signInProvider,
            sessionEpoch: user.sessionEpoch))
        return Challenge(pendingCredential: credential, mfaInfo: user.mfaFactors.map { $0.wire(maskingPhone: true) })
    }
}

extension SecondFactor {
    /// The `mfaInfo` entry. First-factor answers mask the number (`+*******0111`): whoever has only the
    /// password must not learn the phone number. Unmasked entries (user records) also carry the number as
    /// `unobfuscatedPhoneInfo`, as Firebase's do.
    func wire(maskingPhone: Bool) -> MFAEnrollment {
        MFAEnrollment(
            mfaEnrollmentId: enrollmentID, displayName: displayName,
            phoneInfo: phoneNumber.map { maskingPhone ? Self.masked($0) : $0 },
            totpInfo: kind == .totp ? TOTPInfo() : nil,
            enrolledAt: UserRecord.iso8601(milliseconds: enrolledAt),
            unobfuscatedPhoneInfo: maskingPhone ? nil : phoneNumber)
    }

    /// `+` and the last four digits shown, every other digit a `*`.
    static func masked(_ phoneNumber: String) -> String {
        let digits = phoneNumber.filter(\.isNumber)
        return "+" + String(repeating: "*", count: max(digits.count - 4, 0)) + String(digits.suffix(4))
    }
}
