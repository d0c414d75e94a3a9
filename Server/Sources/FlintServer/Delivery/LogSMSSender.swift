import Logging

/// The `log` SMS provider: writes each code to the server log instead of sending it, with the official
/// emulator's wording. Tests and developers read the code from the `phoneNumber` and `code` metadata.
public struct LogSMSSender: SMSSender {
    public var metricsName: String { "log" }
    private let logger: Logger

    public init(logger: Logger) { self.logger = logger }

    public func send(_ message: SMSMessage) async throws {
        logger.notice(
            "To verify the phone number \(message.phoneNumber), use the code \(message.code).",
            metadata: [
                "phoneNumber": .string(message.phoneNumber),
                "code": .string(message.code),
                "projectID": .string(message.projectID),
                "locale": .string(message.locale),
                "text": .string(message.text),
            ])
    }
}
