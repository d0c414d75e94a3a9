import Logging
import NIOConcurrencyHelpers

/// A log handler that keeps what it is given, so tests can read what the server logged (for
/// example the verification codes the `log` SMS provider writes) without parsing text.
public final class CapturedLog: Sendable {
    public struct Entry: Sendable {
        public let level: Logger.Level
        public let message: String
        public let metadata: [String: String]
    }

    private let entries = NIOLockedValueBox<[Entry]>([])

    public init() {}

    public var all: [Entry] { entries.withLockedValue { $0 } }

    /// The codes the log SMS provider sent to `phoneNumber`, oldest first.
    public func smsCodes(to phoneNumber: String) -> [String] {
        all.filter { $0.metadata["phoneNumber"] == phoneNumber }.compactMap { $0.metadata["code"] }
    }

    /// A logger writing into this capture (warnings and above also go nowhere else).
    public func logger(label: String = "flint-test", level: Logger.Level = .notice) -> Logger {
        var logger = Logger(label: label) { _ in Handler(log: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ entry: Entry) { entries.withLockedValue { $0.append(entry) } }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .notice

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            log.append(Entry(level: event.level, message: event.message.description,
                             metadata: merged.mapValues { $0.description }))
        }
    }
}
