import Hummingbird

/// Counts every request and its latency in `ServerMetrics`, by the route it matched. Outermost, so it sees the
/// status the client gets (the error middleware inside it has turned failures into Firebase's answers).
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let status: Int
        defer {
            let elapsed = ContinuousClock.now - start
            metrics.recordRequest(
                route: context.endpointPath ?? "unmatched", method: request.method.rawValue, status: status,
                nanoseconds: elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        }
        do {
            let response = try await next(request, context)
            status = response.status.code
            return response
        } catch let error as any HTTPResponseError {
            status = error.status.code
            throw error
        } catch {
            status = 500
            throw error
        }
    }
}
