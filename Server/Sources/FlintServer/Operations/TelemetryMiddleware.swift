import HTTPTypes
import Hummingbird
import Instrumentation
import Logging
import Tracing

/// What every request leaves behind: an `X-Request-Id` (the caller's, if it sent a usable one) on the answer and
/// on every log line written while serving it, a count and latency in `ServerMetrics` by the route it matched,
/// a server span (a child of the caller's `traceparent`, if it sent one, current while the request is served so
/// store and outside calls are its children), and a debug-level access line. Outermost, so it sees the status
/// the client gets (the error middleware inside it has turned failures into Firebase's answers).
///
/// Hummingbird's own `TracingMiddleware` is not used: it traces with the process-wide `InstrumentationSystem`,
/// and Flint's tracer is the server's own.
struct TelemetryMiddleware<Context: RequestContext>: RouterMiddleware {
    let telemetry: Telemetry
    static var requestIDHeader: HTTPField.Name { HTTPField.Name("X-Request-Id")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var parent = ServiceContext.topLevel
        telemetry.tracer.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
        // Named by method until the route is known; a span nobody records is never renamed.
        let span = telemetry.tracer.startSpan(request.method.rawValue, context: parent, ofKind: .server)
        return try await ServiceContext.withValue(span.context) {
            try await serve(request, context: context, next: next, span: span, start: start)
        }
    }

    private func serve(_ request: Request, context: Context, next: (Request, Context) async throws -> Response,
                       span: any Span, start: ContinuousClock.Instant) async throws -> Response {
        // Hummingbird gives each request an id in its logger's metadata (`hb.request.id`, a process prefix and a
        // counter: no random bytes per request); a caller's own id takes its place.
        var context = context
        if let callerID = Self.usableID(request.headers[Self.requestIDHeader]) {
            context.logger[metadataKey: "hb.request.id"] = .string(callerID)
        }
        let requestID = context.id
        var status = 500
        defer {
            let elapsed = ContinuousClock.now - start
            let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
            let route = context.endpointPath ?? "unmatched"
            telemetry.metrics.recordRequest(route: route, method: request.method.rawValue, status: status, nanoseconds: nanoseconds)
            if span.isRecording {
                span.operationName = "\(request.method.rawValue) \(route)"
                span.attributes["http.request.method"] = request.method.rawValue
                span.attributes["http.route"] = route
                span.attributes["http.response.status_code"] = status
                if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
            }
            span.end()
            context.logger.debug("request", metadata: [
                "method": "\(request.method)", "route": "\(route)", "status": "\(status)",
                "duration_ms": "\(Double(nanoseconds / 1000) / 1000)",
            ])
        }
        do {
            var response = try await next(request, context)
            status = response.status.code
            response.headers[Self.requestIDHeader] = requestID
            return response
        } catch let error as any HTTPResponseError {
            status = error.status.code
            throw error
        }
    }

    /// A caller's id, kept when it is short, visible ASCII (so it cannot forge log lines or headers).
    private static func usableID(_ value: String?) -> String? {
        guard let value, (1...128).contains(value.utf8.count),
              value.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        return value
    }
}

/// Reads trace context from a request's headers.
private struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from headers: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { headers[$0] }
    }
}
