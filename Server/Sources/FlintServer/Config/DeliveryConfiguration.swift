import Foundation

/// How the server reaches outside services: SMS, APNs and captcha verification. Server-wide,
/// from flags or `FLINT_*` variables; secrets stay in the environment, never in the database.
public struct DeliveryConfiguration: Sendable {
    /// Where verification codes go.
    public enum SMSProvider: Sendable, Equatable {
        /// Written to the server log (the default; development and emulator mode).
        case log
        /// POSTed as JSON to `url`, the body signed with HMAC-SHA256 under `secret`.
        case webhook(url: String, secret: String)
        /// Twilio's Messages API (or anything that speaks it) at `baseURL`.
        case twilio(baseURL: String, accountSID: String, authToken: String, from: String)
    }

    /// Apple Push Notification service, token-based (a team's .p8 key).
    public struct APNs: Sendable, Equatable {
        public var teamID: String
        public var keyID: String
        /// The .p8 file's PEM text (an EC P-256 private key).
        public var privateKeyPEM: String
        /// The app's bundle ID: the `apns-topic`.
        public var topic: String
        public var productionURL: String = "https://api.push.apple.com"
        public var sandboxURL: String = "https://api.sandbox.push.apple.com"

        public init(teamID: String, keyID: String, privateKeyPEM: String, topic: String) {
            self.teamID = teamID
            self.keyID = keyID
            self.privateKeyPEM = privateKeyPEM
            self.topic = topic
        }
    }

    /// A siteverify endpoint (reCAPTCHA, hCaptcha, Turnstile) and the site's secret and key.
    public struct SiteVerify: Sendable, Equatable {
        public var url: String
        public var secret: String
        /// The public site key the captcha widget needs.
        public var siteKey: String?

        public init(url: String, secret: String, siteKey: String? = nil) {
            self.url = url
            self.secret = secret
            self.siteKey = siteKey
        }
    }

    /// A URL Flint POSTs signed JSON events to (`X-Flint-Signature`, see `WebhookSignature`).
    public struct Webhook: Sendable, Equatable {
        public var url: String
        public var secret: String

        public init(url: String, secret: String) {
            self.url = url
            self.secret = secret
        }
    }

    /// Where action emails go.
    public enum EmailProvider: Sendable, Equatable {
        /// Written to the server log (the default; development and emulator mode).
        case log
        /// An SMTP relay.
        case smtp(SMTP)
    }

    /// An SMTP relay and how to reach it.
    public struct SMTP: Sendable, Equatable {
        public enum Security: String, Sendable, Equatable {
            /// Plain connection upgraded with STARTTLS (submission port 587); refused if not offered.
            case startTLS
            /// TLS from the first byte (port 465).
            case implicitTLS
            /// No TLS at all: only for a relay on loopback.
            case none
        }

        public var host: String
        public var port: Int
        public var security: Security
        public var username: String?
        public var password: String?
        /// The envelope and `From:` address.
        public var from: String

        public init(host: String, port: Int, security: Security, username: String? = nil, password: String? = nil, from: String) {
            self.host = host
            self.port = port
            self.security = security
            self.username = username
            self.password = password
            self.from = from
        }
    }

    public var email: EmailProvider = .log
    public var sms: SMSProvider = .log
    public var apns: APNs?
    public var siteVerify: SiteVerify?
    /// Where Flint POSTs a signed `user.deleted` event when an account is deleted (none by default).
    public var userDeletedWebhook: Webhook?
    /// Extra PEM certificates trusted for outgoing TLS (besides the system's), e.g. a private CA.
    public var extraTrustRootsPEM: [String] = []
    /// Client ID Metadata Documents may be fetched from loopback addresses (still over https, trusted through
    /// `extraTrustRootsPEM`): for tests and local development only (`FLINT_CIMD_ALLOW_LOOPBACK=1`). Private and
    /// link-local addresses stay refused.
    public var allowLoopbackClientMetadata = false
    /// Time and size limits of every outside call (these services, and Apple and Facebook).
    public var limits = OutsideCallLimits()
    /// How action emails are queued and retried.
    public var emailOutbox = EmailOutbox.Settings()

    public init(sms: SMSProvider = .log, apns: APNs? = nil, siteVerify: SiteVerify? = nil, extraTrustRootsPEM: [String] = []) {
        self.sms = sms
        self.apns = apns
        self.siteVerify = siteVerify
        self.extraTrustRootsPEM = extraTrustRootsPEM
    }
}

