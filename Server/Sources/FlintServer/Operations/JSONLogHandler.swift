import Foundation
import Logging
import NIOConcurrencyHelpers

/// `--log-format json`: one JSON object per line on standard output — `time` (ISO 8601, UTC, milliseconds),
/// `level`, `message`, `logger`, and every metadata key at the top level (`request_id`, `route`, `status`,
/// `duration_ms`, …) — for log shippers that parse lines rather than read them. Made per logger, not
/// bootstrapped process-wide.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    /// Metadata of the moment (the current trace's `trace_id`: `FlintTracer.logMetadataProvider`).
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable (String) -> Void

    /// - Parameter write: where each line goes (standard output, or a test's buffer).
    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil,
                write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardOutput) {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: Any] = [:]
        let current = metadataProvider?.get() ?? [:]
        let all = metadata.merging(current) { _, new in new }.merging(event.metadata ?? [:]) { _, new in new }
        for (key, value) in all {
            fields[key] = Self.plain(value)
        }
        fields["time"] = Self.timestamp(Date())
        fields["level"] = event.level.rawValue
        fields["message"] = "\(event.message)"
        fields["logger"] = label
        guard let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        write(String(decoding: data, as: UTF8.self))
    }

    /// Metadata as JSON: strings, arrays and objects of them.
    private static func plain(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): "\(convertible)"
        case .array(let values): values.map(plain)
        case .dictionary(let values): values.mapValues(plain)
        }
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt))
    }

    /// Writes whole lines to standard output, one writer at a time, so concurrent lines never interleave.
    public static let standardOutput: @Sendable (String) -> Void = { line in
        outputLock.withLock { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    }

    private static let outputLock = NIOLock()
}
