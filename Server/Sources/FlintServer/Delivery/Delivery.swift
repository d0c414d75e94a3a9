import FlintWire
import Foundation

// The seams between Flint and the outside services it sends through. Each has a real client
// (Twilio, a webhook, APNs, a siteverify endpoint) and a local stand-in (the log), chosen by
// `DeliveryConfiguration`; tests point the real clients at local fakes.

/// One verification text message.
public struct SMSMessage: Sendable, Equatable {
    public var projectID: String
    /// E.164, e.g. `+15555550100`.
    public var phoneNumber: String
    public var code: String
    /// The full localised text (it contains `code`).
    public var text: String
    /// The locale the text is in (after falling back from the requested one).
    public var locale: String

    public init(projectID: String, phoneNumber: String, code: String, text: String, locale: String) {
        self.projectID = projectID
        self.phoneNumber = phoneNumber
        self.code = code
        self.text = text
        self.locale = locale
    }
}

/// Sends text messages.
public protocol SMSSender: Sendable {
    /// A short fixed name for metrics labels (`twilio`).
    var metricsName: String { get }
    func send(_ message: SMSMessage) async throws
}

/// A silent (background) push carrying an app-verification secret to one device.
public struct SilentPush: Sendable, Equatable {
    /// The APNs device token, hex.
    public var deviceToken: String
    /// Development builds register with the sandbox APNs environment.
    public var sandbox: Bool
    public var credential: AppCredentialPush

    public init(deviceToken: String, sandbox: Bool, credential: AppCredentialPush) {
        self.deviceToken = deviceToken
        self.sandbox = sandbox
        self.credential = credential
    }
}

/// Delivers silent pushes (APNs).
public protocol PushSender: Sendable {
    func send(_ push: SilentPush) async throws
}

/// Checks a captcha response token with its issuer (reCAPTCHA, hCaptcha and Turnstile share the
/// siteverify protocol).
public protocol CaptchaVerifier: Sendable {
    /// True if the issuer vouches for `response`; false if it does not. Throws only when the issuer
    /// cannot be asked.
    func verify(response: String, remoteIP: String?) async throws -> Bool
}

/// Why an outside service did not take a message.
public enum DeliveryError: Error, Equatable, CustomStringConvertible {
    /// The service answered with an error status.
    case rejected(status: Int, detail: String)
    /// The service could not be reached or answered nonsense.
    case unavailable(String)
    /// The server is not configured for this kind of delivery.
    case notConfigured(String)

    public var description: String {
        switch self {
        case let .rejected(status, detail): "rejected with HTTP \(status): \(detail)"
        case let .unavailable(detail): "unavailable: \(detail)"
        case let .notConfigured(detail): "not configured: \(detail)"
        }
    }
}