/// Limits on phone verification, server-wide. Defaults follow Firebase's documented quotas.
public struct PhoneLimits: Sendable, Equatable {
    /// How long a code stays valid.
    public var codeLifetimeSeconds: Int64 = 300
    /// Wrong codes allowed per session before it is dead.
    public var maxAttemptsPerCode = 5
    /// Codes sent per client IP per minute and per hour.
    public var perIPPerMinute: Int64 = 50
    public var perIPPerHour: Int64 = 500
    /// Codes sent per project per minute (beyond: `QUOTA_EXCEEDED`).
    public var perProjectPerMinute: Int64 = 1000
    /// Codes sent to one number per hour.
    public var perNumberPerHour: Int64 = 10
    /// The shortest interval between two codes to one number.
    public var resendIntervalSeconds: Int64 = 30
    /// Fictional test numbers a project may have (Firebase: 10).
    public var maxTestNumbers = 10
    /// Code sessions one fictional number may start per hour. Its code is fixed, so each session's tries are guesses
    /// at the same six digits: this bounds them, from however many clients, to `maxAttemptsPerCode` × this an hour.
    public var sessionsPerTestNumberPerHour: Int64 = 30

    public init() {}
}

extension DeliveryConfiguration: Equatable {}

/// Why a delivery configuration cannot be used.
public enum DeliveryConfigurationError: Error, Equatable, CustomStringConvertible {
    /// A provider is half-configured: `variable` is needed because of `reason`.
    case missing(variable: String, reason: String)
    /// A setting (variable or property) has a value that cannot work.
    case invalid(setting: String, reason: String)
    /// A file named by `variable` cannot be read.
    case unreadableFile(variable: String, path: String)

    public var description: String {
        switch self {
        case let .missing(variable, reason): "\(variable) is required: \(reason)"
        case let .invalid(setting, reason): "\(setting) is invalid: \(reason)"
        case let .unreadableFile(variable, path): "\(variable): cannot read the file \(path)"
        }
    }
}

