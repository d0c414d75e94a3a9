import Foundation

/// The `smtp` email provider: renders each message as MIME and submits it to the configured relay,
/// from `DeliveryConfiguration.SMTP.from` (the sender name from the message), one connection per message.
public struct SMTPEmailSender: EmailSender {
    public var metricsName: String { "smtp" }
    public let client: SMTPClient
    private let clock: any FlintClock

    public init(client: SMTPClient, clock: any FlintClock) {
        self.client = client
        self.clock = clock
    }

    /// Throws `DeliveryConfigurationError` for an unusable trust-root bundle.
    public init(configuration: DeliveryConfiguration.SMTP, extraTrustRootsPEM: [String] = [],
                limits: OutsideCallLimits = OutsideCallLimits(), telemetry: Telemetry = Telemetry(),
                clock: any FlintClock) throws {
        self.init(client: try SMTPClient(configuration: configuration, extraTrustRootsPEM: extraTrustRootsPEM, limits: limits,
                                         telemetry: telemetry),
                  clock: clock)
    }

    /// Throws `DeliveryError.rejected` for a header value with a line break or an unusable address (status
    /// 0) or a reply the relay should not have given (its SMTP code), `DeliveryError.unavailable` when the
    /// relay cannot be reached or lacks what the configuration requires.
    public func send(_ message: EmailMessage) async throws {
        let from = client.configuration.from
        let domain = from.split(separator: "@").last.map(String.init) ?? "flint.invalid"
        let mime = MIMEMessage(fromAddress: from, fromName: message.senderName, to: message.to, subject: message.subject,
                               text: message.text, html: message.html, date: clock.now(),
                               messageID: "\(UUID().uuidString.lowercased())@\(domain)")
        try await client.send(from: from, to: [message.to], message: try mime.rendered())
    }
}
