import Instrumentation
import Logging
import NIOConcurrencyHelpers
import Tracing
import W3CTraceContext

/// Receives the spans a `FlintTracer` records, each as it ends, on the task that ends it: keep it quick
/// (buffer; send elsewhere).
public protocol SpanExporter: Sendable {
    func export(_ span: FinishedSpan)
}

/// A span as it ended.
public struct FinishedSpan: Sendable {
    public var operationName: String
    public var kind: SpanKind
    /// The span's trace id, its own id and the trace's flags.
    public var traceContext: TraceContext
    /// The span it is a child of, in this process or the caller's; nil for a trace's root.
    public var parentSpanID: SpanID?
    public var startNanosecondsSinceEpoch: UInt64
    public var endNanosecondsSinceEpoch: UInt64
    public var attributes: SpanAttributes
    public var status: SpanStatus?
    /// Events, errors among them (named `exception`, with the error's type only: an error's text may carry an
    /// address or a number).
    public var events: [SpanEvent]
    public var links: [SpanLink]
}

/// Flint's own tracer: W3C Trace Context (`traceparent`, `tracestate`) in and out, a new trace when a request
/// brings none, and the caller's sampling decision honoured (a trace it did not sample is propagated, never
/// recorded). Sampled spans go to `exporter` when they end; without one nothing is recorded at all, and the
/// trace ids only travel: to the services Flint calls and, through `logMetadataProvider`, into the log.
///
/// Injected into the server (`ServerEnvironment.tracer`), never bootstrapped process-wide, so several servers
/// in one process (the tests) trace apart.
public struct FlintTracer: Tracer {
    public typealias Span = FlintSpan

    private let exporter: (any SpanExporter)?
    private let ids = IDSource()

    public init(exporter: (any SpanExporter)? = nil) {
        self.exporter = exporter
    }

    public func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> FlintSpan {
        let parent = context()
        let parentTrace = parent.flintTraceContext
        let trace = TraceContext(
            traceID: parentTrace?.traceID ?? ids.traceID(), spanID: ids.spanID(),
            flags: parentTrace?.flags ?? .sampled, state: parentTrace?.state ?? TraceState())
        let recorder = exporter.flatMap { exporter in
            trace.flags.contains(.sampled)
                ? SpanRecorder(name: operationName, kind: kind, start: instant().nanosecondsSinceEpoch, exporter: exporter)
                : nil
        }
        return FlintSpan(parentContext: parent, traceContext: trace, parentSpanID: parentTrace?.spanID,
                         name: operationName, recorder: recorder)
    }

    public func forceFlush() {}

    public func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
        where Inject.Carrier == Carrier {
        guard let trace = context.flintTraceContext else { return }
        injector.inject(trace.traceParentHeaderValue, forKey: "traceparent", into: &carrier)
        if let state = trace.traceStateHeaderValue { injector.inject(state, forKey: "tracestate", into: &carrier) }
    }

    /// A malformed `traceparent` is ignored (the request starts a trace of its own), and a malformed `tracestate`
    /// dropped: neither fails a request.
    public func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
        where Extract.Carrier == Carrier {
        guard let parent = extractor.extract(key: "traceparent", from: carrier) else { return }
        let state = extractor.extract(key: "tracestate", from: carrier)
        guard let trace = (try? TraceContext(traceParentHeaderValue: parent, traceStateHeaderValue: state))
            ?? (try? TraceContext(traceParentHeaderValue: parent)) else { return }
        context.flintTraceContext = trace
    }

    /// `trace_id` on every line logged inside a traced request (or store transaction): read from the task's
    /// context, and formatted only when a line is actually written. A metadata key set on each request's logger
    /// instead would cost every request a dictionary write (measured at ~4 % of a cheap request's throughput).
    public static var logMetadataProvider: Logger.MetadataProvider {
        Logger.MetadataProvider {
            guard let trace = ServiceContext.current?.flintTraceContext else { return [:] }
            return ["trace_id": .stringConvertible(trace.traceID)]
        }
    }
}

/// A `FlintTracer` span. Unrecorded spans (no exporter, or a trace the caller did not sample) are a few ids and
/// the parent's context: nothing is allocated for them.
public struct FlintSpan: Tracing.Span {
    /// The context the span was started in; `context` adds the span's own trace context to it when asked, so
    /// spans that are never made current (store statements) never build one.
    private let parentContext: ServiceContext
    public let traceContext: TraceContext
    public let parentSpanID: SpanID?
    private let name: String
    private let recorder: SpanRecorder?

