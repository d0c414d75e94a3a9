/// A project's own settings, stored as JSON in the `projects` table. Sections added after a project
/// was created decode to their defaults, so stored settings never need a migration.
public struct ProjectSettings: Codable, Sendable, Equatable {
    public struct SignIn: Codable, Sendable, Equatable {
        public var allowDuplicateEmails = false
        public var anonymousEnabled = true
        public var emailPasswordEnabled = true
        public var emailLinkEnabled = true
        public var phoneEnabled = true

        public init() {}

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let defaults = SignIn()
            allowDuplicateEmails = try container.decodeIfPresent(Bool.self, forKey: .allowDuplicateEmails) ?? defaults.allowDuplicateEmails
            anonymousEnabled = try container.decodeIfPresent(Bool.self, forKey: .anonymousEnabled) ?? defaults.anonymousEnabled
            emailPasswordEnabled = try container.decodeIfPresent(Bool.self, forKey: .emailPasswordEnabled) ?? defaults.emailPasswordEnabled
            emailLinkEnabled = try container.decodeIfPresent(Bool.self, forKey: .emailLinkEnabled) ?? defaults.emailLinkEnabled
            phoneEnabled = try container.decodeIfPresent(Bool.self, forKey: .phoneEnabled) ?? defaults.phoneEnabled
        }
    }

    /// Firebase's modified-scrypt parameters. The signer key is sealed with the master key.
    public struct PasswordHash: Codable, Sendable, Equatable {
        public var sealedSignerKey: String
        public var saltSeparator: String
        public var rounds: Int
        public var memoryCost: Int
    }

    /// Phone sign-in: fictional numbers, where SMS may go, and how apps prove they are genuine.
    public struct Phone: Codable, Sendable, Equatable {
        /// Which regions (ISO 3166 alpha-2) codes may be sent to.
        public enum RegionPolicy: Codable, Sendable, Equatable {
            case allowByDefault(disallowed: [String])
            case allowlistOnly(allowed: [String])
        }

        /// The captcha behind `recaptchaToken`.
        public enum Captcha: String, Codable, Sendable, Equatable {
            /// Flint's own proof-of-work page at `/__/auth/handler` (no third party).
            case proofOfWork = "PROOF_OF_WORK"
            /// A siteverify service (reCAPTCHA, hCaptcha, Turnstile) configured on the server.
            case siteVerify = "SITE_VERIFY"
            case disabled = "DISABLED"
        }

        /// Fictional numbers (E.164) and their fixed codes: no SMS, no limits.
        public var testNumbers: [String: String] = [:]
        public var regionPolicy = RegionPolicy.allowByDefault(disallowed: [])
        /// Codes a day to one country calling code's numbers (nil: no cap).
        public var regionDailyCap: Int64?
        /// E.164 prefixes no code is sent to.
        public var deniedPrefixes: [String] = []
        /// Whether a real number needs an app credential at all (production mode). Turning this off
        /// leaves only the send limits between the SMS budget and abuse.
        public var appVerificationRequired = true
        public var apnsEnabled = true
        public var captcha = Captcha.proofOfWork
        /// Proof-of-work difficulty in leading zero bits (the cost doubles per bit).
        public var proofOfWorkBits = 18

        public init() {}

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let defaults = Phone()
            testNumbers = try container.decodeIfPresent([String: String].self, forKey: .testNumbers) ?? defaults.testNumbers
            regionPolicy = try container.decodeIfPresent(RegionPolicy.self, forKey: .regionPolicy) ?? defaults.regionPolicy
            regionDailyCap = try container.decodeIfPresent(Int64.self, forKey: .regionDailyCap)
            deniedPrefixes = try container.decodeIfPresent([String].self, forKey: .deniedPrefixes) ?? defaults.deniedPrefixes
            appVerificationRequired = try container.decodeIfPresent(Bool.self, forKey: .appVerificationRequired)
                ?? defaults.appVerificationRequired
            apnsEnabled = try container.decodeIfPresent(Bool.self, forKey: .apnsEnabled) ?? defaults.apnsEnabled
            captcha = try container.decodeIfPresent(Captcha.self, forKey: .captcha) ?? defaults.captcha
            proofOfWorkBits = try container.decodeIfPresent(Int.self, forKey: .proofOfWorkBits) ?? defaults.proofOfWorkBits
        }
    }

    /// The project's apps, for universal links (`apple-app-site-association`) and Android app links
    /// (`assetlinks.json`), and the only apps the hosted pages answer through a URL scheme (`RegisteredApps.swift`).
    public struct Apps: Codable, Sendable, Equatable {
        public struct IOS: Codable, Sendable, Equatable {
            public var bundleID: String
            public var teamID: String
            /// The app's OAuth client ID (`123-abc.apps.googleusercontent.com`), which the iOS SDK names as `clientId`.
            public var clientID: String?
            /// The app's Firebase-style app ID (`1:123:ios:abc`), which the iOS SDK names as `appId`.
            public var appID: String?
            public init(bundleID: String, teamID: String, clientID: String? = nil, appID: String? = nil) {
                self.bundleID = bundleID
                self.teamID = teamID
                self.clientID = clientID
                self.appID = appID
            }
        }

        public struct Android: Codable, Sendable, Equatable {
            public var packageName: String
            /// SHA-256 fingerprints of the signing certificates, `AA:BB:…`.
            public var sha256CertFingerprints: [String]
            public init(packageName: String, sha256CertFingerprints: [String]) {
                self.packageName = packageName
                self.sha256CertFingerprints = sha256CertFingerprints
            }
        }

        public var iOS: [IOS] = []
        public var android: [Android] = []
        public init() {}
    }

    /// A project's own wording for one kind of action email. `subject` and `body` may use Firebase's
    /// placeholders `%LINK%`, `%EMAIL%`, `%NEW_EMAIL%`, `%APP_NAME%`, `%DISPLAY_NAME%`.
    public struct EmailTemplate: Codable, Sendable, Equatable {
        public var subject: String
        public var body: String
        /// `PLAIN_TEXT` or `HTML`.
        public var bodyFormat: String
        public var senderDisplayName: String?
        public init(subject: String, body: String, bodyFormat: String = "PLAIN_TEXT", senderDisplayName: String? = nil) {
            self.subject = subject
            self.body = body
            self.bodyFormat = bodyFormat
            self.senderDisplayName = senderDisplayName
        }
    }

    /// A built-in identity provider (`apple.com`, `facebook.com`) as configured for the project. Secrets
    /// are sealed with the master key.
    public struct IdentityProvider: Codable, Sendable, Equatable {
        public var enabled: Bool
        /// Apple: the Services ID; Facebook: the app ID; Google, GitHub, Microsoft and OpenID Connect: the OAuth client ID.
        public var clientID: String?
        /// Facebook: the app secret; Google, GitHub, Microsoft and OpenID Connect: the client secret; sealed.
        public var sealedClientSecret: String?
        /// Google: other client IDs of the app whose tokens are accepted too.
        public var additionalClientIDs: [String]?
        /// Apple: accepted bundle IDs.
        public var bundleIDs: [String]
        /// Apple: the team, key ID and sealed .p8 key for token revocation.
        public var teamID: String?
        public var keyID: String?
        public var sealedPrivateKey: String?
        /// OpenID Connect (`oidc.…`): the issuer, the name shown for it, and whether the code flow is on.
        public var issuer: String?
        public var displayName: String?
        public var codeFlow: Bool?
        /// SAML (`saml.…`): the IdP, the SP and Flint's SP key (see `SAML/SAMLProviderSettings.swift`).
        public var saml: SAMLProviderSettings?

        public init(enabled: Bool = true, clientID: String? = nil, bundleIDs: [String] = []) {
            self.enabled = enabled
            self.clientID = clientID
            self.bundleIDs = bundleIDs
        }
    }

    /// Multi-factor authentication (the v2 config's `mfa`).
    public struct MultiFactor: Codable, Sendable, Equatable {
        /// `mfa.state == ENABLED`: users may enroll second factors.
        public var enabled = false
        /// `PHONE_SMS` is among `mfa.enabledProviders`.
        public var phone = false
        /// The TOTP provider config is `ENABLED`.
        public var totp = false
        /// TOTP codes of this many 30-second steps either side of now are accepted.
        public var totpAdjacentIntervals = 1

        public init(enabled: Bool = false, phone: Bool = false, totp: Bool = false) {
            self.enabled = enabled
            self.phone = phone
            self.totp = totp
        }
    }

    /// Blocking functions (the v2 config's `blockingFunctions`): the functions `BlockingFunctions` calls.
    public struct BlockingFunctions: Codable, Sendable, Equatable {
        /// Function URIs by event (`beforeCreate`, `beforeSignIn`).
        public var triggers: [String: String] = [:]
        /// Which of the provider's credentials the functions receive.
        public var forwardsIDToken = false
        public var forwardsAccessToken = false
        public var forwardsRefreshToken = false

        public init() {}

        /// Whether a function is configured for `event`.
        func asks(_ event: FlintServer.BlockingFunctions.Event) -> Bool { triggers[event.rawValue] != nil }
    }

    public var authorizedDomains: [String]
    public var signIn = SignIn()
    public var multiFactor = MultiFactor()
    /// Email enumeration protection (`emailPrivacyConfig.enableImprovedEmailPrivacy`).
    public var improvedEmailPrivacy: Bool
    public var passwordHash: PasswordHash
    public var phone = Phone()
    public var apps = Apps()
    /// Overrides of the built-in action emails, keyed by request type (`PASSWORD_RESET`) or by request
    /// type and locale (`PASSWORD_RESET:fr`).
    public var emailTemplates: [String: EmailTemplate] = [:]
    /// Built-in identity providers by id (`apple.com`, `facebook.com`).
    public var identityProviders: [String: IdentityProvider] = [:]
    public var blockingFunctions = BlockingFunctions()
    /// Identity Platform's password policy (`passwordPolicyConfig`); nil when none was ever set.
    public var passwordPolicy: PasswordPolicy?
    /// What only a tenant has (nil for a project): see `Tenants/TenantSettings.swift`.
    public var tenant: TenantProfile?
    /// The WebAuthn relying party of production mode's passkeys (nil: not set up): see `Passkeys/PasskeySettings.swift`.
    public var passkeys: PasskeySettings?
    /// The realm's OpenID provider (nil: its defaults): see `OAuthServer/OAuthServerSettings.swift`.
    public var oauthServer: OAuthServerSettings?
    /// The protected resources clients ask the provider's tokens for (RFC 8707): see `OAuthServer/OAuthResourceRegistry.swift`.
    public var oauthResources: [OAuthResourceSettings] = []
    /// When sessions end by themselves (nil: never): see `Sessions/SessionPolicy.swift`.
    public var sessionPolicy: SessionPolicy?
    /// The audit trail's retention and streams (nil: its defaults): see `Audit/AuditTrailSettings.swift`.
    public var auditTrail: AuditTrailSettings?

    public init(authorizedDomains: [String], improvedEmailPrivacy: Bool, passwordHash: PasswordHash) {
        self.authorizedDomains = authorizedDomains
        self.improvedEmailPrivacy = improvedEmailPrivacy
        self.passwordHash = passwordHash
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        authorizedDomains = try container.decode([String].self, forKey: .authorizedDomains)
        signIn = try container.decodeIfPresent(SignIn.self, forKey: .signIn) ?? SignIn()
        improvedEmailPrivacy = try container.decode(Bool.self, forKey: .improvedEmailPrivacy)
        passwordHash = try container.decode(PasswordHash.self, forKey: .passwordHash)
        phone = try container.decodeIfPresent(Phone.self, forKey: .phone) ?? Phone()
        apps = try container.decodeIfPresent(Apps.self, forKey: .apps) ?? Apps()
        emailTemplates = try container.decodeIfPresent([String: EmailTemplate].self, forKey: .emailTemplates) ?? [:]
        identityProviders = try container.decodeIfPresent([String: IdentityProvider].self, forKey: .identityProviders) ?? [:]
        multiFactor = try container.decodeIfPresent(MultiFactor.self, forKey: .multiFactor) ?? MultiFactor()
        blockingFunctions = try container.decodeIfPresent(BlockingFunctions.self, forKey: .blockingFunctions) ?? BlockingFunctions()
        passwordPolicy = try container.decodeIfPresent(PasswordPolicy.self, forKey: .passwordPolicy)
        tenant = try container.decodeIfPresent(TenantProfile.self, forKey: .tenant)
        passkeys = try container.decodeIfPresent(PasskeySettings.self, forKey: .passkeys)
        oauthServer = try container.decodeIfPresent(OAuthServerSettings.self, forKey: .oauthServer)
        oauthResources = try container.decodeIfPresent([OAuthResourceSettings].self, forKey: .oauthResources) ?? []
        sessionPolicy = try container.decodeIfPresent(SessionPolicy.self, forKey: .sessionPolicy)
        auditTrail = try container.decodeIfPresent(AuditTrailSettings.self, forKey: .auditTrail)
    }
}
