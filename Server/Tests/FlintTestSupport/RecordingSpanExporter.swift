import FlintServer
import NIOConcurrencyHelpers

/// Keeps every span a `FlintTracer` records, for tests to read. Spans of a request end before its answer is
/// written, so they are all here once the client has the answer.
public final class RecordingSpanExporter: SpanExporter {
    private let spans = NIOLockedValueBox<[FinishedSpan]>([])

    public init() {}

    public func export(_ span: FinishedSpan) {
        spans.withLockedValue { $0.append(span) }
    }

    /// Every span recorded so far, in the order they ended.
    public var all: [FinishedSpan] { spans.withLockedValue { $0 } }
}