extension DeliveryConfiguration {
    /// Reads the delivery settings from `FLINT_*` variables (empty counts as unset):
    ///
    /// - `FLINT_SMS_PROVIDER`: `log` (default), `webhook` or `twilio`
    /// - webhook: `FLINT_SMS_WEBHOOK_URL`, `FLINT_SMS_WEBHOOK_SECRET`
    /// - twilio: `FLINT_TWILIO_ACCOUNT_SID`, `FLINT_TWILIO_AUTH_TOKEN`, `FLINT_TWILIO_FROM`,
    ///   `FLINT_TWILIO_BASE_URL` (default `https://api.twilio.com`)
    /// - APNs (all four or none): `FLINT_APNS_TEAM_ID`, `FLINT_APNS_KEY_ID`, `FLINT_APNS_KEY_FILE` (the .p8
    ///   file), `FLINT_APNS_TOPIC` (the app's bundle ID); optionally `FLINT_APNS_PRODUCTION_URL`,
    ///   `FLINT_APNS_SANDBOX_URL`
    /// - captcha (both or none): `FLINT_CAPTCHA_VERIFY_URL`, `FLINT_CAPTCHA_SECRET`; optionally
    ///   `FLINT_CAPTCHA_SITE_KEY`
    /// - `FLINT_EMAIL_PROVIDER`: `log` (default) or `smtp`
    /// - smtp: `FLINT_SMTP_HOST`, `FLINT_SMTP_FROM`; optionally `FLINT_SMTP_SECURITY` (`starttls`, the
    ///   default, `tls` or `none`), `FLINT_SMTP_PORT` (default 587, 465 for `tls`, 25 for `none`),
    ///   `FLINT_SMTP_USERNAME` and `FLINT_SMTP_PASSWORD` (both or neither)
    /// - user deletion (both or none): `FLINT_USER_DELETED_WEBHOOK_URL`, `FLINT_USER_DELETED_WEBHOOK_SECRET`
    /// - `FLINT_TRUST_ROOTS_FILE`: a PEM bundle trusted for outgoing TLS besides the system's roots
    /// - outside-call bounds (`OutsideCallLimits`): `FLINT_OUTSIDE_CONNECT_TIMEOUT_SECONDS`,
    ///   `FLINT_OUTSIDE_REQUEST_TIMEOUT_SECONDS`, `FLINT_OUTSIDE_MAX_RESPONSE_BYTES`, `FLINT_SMTP_REPLY_TIMEOUT_SECONDS`,
    ///   `FLINT_SMTP_MESSAGE_TIMEOUT_SECONDS`, `FLINT_BLOCKING_FUNCTION_TIMEOUT_SECONDS`
    /// - the email outbox (`EmailOutbox.Settings`): `FLINT_EMAIL_OUTBOX_CAPACITY`, `FLINT_EMAIL_CONCURRENT_SENDS`,
    ///   `FLINT_EMAIL_ATTEMPTS`, `FLINT_EMAIL_DRAIN_SECONDS`
    ///
    /// Throws `DeliveryConfigurationError` naming the variable that is missing or wrong.
    public init(environment: [String: String]) throws {
        let variables = EnvironmentReader(environment)
        self.init()
        sms = try Self.smsProvider(variables)
        email = try Self.emailProvider(variables)
        apns = try Self.apns(variables)
        siteVerify = try Self.siteVerify(variables)
        userDeletedWebhook = try Self.userDeletedWebhook(variables)
        if let path = variables["FLINT_TRUST_ROOTS_FILE"] {
            let pem = try variables.file("FLINT_TRUST_ROOTS_FILE", path)
            guard pem.contains("-----BEGIN CERTIFICATE-----") else {
                throw DeliveryConfigurationError.invalid(setting: "FLINT_TRUST_ROOTS_FILE", reason: "no PEM certificate in \(path)")
            }
            extraTrustRootsPEM = [pem]
        }
        allowLoopbackClientMetadata = variables["FLINT_CIMD_ALLOW_LOOPBACK"] == "1"
        limits.connectTimeout = try variables.seconds("FLINT_OUTSIDE_CONNECT_TIMEOUT_SECONDS") ?? limits.connectTimeout
        limits.requestTimeout = try variables.seconds("FLINT_OUTSIDE_REQUEST_TIMEOUT_SECONDS") ?? limits.requestTimeout
        limits.maximumResponseBytes = try variables.wholeNumber("FLINT_OUTSIDE_MAX_RESPONSE_BYTES").map { Int($0) }
            ?? limits.maximumResponseBytes
        limits.smtpReplyTimeout = try variables.seconds("FLINT_SMTP_REPLY_TIMEOUT_SECONDS") ?? limits.smtpReplyTimeout
        limits.smtpMessageTimeout = try variables.seconds("FLINT_SMTP_MESSAGE_TIMEOUT_SECONDS") ?? limits.smtpMessageTimeout
        limits.blockingFunctionTimeout = try variables.seconds("FLINT_BLOCKING_FUNCTION_TIMEOUT_SECONDS") ?? limits.blockingFunctionTimeout
        emailOutbox.capacity = try variables.wholeNumber("FLINT_EMAIL_OUTBOX_CAPACITY").map { Int($0) } ?? emailOutbox.capacity
        emailOutbox.concurrentSends = try variables.wholeNumber("FLINT_EMAIL_CONCURRENT_SENDS").map { max(1, Int($0)) }
            ?? emailOutbox.concurrentSends
        emailOutbox.attempts = try variables.wholeNumber("FLINT_EMAIL_ATTEMPTS").map { max(1, Int($0)) } ?? emailOutbox.attempts
        emailOutbox.drainTimeout = try variables.seconds("FLINT_EMAIL_DRAIN_SECONDS") ?? emailOutbox.drainTimeout
    }

    private static func smsProvider(_ variables: EnvironmentReader) throws -> SMSProvider {
        switch variables["FLINT_SMS_PROVIDER"]?.lowercased() ?? "log" {
        case "log":
            return .log
        case "webhook":
            let because = "FLINT_SMS_PROVIDER=webhook"
            return .webhook(url: try variables.url("FLINT_SMS_WEBHOOK_URL", because: because),
                            secret: try variables.required("FLINT_SMS_WEBHOOK_SECRET", because: because))
        case "twilio":
            let because = "FLINT_SMS_PROVIDER=twilio"
            return .twilio(
                baseURL: try variables.url("FLINT_TWILIO_BASE_URL", because: because, default: "https://api.twilio.com"),
                accountSID: try variables.required("FLINT_TWILIO_ACCOUNT_SID", because: because),
                authToken: try variables.required("FLINT_TWILIO_AUTH_TOKEN", because: because),
                from: try variables.required("FLINT_TWILIO_FROM", because: because))
        case let other:
            throw DeliveryConfigurationError.invalid(
                setting: "FLINT_SMS_PROVIDER", reason: "\"\(other)\" is not one of log, webhook, twilio")
        }
    }

