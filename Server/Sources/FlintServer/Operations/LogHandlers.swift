import Foundation
import Logging
import NIOConcurrencyHelpers

/// How `LineLogHandler` turns one event into one line, and where lines go unless told otherwise.
public protocol LogLineFormat: Sendable {
    /// The line for `event` (nil: none); `metadata` is everything that applies to it, the event's own last.
    static func line(label: String, event: LogEvent, metadata: Logger.Metadata) -> String?
    /// Where lines go by default.
    static var defaultWrite: @Sendable (String) -> Void { get }
}

/// A log handler that writes one line per event, formatted by `Format`. Made per logger, not bootstrapped
/// process-wide.
///
/// Metadata is formatted when a line is written, not each time it is set: Hummingbird sets a request id on every
/// request's logger, and swift-log's `StreamLogHandler` re-formats all metadata on every set — about 2 % of a
/// lookup's CPU, for lines that are almost never written.
public struct LineLogHandler<Format: LogLineFormat>: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    /// Metadata of the moment (the current trace's `trace_id`: `FlintTracer.logMetadataProvider`).
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable (String) -> Void

    /// - Parameter write: where each line goes (by default the format's stream; or a test's buffer).
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil,
                write: @escaping @Sendable (String) -> Void = Format.defaultWrite) {
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
        if let line = Format.line(label: label, event: event, metadata: all) { write(line) }
    }

    /// Writes whole lines to `handle`, one writer at a time, so concurrent lines never interleave.
    static func lines(to handle: FileHandle) -> @Sendable (String) -> Void {
        { line in outputLock.withLock { handle.write(Data((line + "\n").utf8)) } }
    }
}

/// One lock for every handler's writes: text and JSON lines may share a terminal.
private let outputLock = NIOLock()

/// `--log-format text` (the default): swift-log's `StreamLogHandler` lines on standard error — `time level label :
/// key=value … [source] message`.
public typealias TextLogHandler = LineLogHandler<TextLogFormat>

public enum TextLogFormat: LogLineFormat {
    public static func line(label: String, event: LogEvent, metadata: Logger.Metadata) -> String? {
        let pairs = metadata.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        return "\(timestamp()) \(event.level) \(label) :\(pairs) [\(event.source)] \(event.message)"
    }

    public static let defaultWrite = TextLogHandler.lines(to: .standardError)

    /// Local time with its offset, as `StreamLogHandler` writes it.
    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// `--log-format json`: one JSON object per line on standard output — `time` (ISO 8601, UTC, milliseconds),
/// `level`, `message`, `logger`, and every metadata key at the top level (`request_id`, `route`, `status`,
/// `duration_ms`, …) — for log shippers that parse lines rather than read them.
public typealias JSONLogHandler = LineLogHandler<JSONLogFormat>

public enum JSONLogFormat: LogLineFormat {
    public static func line(label: String, event: LogEvent, metadata: Logger.Metadata) -> String? {
        var fields: [String: Any] = metadata.mapValues(plain)
        fields["time"] = Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
        fields["level"] = event.level.rawValue
        fields["message"] = "\(event.message)"
        fields["logger"] = label
        guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    public static let defaultWrite = JSONLogHandler.lines(to: .standardOutput)

    /// Metadata as JSON: strings, arrays and objects of them.
    private static func plain(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): "\(convertible)"
        case .array(let values): values.map(plain)
        case .dictionary(let values): values.mapValues(plain)
        }
    }
}
