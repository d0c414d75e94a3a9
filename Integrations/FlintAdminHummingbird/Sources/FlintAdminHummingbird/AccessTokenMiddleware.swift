import FlintAdminCore
import Foundation
import Hummingbird

/// A request context that carries the OAuth access token ``AccessTokenMiddleware`` verified, so that handlers know who
/// calls: the token's subject (a user's uid, or for the client-credentials grant the client itself), its client and
/// its scopes.
///
/// ```swift
/// struct APIRequestContext: AccessTokenRequestContext {
///     var coreContext: CoreRequestContextStorage
///     var accessToken: VerifiedAccessToken?
///     init(source: ApplicationRequestContextSource) { coreContext = .init(source: source) }
/// }
/// ```
public protocol AccessTokenRequestContext: RequestContext {
    /// The request's verified access token: nil until ``AccessTokenMiddleware`` has verified it, and on routes the
    /// middleware does not guard.
    var accessToken: VerifiedAccessToken? { get set }
}

extension AccessTokenRequestContext {
    /// The verified access token, provided it was granted every scope of `scopes`: for a handler whose scopes depend
    /// on the request (a JSON-RPC method, a tool), where ``AccessTokenMiddleware``'s own `requiredScopes` cannot say.
    /// The middleware answers the error this throws as it answers its own: 403 with `error="insufficient_scope"` and
    /// the scopes, which is how a client learns to ask for more (step-up authorization).
    ///
    /// - Parameter scopes: the scopes the handler needs; empty for none.
    /// - Throws: `AccessTokenError.Code.insufficientScope` naming `scopes` and those missing; or
    ///   `AccessTokenError.Code.invalidAccessToken` when no token was verified (the route is not behind the
    ///   middleware, a mistake of the app's that Hummingbird answers with a 500).
    public func accessToken(requiring scopes: [String]) throws(AccessTokenError) -> VerifiedAccessToken {
        guard let accessToken else {
            throw AccessTokenError(.invalidAccessToken, "no access token was verified for this request: its route is not behind AccessTokenMiddleware")
        }
        let missing = scopes.filter { !accessToken.hasScope($0) }
        guard missing.isEmpty else {
            throw AccessTokenError(.insufficientScope, "the access token lacks the scope\(missing.count == 1 ? "" : "s") \(missing.joined(separator: " "))",
                                   requiredScopes: scopes, missingScopes: missing)
        }
        return accessToken
    }
}

/// Lets through only requests whose `Authorization: Bearer` token is an access token of Flint's OpenID provider for
/// this resource server, checked by `AdminAuth.verifyAccessToken(_:resource:requiredScopes:checkRevoked:)`,
/// and puts it in the context (``AccessTokenRequestContext/accessToken``) for the handlers.
///
/// Others are answered as RFC 6750 §3 and RFC 9728 §5.1 say, with a challenge pointing to the resource's metadata
/// (serve it with ``Hummingbird/RouterMethods/addProtectedResourceMetadata(_:)``):
/// - no bearer token: 401, `WWW-Authenticate: Bearer resource_metadata="<metadata URL>"`;
/// - a token refused (malformed, forged, expired, revoked, of another issuer or for another resource): 401, the same
///   challenge with `error="invalid_token"`;
/// - a token without every scope of `requiredScopes`, or one a handler found lacking with
///   ``AccessTokenRequestContext/accessToken(requiring:)``: 403, `error="insufficient_scope", scope="…"`.
///
/// When the token could not be checked at all, which is the server's failure and not the client's, the error is
/// logged and the answer is 503 (Flint's keys or introspection endpoint unreachable) or 500 (a misconfiguration, such
/// as `checkRevoked` without an introspection client).
///
/// ```swift
/// let metadata = ProtectedResourceMetadata(resource: "https://api.example.com/mcp", issuedBy: auth,
///                                          scopesSupported: ["tools:read", "tools:write"])
/// let router = Router(context: APIRequestContext.self)
/// try router.addProtectedResourceMetadata(metadata)
/// router.group("mcp")
///     .add(middleware: AccessTokenMiddleware(auth: auth, metadata: metadata, requiredScopes: ["tools:read"]))
///     .post { _, context in "hello, \(context.accessToken!.subject)" }
/// ```
public struct AccessTokenMiddleware<Context: AccessTokenRequestContext>: RouterMiddleware {
    /// The client that verifies tokens: `AdminAuth.introspecting(clientID:clientSecret:cacheLifetime:)`'s
    /// result for `checkRevoked`.
    public let auth: AdminAuth
    /// The resource server's metadata: its `ProtectedResourceMetadata.resource` is what tokens must
    /// be for, its `ProtectedResourceMetadata.wellKnownURL` what challenges point to.
    public let metadata: ProtectedResourceMetadata
    /// Scopes every request must have been granted.
    public let requiredScopes: [String]
    /// Whether Flint's introspection endpoint is asked if each token is still active.
    public let checkRevoked: Bool

