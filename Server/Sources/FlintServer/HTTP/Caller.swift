import FlintWire
import Foundation
import HTTPTypes
import Hummingbird

/// Who is calling: the project (or tenant) the request acts on, and whether it carries admin credentials.
public struct Caller: Sendable {
    public internal(set) var project: Project
    /// True for Admin SDK calls (in emulator mode: `Authorization: Bearer owner`).
    public let isAdmin: Bool
    /// The client's IP address: the peer, or behind trusted proxies the right-most untrusted `X-Forwarded-For` hop.
    public var clientIP: String? = nil
    /// The client as per-client limits count it (an IPv6 client by its /64).
    public var clientLimitKey: String? { clientIP.map(ClientAddress.limitKey) }
    /// The client's language (`X-Firebase-Locale`, the SDKs' `languageCode`).
    public var locale: String? = nil
    /// The API key the request carried, if any (emailed links name it, as Firebase's do).
    public var apiKey: String? = nil

    /// The store key of the realm the request acts on: the project's ID, or its tenant's key (see `Realm`). Records are
    /// read and written under it; tokens name `project.realm.projectID` as audience and the tenant in `firebase.tenant`.
    public var projectID: String { project.id }
}

/// How an endpoint may be called.
enum Access: Sendable {
    /// An API key of the project (any non-empty key in emulator mode) or admin credentials.
    case apiKey
    /// Admin credentials only; the project comes from the path.
    case admin
}

/// Resolves the caller of a request from its API key, bearer token and path.
struct CallerResolver: Sendable {
    let projects: ProjectDirectory
    let policy: ModePolicy
    let defaultProjectID: String
    let serviceAccounts: ServiceAccounts

    init(core: ServerCore, serviceAccounts: ServiceAccounts) {
        projects = core.projects
        policy = core.policy
        defaultProjectID = core.configuration.projectID
        self.serviceAccounts = serviceAccounts
    }

    /// - Parameter projectID: the project the request names other than in its path (the legacy v3 admin calls'
    ///   `targetProjectId`); like a path's, for admin callers only.
    /// - Parameter inPathTenant: whether a tenant the path names (`…/tenants/{t}/…`) scopes the call; the tenant
    ///   management calls name the tenant they manage there, and act on the project.
    func resolve(_ request: Request, context: FlintRequestContext, access: Access, projectID bodyProjectID: String? = nil,
                 inPathTenant: Bool = true) async throws -> Caller {
        let requestedProjectID = bodyProjectID ?? context.parameters.get("projectId")
        // A project ID never holds `/`: one that did could name a tenant's store key (see `Realm`).
        if let requestedProjectID, requestedProjectID.contains("/") { throw FlintError(.projectNotFound, status: .notFound) }
        let adminScope = try await adminCredentials(in: request)
        // A service account administers its own project only.
        if case .project(let own, _)? = adminScope, let requestedProjectID, requestedProjectID != own {
            throw FlintError(sentence: "The caller does not have permission", status: .forbidden, reason: "forbidden")
        }
        let isAdmin = adminScope != nil
        if let adminScope { AuditScope.current?.principal = adminScope.principal }
        let key = request.uri.queryParameters.get("key") ?? request.headers[Self.apiKeyHeader]
        // Naming a project (in the path or the body) is for admin callers only.
        if access == .admin || requestedProjectID != nil, !isAdmin { throw FlintError.adminRequired }
        if !isAdmin, key?.isEmpty ?? true { throw FlintError.missingAPIKey }

        let projectID: String
        if let requestedProjectID {
            projectID = requestedProjectID
        } else if case .project(let own, _)? = adminScope {
            projectID = own
        } else if policy.acceptsAnyAPIKey || isAdmin {
            projectID = defaultProjectID
        } else {
            guard let key, let owner = try await projects.projectID(forAPIKey: key) else { throw FlintError.invalidAPIKey }
            projectID = owner
        }
        let project = policy.createsProjectsOnDemand ? try await projects.ensureProject(projectID) : try await projects.project(projectID)
        guard let project else { throw FlintError(.projectNotFound, status: .notFound) }
        context.attribution.projectID = project.id
        let client = RequestClient.current
        let caller = Caller(project: project, isAdmin: isAdmin, clientIP: client.ipAddress, locale: client.locale, apiKey: key)
        return inPathTenant ? try await scoped(caller, toTenant: context.parameters.get("tenantId"), context: context) : caller
    }

