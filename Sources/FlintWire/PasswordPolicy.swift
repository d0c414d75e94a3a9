/// `GET v2/passwordPolicy`: the project's password policy as the SDKs read it (the web SDK's `validatePassword`,
/// FlintAuth's `Auth.validatePassword(_:)`).
public struct PasswordPolicyResponse: Codable, Sendable, Equatable {
    /// What a password must have; a requirement that is absent or false does not apply.
    public struct CustomStrengthOptions: Codable, Sendable, Equatable {
        public var minPasswordLength: Int?
        public var maxPasswordLength: Int?
        public var containsLowercaseCharacter: Bool?
        public var containsUppercaseCharacter: Bool?
        public var containsNumericCharacter: Bool?
        public var containsNonAlphanumericCharacter: Bool?

        public init(minPasswordLength: Int? = nil, maxPasswordLength: Int? = nil, containsLowercaseCharacter: Bool? = nil,
                    containsUppercaseCharacter: Bool? = nil, containsNumericCharacter: Bool? = nil,
                    containsNonAlphanumericCharacter: Bool? = nil) {
            self.minPasswordLength = minPasswordLength
            self.maxPasswordLength = maxPasswordLength
            self.containsLowercaseCharacter = containsLowercaseCharacter
            self.containsUppercaseCharacter = containsUppercaseCharacter
            self.containsNumericCharacter = containsNumericCharacter
            self.containsNonAlphanumericCharacter = containsNonAlphanumericCharacter
        }
    }

    public var customStrengthOptions: CustomStrengthOptions?
    /// The characters that count as non-alphanumeric.
    public var allowedNonAlphanumericCharacters: [String]?
    /// `ENFORCE` or `OFF`.
    public var enforcementState: String?
    public var forceUpgradeOnSignin: Bool?
    public var schemaVersion: Int?

    public init(customStrengthOptions: CustomStrengthOptions? = nil, allowedNonAlphanumericCharacters: [String]? = nil,
                enforcementState: String? = nil, forceUpgradeOnSignin: Bool? = nil, schemaVersion: Int? = nil) {
        self.customStrengthOptions = customStrengthOptions
        self.allowedNonAlphanumericCharacters = allowedNonAlphanumericCharacters
        self.enforcementState = enforcementState
        self.forceUpgradeOnSignin = forceUpgradeOnSignin
        self.schemaVersion = schemaVersion
    }
}

/// The v2 config's `passwordPolicyConfig`, as the Admin SDKs set it.
public struct PasswordPolicyConfig: Codable, Sendable, Equatable {
    public struct Version: Codable, Sendable, Equatable {
        public var customStrengthOptions: PasswordPolicyResponse.CustomStrengthOptions?
        /// Output only.
        public var schemaVersion: Int?

        public init(customStrengthOptions: PasswordPolicyResponse.CustomStrengthOptions? = nil, schemaVersion: Int? = nil) {
            self.customStrengthOptions = customStrengthOptions
            self.schemaVersion = schemaVersion
        }
    }

    /// `ENFORCE`, `OFF` (or `PASSWORD_POLICY_ENFORCEMENT_STATE_UNSPECIFIED`, which is off).
    public var passwordPolicyEnforcementState: String?
    /// Exactly one.
    public var passwordPolicyVersions: [Version]?
    public var forceUpgradeOnSignin: Bool?
    /// Output only: RFC 3339.
    public var lastUpdateTime: String?

    public init(passwordPolicyEnforcementState: String? = nil, passwordPolicyVersions: [Version]? = nil,
                forceUpgradeOnSignin: Bool? = nil, lastUpdateTime: String? = nil) {
        self.passwordPolicyEnforcementState = passwordPolicyEnforcementState
        self.passwordPolicyVersions = passwordPolicyVersions
        self.forceUpgradeOnSignin = forceUpgradeOnSignin
        self.lastUpdateTime = lastUpdateTime
    }
}