    /// - Parameters:
    ///   - auth: the client that verifies tokens; for `checkRevoked`, one made by
    ///     `AdminAuth.introspecting(clientID:clientSecret:cacheLifetime:)`.
    ///   - metadata: the resource server's metadata, whose `resource` tokens must be for.
    ///   - requiredScopes: scopes every request through the middleware needs; handlers may ask for more with
    ///     ``AccessTokenRequestContext/accessToken(requiring:)``.
    ///   - checkRevoked: whether to ask Flint whether each token was revoked, or its user disabled or deleted.
    public init(auth: AdminAuth, metadata: ProtectedResourceMetadata, requiredScopes: [String] = [],
                checkRevoked: Bool = false) {
        self.auth = auth
        self.metadata = metadata
        self.requiredScopes = requiredScopes
        self.checkRevoked = checkRevoked
    }

    /// Verifies the request's bearer token and calls `next` with it in the context, or answers with the challenge.
    ///
    /// - Parameters:
    ///   - request: the request, whose `Authorization` header carries the token.
    ///   - context: its context, which `next` gets with ``AccessTokenRequestContext/accessToken`` set.
    ///   - next: the rest of the chain; an `AccessTokenError` it throws is answered as the
    ///     middleware's own refusals are.
    public func handle(_ request: Request, context: Context,
                       next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = request.headers[.authorization].flatMap(Self.bearerToken) else {
            throw refusal(nil)
        }
        var context = context
        do {
            context.accessToken = try await auth.verifyAccessToken(token, resource: metadata.resource,
                                                                   requiredScopes: requiredScopes, checkRevoked: checkRevoked)
        } catch let error as AccessTokenError {
            context.logger.debug("refused an access token: \(error)")
            throw refusal(error)
        } catch let error as AdminError {
            context.logger.error("could not verify an access token: \(error)")
            let unreachable = error.code == .networkError || error.code == .certificateFetchFailed
            throw HTTPError(unreachable ? .serviceUnavailable : .internalServerError)
        }
        do {
            return try await next(request, context)
        } catch let error as AccessTokenError {
            context.logger.debug("a handler refused the access token: \(error)")
            throw refusal(error)
        }
    }

    /// The token of an `Authorization` value of the `Bearer` scheme (RFC 6750 §2.1; the scheme's name in any case).
    static func bearerToken(_ authorization: String) -> String? {
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// 401 (403 for a missing scope) with the challenge; the body says what is wrong, not the details, which are
    /// logged.
    func refusal(_ error: AccessTokenError?) -> HTTPError {
        let message = switch error?.code {
        case nil: "An access token is needed: Authorization: Bearer <token>"
        case .insufficientScope?: "The access token lacks a scope this call needs"
        default: "The access token is not valid"
        }
        return HTTPError(error?.httpStatus == 403 ? .forbidden : .unauthorized,
                         headers: [.wwwAuthenticate: metadata.challenge(for: error)], message: message)
    }
}
