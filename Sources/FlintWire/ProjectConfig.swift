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

    /// Flint's extension against SMS pumping: at most `regionDailyCap` codes a day to the numbers of one
    /// country calling code, and no code at all to numbers starting with a `deniedPrefixes` entry (E.164
    /// prefixes such as `+88213`, ranges fraudsters rent).
    public struct SmsDefenseConfig: Codable, Sendable, Equatable {
        public var regionDailyCap: Int64?
        public var deniedPrefixes: [String]?

        public init(regionDailyCap: Int64? = nil, deniedPrefixes: [String]? = nil) {
            self.regionDailyCap = regionDailyCap
            self.deniedPrefixes = deniedPrefixes
        }
    }

    /// Flint's OpenID provider for the project's other software (a Flint extension): where users sign in (the team's
    /// own page, else Flint's), how Flint's pages look, and which custom claims each scope releases.
    public struct OAuthServer: Codable, Sendable, Equatable {
        /// The team's own sign-in page; the authorization endpoint sends browsers there with `?authorization_id=…`.
        public var signInPageUrl: String?
        public var brandName: String?
        public var logoUrl: String?
        /// `#rrggbb`.
        public var accentColor: String?
        /// Custom claim names by scope: `{"roles": ["role", "team"]}`.
        public var customClaimScopes: [String: [String]]?
        /// The words of Flint's sign-in and consent pages by language (`"de"`), each by its field
        /// (`"signInHeading"`, `"errors.INVALID_CODE"`, `"scopes.email"`); the rest are Flint's.
        public var pageText: [String: [String: String]]?
        /// RFC 7591's dynamic client registration (off unless `enabled`).
        public var dynamicClientRegistration: DynamicClientRegistration?
        /// OAuth Client ID Metadata Documents: a `client_id` that is an https URL names a JSON document, fetched there,
        /// that describes the client (off unless `enabled`).
        public var clientIdMetadataDocuments: ClientIDMetadataDocuments?

        /// Whether clients may name themselves by the URL of their metadata document.
        public struct ClientIDMetadataDocuments: Codable, Sendable, Equatable {
            public var enabled: Bool?

            public init(enabled: Bool? = nil) { self.enabled = enabled }
        }

        /// Who may register clients at `<issuer>/register`, and with what.
        public struct DynamicClientRegistration: Codable, Sendable, Equatable {
            public var enabled: Bool?
            /// The redirect URIs a registration may name: `LOOPBACK` (`http://127.0.0.1/…`, any port), `HTTPS`,
            /// `PRIVATE_USE_SCHEME` (`com.example.app:/…`). Default: loopback and https.
            public var allowedRedirectUris: [String]?
            /// Days after which a registered client that never got a token is deleted (default 30).
            public var unusedClientLifetimeDays: Int?

            public init(enabled: Bool? = nil, allowedRedirectUris: [String]? = nil, unusedClientLifetimeDays: Int? = nil) {
                self.enabled = enabled
                self.allowedRedirectUris = allowedRedirectUris
                self.unusedClientLifetimeDays = unusedClientLifetimeDays
            }
        }

        public init(signInPageUrl: String? = nil, brandName: String? = nil, logoUrl: String? = nil, accentColor: String? = nil,
                    customClaimScopes: [String: [String]]? = nil, pageText: [String: [String: String]]? = nil,
                    dynamicClientRegistration: DynamicClientRegistration? = nil,
                    clientIdMetadataDocuments: ClientIDMetadataDocuments? = nil) {
            self.signInPageUrl = signInPageUrl
            self.brandName = brandName
            self.logoUrl = logoUrl
            self.accentColor = accentColor
            self.customClaimScopes = customClaimScopes
            self.pageText = pageText
            self.dynamicClientRegistration = dynamicClientRegistration
            self.clientIdMetadataDocuments = clientIdMetadataDocuments
        }
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

    /// Flint's own extension: the project's apps, for universal links and Android app links, and the only apps the
    /// hosted sign-in and app-verification pages answer through a URL scheme.
    public struct Apps: Codable, Sendable, Equatable {
        public struct IOS: Codable, Sendable, Equatable {
            public var bundleId: String
            public var teamId: String
            /// The app's OAuth client ID (`123-abc.apps.googleusercontent.com`): its reversed form is the app's scheme.
            public var clientId: String?
            /// The app's Firebase-style app ID (`1:123:ios:abc`): `app-1-123-ios-abc` is the app's scheme.
            public var appId: String?
            public init(bundleId: String, teamId: String, clientId: String? = nil, appId: String? = nil) {
                self.bundleId = bundleId
                self.teamId = teamId
                self.clientId = clientId
                self.appId = appId
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

    /// `blockingFunctions`: the Cloud Functions to call before an account is created or signed in, and
    /// which of the provider's credentials to pass them. Flint stores and shows these but calls no function.
    public struct BlockingFunctions: Codable, Sendable, Equatable {
        public struct Trigger: Codable, Sendable, Equatable {
            public var functionUri: String?
            public init(functionUri: String? = nil) { self.functionUri = functionUri }
        }

        public struct ForwardInboundCredentials: Codable, Sendable, Equatable {
            public var idToken: Bool?
            public var accessToken: Bool?
            public var refreshToken: Bool?
            public init(idToken: Bool? = nil, accessToken: Bool? = nil, refreshToken: Bool? = nil) {
                self.idToken = idToken
                self.accessToken = accessToken
                self.refreshToken = refreshToken
            }
        }

        /// Triggers by event: `beforeCreate`, `beforeSignIn`.
        public var triggers: [String: Trigger]?
        public var forwardInboundCredentials: ForwardInboundCredentials?
        public init(triggers: [String: Trigger]? = nil, forwardInboundCredentials: ForwardInboundCredentials? = nil) {
            self.triggers = triggers
            self.forwardInboundCredentials = forwardInboundCredentials
        }
    }

    public var name: String?
    public var signIn: SignIn?
    public var mfa: MultiFactorConfig?
    public var notification: Notification?
    public var authorizedDomains: [String]?
    public var emailPrivacyConfig: EmailPrivacyConfig?
    public var smsRegionConfig: SmsRegionConfig?
    public var smsDefenseConfig: SmsDefenseConfig?
    public var appVerification: AppVerification?
    public var apps: Apps?
    public var blockingFunctions: BlockingFunctions?
    public var passwordPolicyConfig: PasswordPolicyConfig?
    public var oauthServer: OAuthServer?
    /// When sessions end by themselves (Flint's; none by default, as Firebase's).
    public var sessionPolicy: SessionPolicyConfig?
    /// How long the audit trail keeps events, and where it streams them (Flint's).
    public var auditTrail: AuditTrailConfig?

    /// The audit trail's settings. `webhookSecret` is written, never shown: `webhookSecretSet` says whether there is one.
    public struct AuditTrailConfig: Codable, Sendable, Equatable {
        /// Days an event is kept (default 90).
        public var retentionDays: Int?
        /// Where every event is posted, in order, signed with `webhookSecret` (HMAC-SHA256).
        public var webhookUrl: String?
        public var webhookSecret: String?
        public var webhookSecretSet: Bool?
        /// Whether each event is also written to the server log as one JSON line.
        public var logEvents: Bool?
        /// Whether an account's address is mailed when it signs in from a device (user agent and network) the trail has
        /// not seen it use (off by default).
        public var newDeviceNotice: Bool?

        public init(retentionDays: Int? = nil, webhookUrl: String? = nil, webhookSecret: String? = nil,
                    webhookSecretSet: Bool? = nil, logEvents: Bool? = nil, newDeviceNotice: Bool? = nil) {
            self.retentionDays = retentionDays
            self.webhookUrl = webhookUrl
            self.webhookSecret = webhookSecret
            self.webhookSecretSet = webhookSecretSet
            self.logEvents = logEvents
            self.newDeviceNotice = newDeviceNotice
        }
    }

    /// Sessions unused for `idleTimeoutSeconds` (at least an hour), or older than `maximumLifetimeSeconds`, end.
    public struct SessionPolicyConfig: Codable, Sendable, Equatable {
        public var idleTimeoutSeconds: Int64?
        public var maximumLifetimeSeconds: Int64?

        public init(idleTimeoutSeconds: Int64? = nil, maximumLifetimeSeconds: Int64? = nil) {
            self.idleTimeoutSeconds = idleTimeoutSeconds
            self.maximumLifetimeSeconds = maximumLifetimeSeconds
        }
    }

    public init(name: String? = nil, signIn: SignIn? = nil, authorizedDomains: [String]? = nil,
                emailPrivacyConfig: EmailPrivacyConfig? = nil, smsRegionConfig: SmsRegionConfig? = nil,
                appVerification: AppVerification? = nil, apps: Apps? = nil, notification: Notification? = nil,
                mfa: MultiFactorConfig? = nil, blockingFunctions: BlockingFunctions? = nil,
                smsDefenseConfig: SmsDefenseConfig? = nil, passwordPolicyConfig: PasswordPolicyConfig? = nil,
                oauthServer: OAuthServer? = nil, sessionPolicy: SessionPolicyConfig? = nil,
                auditTrail: AuditTrailConfig? = nil) {
        self.auditTrail = auditTrail
        self.oauthServer = oauthServer
        self.sessionPolicy = sessionPolicy
        self.passwordPolicyConfig = passwordPolicyConfig
        self.apps = apps
        self.smsDefenseConfig = smsDefenseConfig
        self.blockingFunctions = blockingFunctions
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

extension ProjectConfig {
    /// The path of every leaf field present in this configuration (`signIn.anonymous.enabled`, `apps`, …):
    /// the update mask that changes exactly what a PATCH body sets.
    public var presentFieldPaths: [String] {
        var paths: [String] = []
        if let signIn {
            if signIn.allowDuplicateEmails != nil { paths.append("signIn.allowDuplicateEmails") }
            if signIn.email?.enabled != nil { paths.append("signIn.email.enabled") }
            if signIn.email?.passwordRequired != nil { paths.append("signIn.email.passwordRequired") }
            if signIn.anonymous?.enabled != nil { paths.append("signIn.anonymous.enabled") }
            if signIn.phoneNumber?.enabled != nil { paths.append("signIn.phoneNumber.enabled") }
            if signIn.phoneNumber?.testPhoneNumbers != nil { paths.append("signIn.phoneNumber.testPhoneNumbers") }
        }
        if authorizedDomains != nil { paths.append("authorizedDomains") }
        if emailPrivacyConfig?.enableImprovedEmailPrivacy != nil { paths.append("emailPrivacyConfig.enableImprovedEmailPrivacy") }
        if smsRegionConfig != nil { paths.append("smsRegionConfig") }
        if smsDefenseConfig?.regionDailyCap != nil { paths.append("smsDefenseConfig.regionDailyCap") }
        if smsDefenseConfig?.deniedPrefixes != nil { paths.append("smsDefenseConfig.deniedPrefixes") }
        if let appVerification {
            if appVerification.apnsEnabled != nil { paths.append("appVerification.apnsEnabled") }
            if appVerification.required != nil { paths.append("appVerification.required") }
            if appVerification.captcha != nil { paths.append("appVerification.captcha") }
            if appVerification.proofOfWorkBits != nil { paths.append("appVerification.proofOfWorkBits") }
        }
        if apps != nil { paths.append("apps") }
        if oauthServer != nil { paths.append("oauthServer") }
        if sessionPolicy != nil { paths.append("sessionPolicy") }
        if auditTrail != nil { paths.append("auditTrail") }
        if let sendEmail = notification?.sendEmail {
            if sendEmail.resetPasswordTemplate != nil { paths.append("notification.sendEmail.resetPasswordTemplate") }
            if sendEmail.verifyEmailTemplate != nil { paths.append("notification.sendEmail.verifyEmailTemplate") }
            if sendEmail.changeEmailTemplate != nil { paths.append("notification.sendEmail.changeEmailTemplate") }
        }
        if let mfa {
            if mfa.state != nil { paths.append("mfa.state") }
            if mfa.enabledProviders != nil { paths.append("mfa.enabledProviders") }
            if mfa.providerConfigs != nil { paths.append("mfa.providerConfigs") }
        }
        if let blockingFunctions {
            if blockingFunctions.triggers != nil { paths.append("blockingFunctions.triggers") }
            let forwarded = blockingFunctions.forwardInboundCredentials
            if forwarded?.idToken != nil { paths.append("blockingFunctions.forwardInboundCredentials.idToken") }
            if forwarded?.accessToken != nil { paths.append("blockingFunctions.forwardInboundCredentials.accessToken") }
            if forwarded?.refreshToken != nil { paths.append("blockingFunctions.forwardInboundCredentials.refreshToken") }
        }
        if let passwordPolicyConfig {
            if passwordPolicyConfig.passwordPolicyEnforcementState != nil { paths.append("passwordPolicyConfig.passwordPolicyEnforcementState") }
            if passwordPolicyConfig.passwordPolicyVersions != nil { paths.append("passwordPolicyConfig.passwordPolicyVersions") }
            if passwordPolicyConfig.forceUpgradeOnSignin != nil { paths.append("passwordPolicyConfig.forceUpgradeOnSignin") }
        }
        return paths
    }
}
