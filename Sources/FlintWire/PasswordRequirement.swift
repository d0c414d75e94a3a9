// Checking a password against a `PasswordPolicyResponse`, the same way wherever it is done.

/// One requirement of a password policy, named after its field in `PasswordPolicyResponse.CustomStrengthOptions`.
public enum PasswordRequirement: String, Sendable, CaseIterable {
    case minPasswordLength
    case maxPasswordLength
    case containsLowercaseCharacter
    case containsUppercaseCharacter
    case containsNumericCharacter
    case containsNonAlphanumericCharacter
}

extension PasswordPolicyResponse {
    /// The shortest password any policy allows, and the minimum of a policy that sets none.
    public static let defaultMinPasswordLength = 6
    /// The `schemaVersion` of the format this type describes, the only one there is.
    public static let currentSchemaVersion = 1

    /// The minimum length in force: `customStrengthOptions.minPasswordLength`, or `defaultMinPasswordLength`.
    public var minPasswordLength: Int {
        customStrengthOptions?.minPasswordLength ?? Self.defaultMinPasswordLength
    }

    /// The requirements `password` fails, in the order of `PasswordRequirement.allCases`; empty when it meets
    /// the policy. A requirement the policy does not set is met.
    ///
    /// Lengths count characters (extended grapheme clusters, Swift's `String.count`), so an emoji or a letter
    /// with a combining accent is one character. Letters and digits are the ASCII ones (`a`–`z`, `A`–`Z`,
    /// `0`–`9`), looked for among the password's Unicode scalars; a character is non-alphanumeric only if it
    /// is one of `allowedNonAlphanumericCharacters`.
    public func unmetRequirements(of password: String) -> [PasswordRequirement] {
        let options = customStrengthOptions ?? CustomStrengthOptions()
        let scalars = password.unicodeScalars
        let symbols = Set((allowedNonAlphanumericCharacters ?? []).joined().unicodeScalars)
        /// Whether the policy asks for a character that `matches` and the password has none.
        func lacks(_ required: Bool?, _ matches: (Unicode.Scalar) -> Bool) -> Bool {
            required == true && !scalars.contains(where: matches)
        }
        let failed: [PasswordRequirement: Bool] = [
            .minPasswordLength: password.count < minPasswordLength,
            .maxPasswordLength: password.count > options.maxPasswordLength ?? .max,
            .containsLowercaseCharacter: lacks(options.containsLowercaseCharacter, Self.lowercaseLetters.contains),
            .containsUppercaseCharacter: lacks(options.containsUppercaseCharacter, Self.uppercaseLetters.contains),
            .containsNumericCharacter: lacks(options.containsNumericCharacter, Self.digits.contains),
            .containsNonAlphanumericCharacter: lacks(options.containsNonAlphanumericCharacter, symbols.contains),
        ]
        return PasswordRequirement.allCases.filter { failed[$0] == true }
    }

    private static let lowercaseLetters: ClosedRange<Unicode.Scalar> = "a"..."z"
    private static let uppercaseLetters: ClosedRange<Unicode.Scalar> = "A"..."Z"
    private static let digits: ClosedRange<Unicode.Scalar> = "0"..."9"
}
