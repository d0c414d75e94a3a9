/// A project's own settings, stored as JSON in the `projects` table.
public struct ProjectSettings: Codable, Sendable, Equatable {
    public struct SignIn: Codable, Sendable, Equatable {
        public var allowDuplicateEmails = false
        public var anonymousEnabled = true
        public var emailPasswordEnabled = true
        public var emailLinkEnabled = true
    }

    /// Firebase's modified-scrypt parameters. The signer key is sealed with the master key.
    public struct PasswordHash: Codable, Sendable, Equatable {
        public var sealedSignerKey: String
        public var saltSeparator: String
        public var rounds: Int
        public var memoryCost: Int
    }

    public var authorizedDomains: [String]
    public var signIn = SignIn()
    /// Email enumeration protection (`emailPrivacyConfig.enableImprovedEmailPrivacy`).
    public var improvedEmailPrivacy: Bool
    public var passwordHash: PasswordHash

    public init(authorizedDomains: [String], improvedEmailPrivacy: Bool, passwordHash: PasswordHash) {
        self.authorizedDomains = authorizedDomains
        self.improvedEmailPrivacy = improvedEmailPrivacy
        self.passwordHash = passwordHash
    }
}
