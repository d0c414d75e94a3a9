import FlintWire
import Logging

/// The `log` email provider: writes each action link (and notice) to the server log instead of sending it, with the
/// official emulator's kind of wording. Tests and developers read the link from the `email` and `link`
/// metadata.
public struct LogEmailSender: EmailSender {
    public var metricsName: String { "log" }
    private let logger: Logger

    public init(logger: Logger) { self.logger = logger }

    public func send(_ message: EmailMessage) async throws {
        var metadata: Logger.Metadata = [
            "email": .string(message.to),
            "action": .string(message.kind.name),
            "projectID": .string(message.projectID),
            "locale": .string(message.locale),
            "subject": .string(message.subject),
        ]
        metadata["link"] = message.link.map { .string($0) }
        logger.notice("\(Self.line(for: message))", metadata: metadata)
    }

    /// The one-line log message for `message`.
    static func line(for message: EmailMessage) -> String {
        let (to, link) = (message.to, message.link ?? "")
        return switch message.kind {
        case .newDeviceNotice: "\(to) was told of a sign-in from a new device: \(message.subject)"
        case .action(.emailSignIn): "To sign in as \(to), follow this link: \(link)"
        case .action(.passwordReset): "To reset the password for \(to), follow this link: \(link)"
        case .action(.verifyEmail): "To verify the email address \(to), follow this link: \(link)"
        case .action(.verifyAndChangeEmail): "To verify and change the email address to \(to), follow this link: \(link)"
        case .action(.recoverEmail): "To recover the email address \(to), follow this link: \(link)"
        }
    }
}
