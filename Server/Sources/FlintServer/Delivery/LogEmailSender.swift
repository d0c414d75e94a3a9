import FlintWire
import Logging

/// The `log` email provider: writes each action link to the server log instead of sending it, with the
/// official emulator's kind of wording. Tests and developers read the link from the `email` and `link`
/// metadata.
public struct LogEmailSender: EmailSender {
    public var metricsName: String { "log" }
    private let logger: Logger

    public init(logger: Logger) { self.logger = logger }

    public func send(_ message: EmailMessage) async throws {
        logger.notice(
            "\(Self.line(for: message))",
            metadata: [
                "email": .string(message.to),
                "link": .string(message.link),
                "action": .string(message.action.rawValue),
                "projectID": .string(message.projectID),
                "locale": .string(message.locale),
                "subject": .string(message.subject),
            ])
    }

    /// The one-line log message for `message`.
    static func line(for message: EmailMessage) -> String {
        let (to, link) = (message.to, message.link)
        return switch message.action {
        case .emailSignIn: "To sign in as \(to), follow this link: \(link)"
        case .passwordReset: "To reset the password for \(to), follow this link: \(link)"
        case .verifyEmail: "To verify the email address \(to), follow this link: \(link)"
        case .verifyAndChangeEmail: "To verify and change the email address to \(to), follow this link: \(link)"
        case .recoverEmail: "To recover the email address \(to), follow this link: \(link)"
        }
    }
}