    private static func emailProvider(_ variables: EnvironmentReader) throws -> EmailProvider {
        switch variables["FLINT_EMAIL_PROVIDER"]?.lowercased() ?? "log" {
        case "log":
            return .log
        case "smtp":
            let because = "FLINT_EMAIL_PROVIDER=smtp"
            let security: SMTP.Security
            switch variables["FLINT_SMTP_SECURITY"]?.lowercased() ?? "starttls" {
            case "starttls": security = .startTLS
            case "tls", "implicit", "ssl": security = .implicitTLS
            case "none": security = .none
            case let other:
                throw DeliveryConfigurationError.invalid(
                    setting: "FLINT_SMTP_SECURITY", reason: "\"\(other)\" is not one of starttls, tls, none")
            }
            let host = try variables.required("FLINT_SMTP_HOST", because: because)
            if security == .none, !SMTPClient.isLoopback(host) {
                throw DeliveryConfigurationError.invalid(
                    setting: "FLINT_SMTP_SECURITY", reason: "none is only allowed for a relay on loopback, not \(host)")
            }
            var port = switch security {
            case .startTLS: 587
            case .implicitTLS: 465
            case .none: 25
            }
            if let text = variables["FLINT_SMTP_PORT"] {
                guard let number = Int(text), (1...65535).contains(number) else {
                    throw DeliveryConfigurationError.invalid(setting: "FLINT_SMTP_PORT", reason: "\"\(text)\" is not a port number")
                }
                port = number
            }
            let from = try variables.required("FLINT_SMTP_FROM", because: because)
            do {
                try MIMEMessage.checkAddress(from, name: "FLINT_SMTP_FROM")
            } catch {
                throw DeliveryConfigurationError.invalid(setting: "FLINT_SMTP_FROM", reason: "\"\(from)\" is not a plain address (name@domain)")
            }
            let username = variables["FLINT_SMTP_USERNAME"]
            let password = variables["FLINT_SMTP_PASSWORD"]
            if username != nil, password == nil {
                throw DeliveryConfigurationError.missing(variable: "FLINT_SMTP_PASSWORD", reason: "FLINT_SMTP_USERNAME is set")
            }
            if password != nil, username == nil {
                throw DeliveryConfigurationError.missing(variable: "FLINT_SMTP_USERNAME", reason: "FLINT_SMTP_PASSWORD is set")
            }
            return .smtp(SMTP(host: host, port: port, security: security, username: username, password: password, from: from))
        case let other:
            throw DeliveryConfigurationError.invalid(
                setting: "FLINT_EMAIL_PROVIDER", reason: "\"\(other)\" is not one of log, smtp")
        }
    }

    private static func apns(_ variables: EnvironmentReader) throws -> APNs? {
        let names = ["FLINT_APNS_TEAM_ID", "FLINT_APNS_KEY_ID", "FLINT_APNS_KEY_FILE", "FLINT_APNS_TOPIC",
                     "FLINT_APNS_PRODUCTION_URL", "FLINT_APNS_SANDBOX_URL"]
        guard let given = names.first(where: { variables[$0] != nil }) else { return nil }
        let because = "\(given) is set, and APNs needs a team ID, key ID, key file and topic"
        let teamID = try variables.required("FLINT_APNS_TEAM_ID", because: because)
        let keyID = try variables.required("FLINT_APNS_KEY_ID", because: because)
        let keyPath = try variables.required("FLINT_APNS_KEY_FILE", because: because)
        let topic = try variables.required("FLINT_APNS_TOPIC", because: because)
        var apns = APNs(teamID: teamID, keyID: keyID, privateKeyPEM: try variables.file("FLINT_APNS_KEY_FILE", keyPath),
                        topic: topic)
        apns.productionURL = try variables.url("FLINT_APNS_PRODUCTION_URL", because: because, default: apns.productionURL)
        apns.sandboxURL = try variables.url("FLINT_APNS_SANDBOX_URL", because: because, default: apns.sandboxURL)
        do {
            _ = try APNsProviderToken(teamID: apns.teamID, keyID: apns.keyID, privateKeyPEM: apns.privateKeyPEM,
                                      clock: SystemClock())
        } catch {
            throw DeliveryConfigurationError.invalid(setting: "FLINT_APNS_KEY_FILE", reason: "\(keyPath) is not a P-256 private key (.p8)")
        }
        return apns
    }

