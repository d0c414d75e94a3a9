import Foundation
import HTTPTypes
import Hummingbird

/// Who is calling: the project the request acts on, and whether it carries admin credentials.
public struct Caller: Sendable {
    public let project: Project
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

    /// - Parameter projectID: the project the request names other than in its path (the legacy v3 admin calls'
    ///   `targetProjectId`); like a path's, for admin callers only.
    func resolve(_ request: Request, context: FlintRequestContext, access: Access, projectID bodyProjectID: String? = nil)
        async throws -> Caller {
        let requestedProjectID = bodyProjectID ?? context.parameters.get("projectId")
        let adminScope = try await adminCredentials(in: request)
        // A service account administers its own project only.
        if case .project(let own)? = adminScope, let requestedProjectID, requestedProjectID != own {
            throw FlintError(sentence: "The caller does not have permission", status: .forbidden, reason: "forbidden")
        }
        let isAdmin = adminScope != nil
        let key = request.uri.queryParameters.get("key") ?? request.headers[Self.apiKeyHeader]
        // Naming a project (in the path or the body) is for admin callers only.
        if access == .admin || requestedProjectID != nil, !isAdmin { throw FlintError.adminRequired }
        if !isAdmin, key?.isEmpty ?? true { throw FlintError.missingAPIKey }

        let projectID: String
        if let requestedProjectID {
            projectID = requestedProjectID
        } else if case .project(let own)? = adminScope {
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
        return Caller(project: project, isAdmin: isAdmin, clientIP: client.ipAddress, locale: client.locale, apiKey: key)
    }

    /// The project an API key names, for pages opened with `?apiKey=`: in emulator mode any key means
    /// the default project.
    func project(forAPIKey key: String) async throws -> Project? {
        if policy.acceptsAnyAPIKey { return try await projects.ensureProject(defaultProjectID) }
        guard let projectID = try await projects.projectID(forAPIKey: key) else { return nil }
        return try await projects.project(projectID)
    }

    /// What admin credentials allow.
    enum AdminScope: Equatable {
        /// Emulator mode's `Bearer owner`: every project.
        case anyProject
        /// A service account's credential: its own project.
        case project(String)
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
        if let project = try await serviceAccounts.administeredProject(bearer: token) { return .project(project) }
        throw Self.unauthenticated
    }

    private static let apiKeyHeader = HTTPField.Name("x-goog-api-key")!
    private static let unauthenticated = FlintError(
        sentence: "Request had invalid authentication credentials.", status: .unauthorized, reason: "unauthorized")
}
