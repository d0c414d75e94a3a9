import HTTPTypes
import Hummingbird

/// Who is calling: the project the request acts on, and whether it carries admin credentials.
public struct Caller: Sendable {
    public let project: Project
    /// True for Admin SDK calls (in emulator mode: `Authorization: Bearer owner`).
    public let isAdmin: Bool

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
    let emulator: Bool
    let defaultProjectID: String

    func resolve(_ request: Request, pathProjectID: String?, access: Access) async throws -> Caller {
        let isAdmin = try adminCredentials(in: request)
        let key = request.uri.queryParameters.get("key") ?? request.headers[Self.apiKeyHeader]
        // Naming a project in the path is for admin callers only.
        if access == .admin || pathProjectID != nil, !isAdmin { throw FlintError.adminRequired }
        if !isAdmin, key?.isEmpty ?? true { throw FlintError.missingAPIKey }

        let projectID: String
        if let pathProjectID {
            projectID = pathProjectID
        } else if emulator || isAdmin {
            projectID = defaultProjectID
        } else {
            guard let key, let owner = try await projects.projectID(forAPIKey: key) else { throw FlintError.invalidAPIKey }
            projectID = owner
        }
        // The emulator serves any project id it is asked about, creating it on first use.
        let project = emulator ? try await projects.ensureProject(projectID) : try await projects.project(projectID)
        guard let project else { throw FlintError(.projectNotFound, status: .notFound) }
        return Caller(project: project, isAdmin: isAdmin)
    }

    /// Whether the request carries admin credentials. Emulator mode accepts `Bearer owner` (and Google
    /// OAuth tokens, `ya29.…`) as the official emulator does. Production admin credentials (service
    /// accounts) are not available yet, so any bearer token there is refused.
    private func adminCredentials(in request: Request) throws -> Bool {
        guard let authorization = request.headers[.authorization] else { return false }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw Self.unauthenticated }
        let token = parts[1]
        if emulator, token.lowercased() == "owner" || token.hasPrefix("ya29.") { return true }
        throw Self.unauthenticated
    }

    private static let apiKeyHeader = HTTPField.Name("x-goog-api-key")!
    private static let unauthenticated = FlintError(
        sentence: "Request had invalid authentication credentials.", status: .unauthorized, reason: "unauthorized")
}
