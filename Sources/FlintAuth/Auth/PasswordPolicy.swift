import FlintWire
import Foundation

/// The password policy of the project, or of a tenant: the rules ``Auth/validatePassword(_:)`` checks a
/// password against, and that the server enforces when ``enforcementState`` is `ENFORCE`.
///
/// The names are those of the web SDK's `PasswordPolicy`, with its `customStrengthOptions` as properties of
/// their own. Lengths count characters as Swift's `String.count` does (and as the Flint server does): an emoji, or
/// a letter with a combining accent, is one character. The web SDK counts UTF-16 code units, so the two differ
/// for characters made of more than one.
public final class PasswordPolicy: NSObject, Sendable {
    private let policy: PasswordPolicyResponse

    /// The fewest characters a password may have; 6 when the policy sets no minimum.
    public var minPasswordLength: Int { policy.minPasswordLength }

    /// The most characters a password may have, or `nil` for no maximum.
    public var maxPasswordLength: Int? { options.maxPasswordLength }

    /// Whether a password must contain a lowercase letter (`a`–`z`).
    public var containsLowercaseLetter: Bool { options.containsLowercaseCharacter ?? false }

    /// Whether a password must contain an uppercase letter (`A`–`Z`).
    public var containsUppercaseLetter: Bool { options.containsUppercaseCharacter ?? false }

    /// Whether a password must contain a digit (`0`–`9`).
    public var containsNumericCharacter: Bool { options.containsNumericCharacter ?? false }

    /// Whether a password must contain one of ``allowedNonAlphanumericCharacters``.
    public var containsNonAlphanumericCharacter: Bool { options.containsNonAlphanumericCharacter ?? false }

    /// The characters that count as non-alphanumeric, together in one string; no other character does.
    public var allowedNonAlphanumericCharacters: String { (policy.allowedNonAlphanumericCharacters ?? []).joined() }

    /// `ENFORCE` when the server rejects new passwords that break the policy; `OFF` when it only publishes it.
    public var enforcementState: String {
        switch policy.enforcementState {
        case nil, "ENFORCEMENT_STATE_UNSPECIFIED": "OFF"
        case let state?: state
        }
    }

    /// Whether a user whose password breaks the policy must change it when signing in.
    public var forceUpgradeOnSignin: Bool { policy.forceUpgradeOnSignin ?? false }

    private var options: PasswordPolicyResponse.CustomStrengthOptions {
        policy.customStrengthOptions ?? PasswordPolicyResponse.CustomStrengthOptions()
    }

    /// Throws `internalError` for a policy of a schema version other than the one FlintAuth knows; one
    /// without a version is taken to be of that version.
    init(_ policy: PasswordPolicyResponse) throws {
        if let version = policy.schemaVersion, version != PasswordPolicyResponse.currentSchemaVersion {
            throw AuthErrorUtils.internalError(response: "The password policy has the unsupported schema version \(version).")
        }
        self.policy = policy
    }

    /// Checks `password` against the policy.
    func validate(_ password: String) -> PasswordValidationStatus {
        PasswordValidationStatus(passwordPolicy: self, unmetRequirements: policy.unmetRequirements(of: password))
    }
}

/// What ``Auth/validatePassword(_:)`` found: which requirements of a ``PasswordPolicy`` a password meets.
///
/// A requirement the policy does not set counts as met (the web SDK leaves it undefined instead).
public final class PasswordValidationStatus: NSObject, Sendable {
    /// The policy the password was checked against.
    public let passwordPolicy: PasswordPolicy
    private let unmetRequirements: [PasswordRequirement]

    /// Whether the password meets every requirement of the policy.
    public var isValid: Bool { unmetRequirements.isEmpty }

    /// Whether the password has at least ``PasswordPolicy/minPasswordLength`` characters.
    public var meetsMinPasswordLength: Bool { meets(.minPasswordLength) }

    /// Whether the password has at most ``PasswordPolicy/maxPasswordLength`` characters, if the policy sets a maximum.
    public var meetsMaxPasswordLength: Bool { meets(.maxPasswordLength) }

    /// Whether the password contains a lowercase letter, if the policy requires one.
    public var containsLowercaseLetter: Bool { meets(.containsLowercaseCharacter) }

    /// Whether the password contains an uppercase letter, if the policy requires one.
    public var containsUppercaseLetter: Bool { meets(.containsUppercaseCharacter) }

    /// Whether the password contains a digit, if the policy requires one.
    public var containsNumericCharacter: Bool { meets(.containsNumericCharacter) }

    /// Whether the password contains one of ``PasswordPolicy/allowedNonAlphanumericCharacters``, if the policy
    /// requires one.
    public var containsNonAlphanumericCharacter: Bool { meets(.containsNonAlphanumericCharacter) }

    init(passwordPolicy: PasswordPolicy, unmetRequirements: [PasswordRequirement]) {
        self.passwordPolicy = passwordPolicy
        self.unmetRequirements = unmetRequirements
    }

    private func meets(_ requirement: PasswordRequirement) -> Bool {
        !unmetRequirements.contains(requirement)
    }
}
