// The Identity Toolkit v2 project configuration (`GET/PATCH /v2/projects/{p}/config`), the shape the
// Admin APIs use. Only the parts Flint implements are here; unknown fields are ignored.

/// `projects/{p}/config`.
public struct ProjectConfig: Codable, Sendable, Equatable {
    public struct SignIn: Codable, Sendable, Equatable {
        public struct Email: Codable, Sendable, Equatable {
            public var enabled: Bool?
            public var passwordRequired: Bool?
            public init(enabled: Bool? = nil, passwordRequired: Bool? = nil) {
                self.enabled = enabled
                self.passwordRequired = passwordRequired
            }
        }

        public struct PhoneNumber: Codable, Sendable, Equatable {
            public var enabled: Bool?
            /// Fictional numbers (E.164) mapped to their fixed 6-digit codes.
            public var testPhoneNumbers: [String: String]?
            public init(enabled: Bool? = nil, testPhoneNumbers: [String: String]? = nil) {
                self.enabled = enabled
                self.testPhoneNumbers = testPhoneNumbers
            }
        }

        public struct Anonymous: Codable, Sendable, Equatable {
            public var enabled: Bool?
            public init(enabled: Bool? = nil) { self.enabled = enabled }
        }

        /// How the project hashes passwords (output only): what an import elsewhere needs to keep them working.
        public struct HashConfig: Codable, Sendable, Equatable {
            /// `SCRYPT`, Firebase's modified scrypt.
            public var algorithm: String?
            /// Base64.
            public var signerKey: String?
            /// Base64.
            public var saltSeparator: String?
            public var rounds: Int?
            public var memoryCost: Int?
            public init(algorithm: String? = nil, signerKey: String? = nil, saltSeparator: String? = nil, rounds: Int? = nil,
                        memoryCost: Int? = nil) {
                self.algorithm = algorithm
                self.signerKey = signerKey
                self.saltSeparator = saltSeparator
                self.rounds = rounds
                self.memoryCost = memoryCost
            }
        }

        public var email: Email?
        public var phoneNumber: PhoneNumber?
        public var anonymous: Anonymous?
        public var allowDuplicateEmails: Bool?
        public var hashConfig: HashConfig?

        public init(email: Email? = nil, phoneNumber: PhoneNumber? = nil, anonymous: Anonymous? = nil,
                    allowDuplicateEmails: Bool? = nil, hashConfig: HashConfig? = nil) {
            self.email = email
            self.phoneNumber = phoneNumber
            self.anonymous = anonymous
            self.allowDuplicateEmails = allowDuplicateEmails
            self.hashConfig = hashConfig
        }
    }

    public struct EmailPrivacyConfig: Codable, Sendable, Equatable {
        public var enableImprovedEmailPrivacy: Bool?
        public init(enableImprovedEmailPrivacy: Bool? = nil) { self.enableImprovedEmailPrivacy = enableImprovedEmailPrivacy }
    }

    /// Which regions (ISO 3166 alpha-2 codes) SMS may be sent to: all but `disallowedRegions`, or only
    /// `allowedRegions`.
    public struct SmsRegionConfig: Codable, Sendable, Equatable {
        public struct AllowByDefault: Codable, Sendable, Equatable {
            public var disallowedRegions: [String]?
            public init(disallowedRegions: [String]? = nil) { self.disallowedRegions = disallowedRegions }
        }

        public struct AllowlistOnly: Codable, Sendable, Equatable {
            public var allowedRegions: [String]?
            public init(allowedRegions: [String]? = nil) { self.allowedRegions = allowedRegions }
        }

        public var allowByDefault: AllowByDefault?
        public var allowlistOnly: AllowlistOnly?

        public init(allowByDefault: AllowByDefault? = nil, allowlistOnly: AllowlistOnly? = nil) {
            self.allowByDefault = allowByDefault
            self.allowlistOnly = allowlistOnly
        }
    }

    /// Flint's own extension: which app-verification methods phone sign-in accepts in production mode.
    public struct AppVerification: Codable, Sendable, Equatable {
        /// APNs silent push (`verifyClient`, then `iosReceipt` + `iosSecret`).
        public var apnsEnabled: Bool?
        /// The captcha behind `recaptchaToken`: `PROOF_OF_WORK` (Flint's own page), `SITE_VERIFY`
        /// (reCAPTCHA / hCaptcha / Turnstile via the server's siteverify endpoint) or `DISABLED`.
        public var captcha: String?
        /// Proof-of-work difficulty in leading zero bits (cost doubles per bit).
        public var proofOfWorkBits: Int?
        /// Whether real numbers need an app credential at all (default true).
        public var required: Bool?

        public init(apnsEnabled: Bool? = nil, captcha: String? = nil, proofOfWorkBits: Int? = nil, required: Bool? = nil) {
            self.apnsEnabled = apnsEnabled
            self.captcha = captcha
            self.proofOfWorkBits = proofOfWorkBits
            self.required = required
        }
    }

