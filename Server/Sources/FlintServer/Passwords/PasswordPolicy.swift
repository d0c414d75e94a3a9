import FlintWire
import Foundation

/// Identity Platform's password policy: the strength a project asks of new passwords, and whether it is enforced.
///
/// Enforced (`ENFORCE`), a password set by an end user (sign-up, a change, a reset) that misses a requirement is
/// refused with `PASSWORD_DOES_NOT_MEET_REQUIREMENTS` naming what it misses; with `forceUpgradeOnSignin`, so is a
/// sign-in with a correct password that misses one (the user must reset it). Admin calls are not held to it, as in
/// Firebase. Lengths count characters (extended grapheme clusters), as Firebase's minimum of 6 does.
public struct PasswordPolicy: Codable, Sendable, Equatable {
    public var enforced = false
    public var forceUpgradeOnSignIn = false
    /// 6 to 30.
    public var minimumLength = PasswordPolicyResponse.defaultMinPasswordLength
    /// At least `minimumLength`, at most 4096; nil for none.
    public var maximumLength: Int?
    public var requiresLowercase = false
    public var requiresUppercase = false
    public var requiresDigit = false
    public var requiresNonAlphanumeric = false
    /// When the policy was last set, in milliseconds.
    public var updatedAt: Int64 = 0

    public init() {}

    /// The bounds Firebase puts on the lengths a policy may ask for.
    static let minimumLengthRange = 6...30
    static let longestMaximum = 4096

    /// The characters that count as non-alphanumeric (Firebase's list).
    public static let nonAlphanumericCharacters: [String] = [
        "^", "$", "*", ".", "[", "]", "{", "}", "(", ")", "?", "\"", "!", "@", "#", "%", "&", "/", "\\", ",", ">", "<", "'", ":",
        ";", "|", "_", "~", "`", "=", "+", "-",
    ]

    /// Sets the requirements of `options`, checking the lengths against Firebase's bounds.
    mutating func setStrength(_ options: PasswordPolicyResponse.CustomStrengthOptions) throws {
        let minimum = options.minPasswordLength ?? PasswordPolicyResponse.defaultMinPasswordLength
        guard Self.minimumLengthRange.contains(minimum) else {
            throw FlintError(.invalidArgument, "minPasswordLength must be between 6 and 30")
        }
        if let maximum = options.maxPasswordLength, !(minimum...Self.longestMaximum).contains(maximum) {
            throw FlintError(.invalidArgument, "maxPasswordLength must be at least minPasswordLength and at most 4096")
        }
        minimumLength = minimum
        maximumLength = options.maxPasswordLength
        requiresLowercase = options.containsLowercaseCharacter ?? false
        requiresUppercase = options.containsUppercaseCharacter ?? false
        requiresDigit = options.containsNumericCharacter ?? false
        requiresNonAlphanumeric = options.containsNonAlphanumericCharacter ?? false
    }

    /// The requirements as the wire states them (only those that apply).
    var strengthOptions: PasswordPolicyResponse.CustomStrengthOptions {
        func shown(_ flag: Bool) -> Bool? { flag ? true : nil }
        return .init(minPasswordLength: minimumLength, maxPasswordLength: maximumLength,
                     containsLowercaseCharacter: shown(requiresLowercase), containsUppercaseCharacter: shown(requiresUppercase),
                     containsNumericCharacter: shown(requiresDigit), containsNonAlphanumericCharacter: shown(requiresNonAlphanumeric))
    }

    /// The v2 config's `passwordPolicyConfig`.
    static func config(_ policy: PasswordPolicy) -> PasswordPolicyConfig {
        PasswordPolicyConfig(
            passwordPolicyEnforcementState: policy.enforced ? "ENFORCE" : "OFF",
            passwordPolicyVersions: [.init(customStrengthOptions: policy.strengthOptions,
                                           schemaVersion: PasswordPolicyResponse.currentSchemaVersion)],
            forceUpgradeOnSignin: policy.forceUpgradeOnSignIn,
            lastUpdateTime: Date(timeIntervalSince1970: Double(policy.updatedAt) / 1000).formatted(.iso8601))
    }

    /// `GET v2/passwordPolicy`: the project's policy, or Firebase's default (6 characters, not enforced).
    static func response(_ policy: PasswordPolicy?) -> PasswordPolicyResponse {
        let policy = policy ?? PasswordPolicy()
        return PasswordPolicyResponse(
            customStrengthOptions: policy.strengthOptions, allowedNonAlphanumericCharacters: nonAlphanumericCharacters,
            enforcementState: policy.enforced ? "ENFORCE" : "OFF", forceUpgradeOnSignin: policy.forceUpgradeOnSignIn,
            schemaVersion: PasswordPolicyResponse.currentSchemaVersion)
    }

    /// What `password` misses, in Firebase's words; empty when it meets every requirement. The check is the SDKs'
    /// own (`PasswordPolicyResponse.unmetRequirements(of:)`), so a password FlintAuth accepts is one Flint accepts.
    func unmetRequirements(of password: String) -> [String] {
        Self.response(self).unmetRequirements(of: password).map { requirement in
            switch requirement {
            case .minPasswordLength: "Password must contain at least \(minimumLength) characters"
            case .maxPasswordLength: "Password may contain at most \(maximumLength ?? Self.longestMaximum) characters"
            case .containsLowercaseCharacter: "Password must contain a lower case character"
            case .containsUppercaseCharacter: "Password must contain an upper case character"
            case .containsNumericCharacter: "Password must contain a numeric character"
            case .containsNonAlphanumericCharacter: "Password must contain a non-alphanumeric character"
            }
        }
    }

    /// Throws `PASSWORD_DOES_NOT_MEET_REQUIREMENTS` listing what `password` misses.
    func check(_ password: String) throws {
        let unmet = unmetRequirements(of: password)
        guard unmet.isEmpty else {
            throw FlintError(.passwordDoesNotMeetRequirements, "Missing password requirements: [\(unmet.joined(separator: ", "))]")
        }
    }
}

extension Validation {
    /// A password an end user sets: Firebase's rule, then the project's enforced policy (admins are not held to it).
    static func newPassword(_ password: String?, by caller: Caller) throws -> String {
        // The policy's own minimum (6 or more) speaks for the length, in its words.
        if !caller.isAdmin, let policy = caller.project.settings.passwordPolicy, policy.enforced, let password, !password.isEmpty {
            try policy.check(password)
        }
        return try newPassword(password)
    }
}