    private static func siteVerify(_ variables: EnvironmentReader) throws -> SiteVerify? {
        let names = ["FLINT_CAPTCHA_VERIFY_URL", "FLINT_CAPTCHA_SECRET", "FLINT_CAPTCHA_SITE_KEY"]
        guard let given = names.first(where: { variables[$0] != nil }) else { return nil }
        let because = "\(given) is set, and captcha verification needs a siteverify URL and secret"
        return SiteVerify(url: try variables.url("FLINT_CAPTCHA_VERIFY_URL", because: because),
                          secret: try variables.required("FLINT_CAPTCHA_SECRET", because: because),
                          siteKey: variables["FLINT_CAPTCHA_SITE_KEY"])
    }

    private static func userDeletedWebhook(_ variables: EnvironmentReader) throws -> Webhook? {
        let names = ["FLINT_USER_DELETED_WEBHOOK_URL", "FLINT_USER_DELETED_WEBHOOK_SECRET"]
        guard let given = names.first(where: { variables[$0] != nil }) else { return nil }
        let because = "\(given) is set, and the user-deletion webhook needs a URL and a signing secret"
        return Webhook(url: try variables.url("FLINT_USER_DELETED_WEBHOOK_URL", because: because),
                       secret: try variables.required("FLINT_USER_DELETED_WEBHOOK_SECRET", because: because))
    }
}

extension PhoneLimits {
    /// Reads overrides from `FLINT_*` variables (unset or empty keeps the default):
    /// `FLINT_PHONE_CODE_LIFETIME` (seconds), `FLINT_PHONE_MAX_ATTEMPTS`, `FLINT_SMS_PER_PROJECT_PER_MINUTE`,
    /// `FLINT_SMS_PER_IP_PER_MINUTE`, `FLINT_SMS_PER_IP_PER_HOUR`, `FLINT_SMS_PER_NUMBER_PER_HOUR`,
    /// `FLINT_SMS_RESEND_INTERVAL` (seconds), `FLINT_MAX_TEST_PHONE_NUMBERS`, `FLINT_SMS_SESSIONS_PER_TEST_NUMBER_PER_HOUR`.
    public init(environment variables: [String: String]) throws {
        self.init()
        func read(_ name: String, into value: inout Int64) throws {
            guard let text = variables[name], !text.isEmpty else { return }
            guard let number = Int64(text), number >= 0 else {
                throw DeliveryConfigurationError.invalid(setting: name, reason: "\"\(text)\" is not a whole number ≥ 0")
            }
            value = number
        }
        var maxAttempts = Int64(maxAttemptsPerCode)
        var maxTestNumbers = Int64(self.maxTestNumbers)
        try read("FLINT_PHONE_CODE_LIFETIME", into: &codeLifetimeSeconds)
        try read("FLINT_PHONE_MAX_ATTEMPTS", into: &maxAttempts)
        try read("FLINT_SMS_PER_PROJECT_PER_MINUTE", into: &perProjectPerMinute)
        try read("FLINT_SMS_PER_IP_PER_MINUTE", into: &perIPPerMinute)
        try read("FLINT_SMS_PER_IP_PER_HOUR", into: &perIPPerHour)
        try read("FLINT_SMS_PER_NUMBER_PER_HOUR", into: &perNumberPerHour)
        try read("FLINT_SMS_RESEND_INTERVAL", into: &resendIntervalSeconds)
        try read("FLINT_MAX_TEST_PHONE_NUMBERS", into: &maxTestNumbers)
        try read("FLINT_SMS_SESSIONS_PER_TEST_NUMBER_PER_HOUR", into: &sessionsPerTestNumberPerHour)
        maxAttemptsPerCode = Int(maxAttempts)
        self.maxTestNumbers = Int(maxTestNumbers)
    }
}