    /// `scoped(_:toTenant:)`, and the request's errors counted under the tenant, as its sign-ins are.
    func scoped(_ caller: Caller, toTenant tenantID: String?, context: FlintRequestContext) async throws -> Caller {
        let scoped = try await scoped(caller, toTenant: tenantID)
        context.attribution.projectID = scoped.projectID
        return scoped
    }

    /// The caller acting in the tenant the request names, if any. As Firebase decides it: the path's tenant
    /// (`projects/{p}/tenants/{t}/…`) or the body's `tenantId`, which must agree, else the tenant of the ID token the body
    /// carries, which must agree with either (`TENANT_ID_MISMATCH`). The token itself is verified later, against the
    /// realm chosen here, so a forged tenant claim gains nothing.
    func scoped(_ caller: Caller, body: Any, context: FlintRequestContext) async throws -> Caller {
        let pathTenantID = context.parameters.get("tenantId")
        let bodyTenantID = ((body as? any TenantScopedRequest)?.tenantId).flatMap { $0.isEmpty ? nil : $0 }
        if let pathTenantID, let bodyTenantID, pathTenantID != bodyTenantID { throw FlintError(.tenantIDMismatch) }
        var tenantID = pathTenantID ?? bodyTenantID
        if let idToken = (body as? any IDTokenCarryingRequest)?.idToken, let tokenTenantID = TokenService.unverifiedTenant(of: idToken) {
            if let tenantID, tenantID != tokenTenantID { throw FlintError(.tenantIDMismatch) }
            tenantID = tokenTenantID
        }
        guard tenantID != pathTenantID else { return caller }
        return try await scoped(caller, toTenant: tenantID, context: context)
    }

    /// The caller acting in `tenantID` of its project (nil: the project itself). Emulator mode makes a tenant on first
    /// use, as the official emulator does; production knows only tenants created through the admin API. A tenant with
    /// `disableAuth` refuses every call (`PROJECT_DISABLED`).
    func scoped(_ caller: Caller, toTenant tenantID: String?) async throws -> Caller {
        guard let tenantID, caller.project.realm.tenantID != tenantID else { return caller }
        guard caller.project.realm.tenantID == nil else { throw FlintError(.tenantIDMismatch) }
        guard Realm.isValidTenantID(tenantID) else { throw FlintError(.tenantNotFound) }
        let key = Realm(projectID: caller.project.id, tenantID: tenantID).key
        let tenant = policy.createsProjectsOnDemand ? try await projects.ensureProject(key) : try await projects.project(key)
        guard let tenant else { throw FlintError(.tenantNotFound) }
        if tenant.settings.tenant?.disableAuth == true { throw FlintError(.projectDisabled) }
        var scoped = caller
        scoped.project = tenant
        return scoped
    }

    /// The project an API key names, for pages opened with `?apiKey=`: in emulator mode any key means
    /// the default project.
    func project(forAPIKey key: String) async throws -> Project? {
        if policy.acceptsAnyAPIKey { return try await projects.ensureProject(defaultProjectID) }
        guard let projectID = try await projects.projectID(forAPIKey: key) else { return nil }
        return try await projects.project(projectID)
    }

    /// What admin credentials allow, and whose they are.
    enum AdminScope: Equatable {
        /// Emulator mode's `Bearer owner`: every project.
        case anyProject
        /// A service account's credential (its key ID): its own project.
        case project(String, keyID: String)

        var principal: AuditPrincipal {
            switch self {
            case .anyProject: .emulatorOwner
            case .project(_, let keyID): .serviceAccount(keyID: keyID)
            }
        }
    }

    /// The admin credentials the request carries, if any. Emulator mode accepts `Bearer owner` (and Google
    /// OAuth tokens, `ya29.…`) as the official emulator does; production accepts a service account's
    /// self-signed JWT or an access token from `/token`. Any other bearer token is refused; another scheme
    /// (`Basic …`) is refused too, or ignored where the policy says so (`ignoresNonBearerAuthorization`).
    private func adminCredentials(in request: Request) async throws -> AdminScope? {
        guard let authorization = request.headers[.authorization] else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            if policy.ignoresNonBearerAuthorization { return nil }
            throw Self.unauthenticated
        }
        let token = String(parts[1])
        if policy.ownerTokenIsAdmin, token.lowercased() == "owner" || token.hasPrefix("ya29.") { return .anyProject }
        if let (project, keyID) = try await serviceAccounts.administeredProject(bearer: token) { return .project(project, keyID: keyID) }
        throw Self.unauthenticated
    }

    private static let apiKeyHeader = HTTPField.Name("x-goog-api-key")!
    private static let unauthenticated = FlintError(
        sentence: "Request had invalid authentication credentials.", status: .unauthorized, reason: "unauthorized")
}
