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

    public var sms: SMSProvider = .log
    public var apns: APNs?
    public var siteVerify: SiteVerify?
    /// Extra PEM certificates trusted for outgoing TLS (besides the system's), e.g. a private CA.
    public var extraTrustRootsPEM: [String] = []

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

    public init() {}
}
