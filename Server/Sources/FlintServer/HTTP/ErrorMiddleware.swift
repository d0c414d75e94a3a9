import Hummingbird
import Logging

/// Renders every failure in Firebase's error envelope, and counts it by code (per project once the caller's
/// project is known); unexpected errors become a logged 500 that reveals nothing internal.
struct ErrorMiddleware: RouterMiddleware {
    let usage: UsageCounters

    func handle(_ request: Request, context: FlintRequestContext, next: (Request, FlintRequestContext) async throws -> Response)
        async throws -> Response {
        let answered: FlintError
        do {
            return try await next(request, context)
        } catch let error as FlintError {
            answered = error
        } catch SQLError.unavailable(let reason) {
            // The database is down or failing over: a 503, which clients retry.
            answered = FlintError.unavailable("The database", cause: SQLError.unavailable(reason))
        } catch let error as HTTPError where error.status == .notFound {
            answered = FlintError.notFound
        } catch let error as HTTPError {
            answered = FlintError(sentence: error.body ?? error.status.reasonPhrase, status: error.status, reason: "badRequest")
        } catch {
            context.logger.error("Request failed: \(String(reflecting: error))", metadata: ["path": "\(request.uri.path)"])
            answered = FlintError.internalError
        }
        if let cause = answered.cause {
            context.logger.warning("\(answered.message)", metadata: ["cause": "\(cause)", "path": "\(request.uri.path)"])
        }
        usage.errorAnswered(code: answered.code, route: context.endpointPath ?? "unmatched", projectID: context.attribution.projectID)
        return try JSONBody.response(answered.envelope, status: answered.status)
    }
}
