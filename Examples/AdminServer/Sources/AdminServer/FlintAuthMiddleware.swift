import FlintAdmin
import Hummingbird

/// A request's context: Hummingbird's, plus the user whose ID token the request carried.
struct AppRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// Set by `FlintAuthMiddleware` once the token is verified.
    var user: DecodedIDToken?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}

/// Lets through only requests with `Authorization: Bearer <ID token>` whose token FlintAdmin verifies, and whose user
/// is neither disabled nor signed out everywhere since (`checkRevoked`). Others get 401 with firebase-admin's code.
struct FlintAuthMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let auth: AdminAuth

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            throw HTTPError(.unauthorized, message: "An ID token is needed: Authorization: Bearer <token>")
        }
        var context = context
        do {
            context.user = try await auth.verifyIDToken(String(header.dropFirst("Bearer ".count)), checkRevoked: true)
        } catch let error as AdminError where error.code != .certificateFetchFailed && error.code != .networkError {
            throw HTTPError(.unauthorized, message: error.code.rawValue)
        }
        return try await next(request, context)
    }
}

/// Lets through only users whose token carries the custom claim `role: "admin"` (set with `setCustomUserClaims`).
struct AdminOnlyMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.user?["role"] == "admin" else { throw HTTPError(.forbidden, message: "Admins only") }
        return try await next(request, context)
    }
}