    fileprivate init(parentContext: ServiceContext, traceContext: TraceContext, parentSpanID: SpanID?, name: String,
                     recorder: SpanRecorder?) {
        self.parentContext = parentContext
        self.traceContext = traceContext
        self.parentSpanID = parentSpanID
        self.name = name
        self.recorder = recorder
    }

    public var context: ServiceContext {
        var context = parentContext
        context.flintTraceContext = traceContext
        return context
    }

    public var isRecording: Bool { recorder?.isRecording ?? false }

    public var operationName: String {
        get { recorder?.state.withLockedValue { $0.name } ?? name }
        nonmutating set { recorder?.update { $0.name = newValue } }
    }

    public var attributes: SpanAttributes {
        get { recorder?.state.withLockedValue { $0.attributes } ?? [:] }
        nonmutating set { recorder?.update { $0.attributes = newValue } }
    }

    public func setStatus(_ status: SpanStatus) { recorder?.update { $0.status = status } }

    public func addEvent(_ event: SpanEvent) { recorder?.update { $0.events.append(event) } }

    public func addLink(_ link: SpanLink) { recorder?.update { $0.links.append(link) } }

    public func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
        guard let recorder else { return }
        var attributes = attributes
        attributes["exception.type"] = "\(type(of: error))"
        let event = SpanEvent(name: "exception", at: instant(), attributes: attributes)
        recorder.update { $0.events.append(event) }
    }

    public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        recorder?.end(at: instant().nanosecondsSinceEpoch, trace: traceContext, parentSpanID: parentSpanID)
    }
}

/// What a recorded span has gathered so far; it stops gathering when the span ends.
private final class SpanRecorder: Sendable {
    struct State {
        var name: String
        var attributes: SpanAttributes = [:]
        var status: SpanStatus?
        var events: [SpanEvent] = []
        var links: [SpanLink] = []
        var ended = false
    }

    let state: NIOLockedValueBox<State>
    private let kind: SpanKind
    private let start: UInt64
    private let exporter: any SpanExporter

    init(name: String, kind: SpanKind, start: UInt64, exporter: any SpanExporter) {
        state = NIOLockedValueBox(State(name: name))
        self.kind = kind
        self.start = start
        self.exporter = exporter
    }

    var isRecording: Bool { state.withLockedValue { !$0.ended } }

    func update(_ change: (inout State) -> Void) {
        state.withLockedValue { state in
            if !state.ended { change(&state) }
        }
    }

    func end(at end: UInt64, trace: TraceContext, parentSpanID: SpanID?) {
        let ended: State? = state.withLockedValue { state in
            guard !state.ended else { return nil }
            state.ended = true
            return state
        }
        guard let ended else { return }
        exporter.export(FinishedSpan(
            operationName: ended.name, kind: kind, traceContext: trace, parentSpanID: parentSpanID,
            startNanosecondsSinceEpoch: start, endNanosecondsSinceEpoch: end, attributes: ended.attributes,
            status: ended.status, events: ended.events, links: ended.links))
    }
}

/// Trace and span ids: SplitMix64 over a counter seeded once from the system's randomness. Unique within a
/// process, unpredictable across processes, and no `getrandom` call per span (random bytes per request cost a
/// cheap request a visible share of its throughput).
private final class IDSource: Sendable {
    private let counter: NIOLockedValueBox<UInt64>

    init() {
        var random = SystemRandomNumberGenerator()
        counter = NIOLockedValueBox(random.next())
    }

    /// Never zero (W3C reserves the all-zero ids).
    private func next() -> UInt64 {
        var z = counter.withLockedValue { counter in
            counter &+= 0x9E37_79B9_7F4A_7C15
            return counter
        }
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return max(z ^ (z >> 31), 1)
    }

    // Big-endian words reinterpreted as the ids' byte tuples (same size, plain bytes).
    func spanID() -> SpanID {
        SpanID(bytes: unsafeBitCast(next().bigEndian, to: SpanID.Bytes.self))
    }

    func traceID() -> TraceID {
        TraceID(bytes: unsafeBitCast((next().bigEndian, next().bigEndian), to: TraceID.Bytes.self))
    }
}

private enum FlintTraceContextKey: ServiceContextKey {
    typealias Value = TraceContext
    static var nameOverride: String? { "flint-trace-context" }
}

extension ServiceContext {
    /// The current span's W3C trace context, as `FlintTracer` keeps it.
    var flintTraceContext: TraceContext? {
        get { self[FlintTraceContextKey.self] }
        set { self[FlintTraceContextKey.self] = newValue }
    }
}
