import Foundation
import Logging
import NIOConcurrencyHelpers

/// `--log-format text` (the default): swift-log's `StreamLogHandler` lines on standard error — `time level label :
/// key=value … [source] message` — with one difference that matters on the hot path: metadata is formatted when a
/// line is written, not each time it is set. Hummingbird sets a request id on every request's logger, and
/// `StreamLogHandler` re-formats all metadata on every set: about 2 % of a lookup's CPU, for lines that are
/// almost never written.
public struct TextLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable (String) -> Void

    /// - Parameter write: where each line goes (standard error, or a test's buffer).
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil,
                write: @escaping @Sendable (String) -> Void = TextLogHandler.standardError) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let current = metadataProvider?.get() ?? [:]
        let all = metadata.merging(current) { _, new in new }.merging(event.metadata ?? [:]) { _, new in new }
        let pairs = all.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        write("\(Self.timestamp()) \(event.level) \(label) :\(pairs) [\(event.source)] \(event.message)")
    }

    /// Local time with its offset, as `StreamLogHandler` writes it.
    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes whole lines to standard error, one writer at a time, so concurrent lines never interleave.
    public static let standardError: @Sendable (String) -> Void = { line in
        outputLock.withLock { FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    private static let outputLock = NIOLock()
}
