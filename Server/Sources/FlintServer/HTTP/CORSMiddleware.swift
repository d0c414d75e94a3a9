import HTTPTypes
import Hummingbird

/// CORS for browser clients, as the Firebase endpoints answer it: the request's origin and headers are
/// reflected (API keys are public and tokens travel in bodies, so no cookie-based authority is granted).
/// Every `OPTIONS` request is a preflight, even without `Access-Control-Request-Method` (as the emulator's
/// `cors` middleware treats them); no route answers `OPTIONS` itself.
struct CORSMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let origin = request.headers[.origin]
        if request.method == .options {
            var headers: HTTPFields = [
                .accessControlAllowOrigin: origin ?? "*",
                .accessControlAllowMethods: "GET, POST, PUT, PATCH, DELETE, OPTIONS",
                .accessControlMaxAge: "3600",
                .vary: "Origin",
            ]
            if let requested = request.headers[.accessControlRequestHeaders] {
                headers[.accessControlAllowHeaders] = requested
            }
            if request.headers[.accessControlRequestPrivateNetwork] == "true" {
                headers[.accessControlAllowPrivateNetwork] = "true"
            }
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        if let origin {
            response.headers[.accessControlAllowOrigin] = origin
            response.headers[.vary] = "Origin"
        }
        return response
    }
}

extension HTTPField.Name {
    static let accessControlRequestPrivateNetwork = Self("Access-Control-Request-Private-Network")!
    static let accessControlAllowPrivateNetwork = Self("Access-Control-Allow-Private-Network")!
}