    /// Flint's own extension: the project's apps, for universal links and Android app links.
    public struct Apps: Codable, Sendable, Equatable {
        public struct IOS: Codable, Sendable, Equatable {
            public var bundleId: String
            public var teamId: String
            public init(bundleId: String, teamId: String) {
                self.bundleId = bundleId
                self.teamId = teamId
            }
        }

        public struct Android: Codable, Sendable, Equatable {
            public var packageName: String
            public var sha256CertFingerprints: [String]?
            public init(packageName: String, sha256CertFingerprints: [String]? = nil) {
                self.packageName = packageName
                self.sha256CertFingerprints = sha256CertFingerprints
            }
        }

        public var ios: [IOS]?
        public var android: [Android]?
        public init(ios: [IOS]? = nil, android: [Android]? = nil) {
            self.ios = ios
            self.android = android
        }
    }

    /// `mfa`: multi-factor authentication. `state` is `ENABLED` or `DISABLED`; `enabledProviders` lists
    /// `PHONE_SMS`; TOTP is enabled through `providerConfigs` (`{state, totpProviderConfig: {adjacentIntervals}}`).
    public struct MultiFactorConfig: Codable, Sendable, Equatable {
        public struct ProviderConfig: Codable, Sendable, Equatable {
            public struct TOTP: Codable, Sendable, Equatable {
                /// Codes of this many 30-second steps either side of now are accepted (0–10).
                public var adjacentIntervals: Int?
                public init(adjacentIntervals: Int? = nil) { self.adjacentIntervals = adjacentIntervals }
            }
            public var state: String?
            public var totpProviderConfig: TOTP?
            public init(state: String? = nil, totpProviderConfig: TOTP? = nil) {
                self.state = state
                self.totpProviderConfig = totpProviderConfig
            }
        }
        public var state: String?
        public var enabledProviders: [String]?
        public var providerConfigs: [ProviderConfig]?
        public init(state: String? = nil, enabledProviders: [String]? = nil, providerConfigs: [ProviderConfig]? = nil) {
            self.state = state
            self.enabledProviders = enabledProviders
            self.providerConfigs = providerConfigs
        }
    }

    /// `notification`: the project's own wording of the action emails.
    public struct Notification: Codable, Sendable, Equatable {
        public struct SendEmail: Codable, Sendable, Equatable {
            /// `PASSWORD_RESET` emails.
            public var resetPasswordTemplate: EmailTemplate?
            /// `VERIFY_EMAIL` emails.
            public var verifyEmailTemplate: EmailTemplate?
            /// The notice sent to the old address after an email change (`RECOVER_EMAIL`).
            public var changeEmailTemplate: EmailTemplate?
            public init(resetPasswordTemplate: EmailTemplate? = nil, verifyEmailTemplate: EmailTemplate? = nil,
                        changeEmailTemplate: EmailTemplate? = nil) {
                self.resetPasswordTemplate = resetPasswordTemplate
                self.verifyEmailTemplate = verifyEmailTemplate
                self.changeEmailTemplate = changeEmailTemplate
            }
        }

        /// One email's wording; `%LINK%`, `%EMAIL%`, `%NEW_EMAIL%`, `%APP_NAME%`, `%DISPLAY_NAME%` are filled in.
        public struct EmailTemplate: Codable, Sendable, Equatable {
            public var senderDisplayName: String?
            public var subject: String?
            public var body: String?
            /// `PLAIN_TEXT` or `HTML`.
            public var bodyFormat: String?
            /// Output only: whether the project has its own wording (else the built-in one, in the user's language).
            public var customized: Bool?
            public init(senderDisplayName: String? = nil, subject: String? = nil, body: String? = nil, bodyFormat: String? = nil,
                        customized: Bool? = nil) {
                self.senderDisplayName = senderDisplayName
                self.subject = subject
                self.body = body
                self.bodyFormat = bodyFormat
                self.customized = customized
            }
        }

        public var sendEmail: SendEmail?
        public init(sendEmail: SendEmail? = nil) { self.sendEmail = sendEmail }
    }

    public var name: String?
    public var signIn: SignIn?
    public var mfa: MultiFactorConfig?
    public var notification: Notification?
    public var authorizedDomains: [String]?
    public var emailPrivacyConfig: EmailPrivacyConfig?
    public var smsRegionConfig: SmsRegionConfig?
    public var appVerification: AppVerification?
    public var apps: Apps?

    public init(name: String? = nil, signIn: SignIn? = nil, authorizedDomains: [String]? = nil,
                emailPrivacyConfig: EmailPrivacyConfig? = nil, smsRegionConfig: SmsRegionConfig? = nil,
                appVerification: AppVerification? = nil, apps: Apps? = nil, notification: Notification? = nil,
                mfa: MultiFactorConfig? = nil) {
        self.apps = apps
        self.notification = notification
        self.mfa = mfa
        self.name = name
        self.signIn = signIn
        self.authorizedDomains = authorizedDomains
        self.emailPrivacyConfig = emailPrivacyConfig
        self.smsRegionConfig = smsRegionConfig
        self.appVerification = appVerification
    }
}
