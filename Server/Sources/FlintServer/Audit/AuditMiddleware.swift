import FlintWire
import Hummingbird

/// Gives each request its `AuditScope` (when, from where, through which endpoint; the caller's credentials then say
/// who), and records the refusals that change nothing, so no transaction records them: a failed sign-in, a refused
/// refresh, a spent budget, a blocking function's veto. Every change a request makes is recorded by the store, in the
/// change's own transaction (`AuditEntry`).
struct AuditMiddleware: RouterMiddleware {
    typealias Context = FlintRequestContext
    let audit: AuditStore
    let clock: any FlintClock

    func handle(_ request: Request, context: FlintRequestContext, next: (Request, FlintRequestContext) async throws -> Response)
        async throws -> Response {
        let client = RequestClient.current
        let scope = AuditScope(time: clock.milliseconds, principal: .user, ipAddress: client.ipAddress,
                               userAgent: client.userAgent, operation: context.endpointPath.map(Self.operation))
        do {
            return try await AuditScope.$current.withValue(scope) { try await next(request, context) }
        } catch let error as FlintError {
            if let realm = context.attribution.projectID, let entry = Self.refusal(error, scope: scope, realm: realm) {
                // The answer stays the refusal: an event that could not be written is logged, never a 500.
                do { try await audit.append(entry) } catch {
                    context.logger.error("audit event not written", metadata: ["type": "\(entry.type)", "error": "\(error)"])
                }
            }
            throw error
        }
    }

    /// The event of a refused request, if it is one the trail records.
    static func refusal(_ error: FlintError, scope: AuditScope, realm: String) -> AuditEntry? {
        let reason = error.code
        if let budget = scope.refusedBudget {
            return AuditEntry(.budgetRefused, realm: realm, localID: scope.subject, detail: ["budget": budget], scope: scope)
        }
        if error.is(.blockingFunctionErrorResponse) {
            return AuditEntry(.blockingFunctionRefused, realm: realm, localID: scope.subject, detail: ["reason": reason], scope: scope)
        }
        guard let operation = scope.operation else { return nil }
        if operation == "token" {
            return AuditEntry(.refreshRefused, realm: realm, localID: scope.subject, detail: ["reason": reason], scope: scope)
        }
        guard error.isClientError, let method = signInMethods[operation] else { return nil }
        return AuditEntry(.signInFailed, realm: realm, localID: scope.subject, detail: ["method": method, "reason": reason],
                          scope: scope)
    }

    /// The sign-in endpoints (current and legacy names) and the method each signs in with.
    static let signInMethods: [String: String] = [
        "accounts:signInWithPassword": "password", "verifyPassword": "password",
        "accounts:signInWithIdp": "federated", "verifyAssertion": "federated",
        "accounts:signInWithPhoneNumber": "phone", "verifyPhoneNumber": "phone",
        "accounts:signInWithEmailLink": "emailLink", "emailLinkSignin": "emailLink",
        "accounts:signInWithCustomToken": "custom", "verifyCustomToken": "custom",
        "accounts/mfaSignIn:finalize": "secondFactor", "accounts/passkeySignIn:finalize": "passkey",
    ]

    /// A route's name in the trail: its path after the API's version (`accounts:signInWithPassword`,
    /// `projects/:projectId/accounts:update`), or the path itself for the others.
    static func operation(_ route: String) -> String {
        for version in ["/v1/", "/v2/", "/v3/relyingparty/"] {
            if let range = route.range(of: version, options: .backwards) { return String(route[range.upperBound...]) }
        }
        return route
    }
}
