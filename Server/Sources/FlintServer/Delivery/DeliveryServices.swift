import AsyncHTTPClient
import Dispatch
import Logging
import NIOConcurrencyHelpers

/// The delivery clients the configuration asks for, sharing one HTTP client (HTTP/2 where offered, the
/// system's trust roots plus `extraTrustRootsPEM`). Built once at start; `shutdown()` at close.
public final class DeliveryServices: Sendable {
    public let sms: any SMSSender
    /// Action emails (sign-in links, password resets, verifications): the log or an SMTP relay.
    public let email: any EmailSender
    /// Nil when no APNs key is configured.
    public let push: (any PushSender)?
    /// Nil when no siteverify endpoint is configured.
    public let captcha: (any CaptchaVerifier)?
    /// Nil when no user-deletion webhook is configured.
    let userDeleted: UserDeletedWebhook?
    /// The shared client and its limits and telemetry, also used by the federated providers' clients (Apple,
    /// Facebook).
    let http: OutsideHTTP
    private let isShutDown = NIOLockedValueBox(false)

    init(sms: any SMSSender, email: any EmailSender, push: (any PushSender)?, captcha: (any CaptchaVerifier)?,
         userDeleted: UserDeletedWebhook?, http: OutsideHTTP) {
        self.userDeleted = userDeleted
        self.sms = sms
        self.email = email
        self.push = push
        self.captcha = captcha
        self.http = http
    }

    /// Throws `DeliveryConfigurationError` for an unusable APNs key or trust-root bundle.
    public static func make(_ configuration: DeliveryConfiguration, telemetry: Telemetry = Telemetry(), clock: any FlintClock,
                            logger: Logger) throws -> DeliveryServices {
        let limits = configuration.limits
        let httpClient = try DeliveryHTTP.makeClient(extraTrustRootsPEM: configuration.extraTrustRootsPEM, limits: limits)
        let http = OutsideHTTP(client: httpClient, limits: limits, telemetry: telemetry)
        do {
            let sms: any SMSSender = switch configuration.sms {
            case .log:
                LogSMSSender(logger: logger)
            case let .webhook(url, secret):
                WebhookSMSSender(url: url, secret: secret, http: http, clock: clock)
            case let .twilio(baseURL, accountSID, authToken, from):
                TwilioSMSSender(baseURL: baseURL, accountSID: accountSID, authToken: authToken, from: from,
                                http: http)
            }
            // SMTP opens one connection per message on the shared event loops: nothing to shut down.
            let email: any EmailSender = switch configuration.email {
            case .log:
                LogEmailSender(logger: logger)
            case let .smtp(smtp):
                try SMTPEmailSender(configuration: smtp, extraTrustRootsPEM: configuration.extraTrustRootsPEM, limits: limits,
                                    telemetry: telemetry, clock: clock)
            }
            let push = try configuration.apns.map {
                try APNsClient(configuration: $0, http: http, clock: clock)
            }
            let captcha = configuration.siteVerify.map {
                SiteVerifyClient(url: $0.url, secret: $0.secret, http: http)
            }
            let userDeleted = configuration.userDeletedWebhook.map {
                UserDeletedWebhook(url: $0.url, secret: $0.secret, http: http, clock: clock, logger: logger)
            }
            return DeliveryServices(sms: sms, email: email, push: push, captcha: captcha, userDeleted: userDeleted,
                                    http: http)
        } catch {
            // Nothing ran on it yet: shut it down in the background.
            httpClient.shutdown { _ in }
            throw error
        }
    }

    /// Shuts the shared HTTP client down (once; later calls do nothing).
    public func shutdown() async throws {
        let first = isShutDown.withLockedValue { done in
            defer { done = true }
            return !done
        }
        if first { try await http.client.shutdown() }
    }
}
