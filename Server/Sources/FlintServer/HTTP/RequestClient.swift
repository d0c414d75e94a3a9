import HTTPTypes
import Hummingbird

/// Who is on the other end of the request being served: the client's address (through the trusted proxies), its user
/// agent and its language. Worked out once per request by `RequestClientMiddleware`; the caller (`Caller`) and the
/// events of blocking functions read it.
struct RequestClient: Sendable {
    var ipAddress: String?
    var userAgent: String?
    /// `X-Firebase-Locale`, the SDKs' `languageCode`.
    var locale: String?

    @TaskLocal static var current = RequestClient()
}

/// Binds `RequestClient.current` for each request.
struct RequestClientMiddleware: RouterMiddleware {
    typealias Context = FlintRequestContext
    let trustedProxies: TrustedProxies

    func handle(_ request: Request, context: FlintRequestContext, next: (Request, FlintRequestContext) async throws -> Response)
        async throws -> Response {
        let client = RequestClient(
            ipAddress: trustedProxies.client(peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[.xForwardedFor]),
            userAgent: request.headers[.userAgent], locale: request.headers[.xFirebaseLocale])
        return try await RequestClient.$current.withValue(client) { try await next(request, context) }
    }
}

extension HTTPField.Name {
    static let xForwardedFor = Self("x-forwarded-for")!
    static let xFirebaseLocale = Self("x-firebase-locale")!
}
