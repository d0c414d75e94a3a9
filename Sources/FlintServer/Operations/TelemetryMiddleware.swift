import HTTPTypes
import Hummingbird
import Logging

/// What every request leaves behind: an `X-Request-Id` (the caller's, if it sent a usable one) on the answer and
/// on every log line written while serving it, a count and latency in `ServerMetrics` by the route it matched,
/// and a debug-level access line. Outermost, so it sees the status the client gets (the error middleware inside
/// it has turned failures into Firebase's answers).
struct TelemetryMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics
    static var requestIDHeader: HTTPField.Name { HTTPField.Name("X-Request-Id")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
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
            metrics.recordRequest(route: route, method: request.method.rawValue, status: status, nanoseconds: nanoseconds)
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
