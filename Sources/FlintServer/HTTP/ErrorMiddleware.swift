import Hummingbird
import Logging

/// Renders every failure in Firebase's error envelope; unexpected errors become a logged 500 that
/// reveals nothing internal.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as FlintError {
            if let cause = error.cause {
                context.logger.warning("\(error.message)", metadata: ["cause": "\(cause)", "path": "\(request.uri.path)"])
            }
            return try JSONBody.response(error.envelope, status: error.status)
        } catch let error as HTTPError where error.status == .notFound {
            return try JSONBody.response(FlintError.notFound.envelope, status: .notFound)
        } catch let error as HTTPError {
            let flintError = FlintError(
                sentence: error.body ?? error.status.reasonPhrase, status: error.status, reason: "badRequest")
            return try JSONBody.response(flintError.envelope, status: error.status)
        } catch {
            context.logger.error("Request failed: \(String(reflecting: error))", metadata: ["path": "\(request.uri.path)"])
            return try JSONBody.response(FlintError.internalError.envelope, status: .internalServerError)
        }
    }
}
