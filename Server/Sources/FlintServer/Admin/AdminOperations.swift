import FlintWire
import Foundation

/// What the `flint` command line needs from a server it opened directly on its database: admin callers
/// for the account operations (so the CLI obeys the same rules as the Admin SDK) and the v2 project
/// configuration as the Admin APIs show it.
extension AuthServer {
    /// An admin caller of an existing project, as an Admin SDK request naming it would resolve to.
    /// Throws `PROJECT_NOT_FOUND` when the project does not exist.
    public func adminCaller(projectID: String) async throws -> Caller {
        guard let project = try await projects.project(projectID) else {
            throw FlintError(.projectNotFound, status: .notFound)
        }
        return Caller(project: project, isAdmin: true)
    }

    /// The project's v2 configuration (`GET /v2/projects/{p}/config`), or nil if the project does not exist.
    public func projectConfig(_ projectID: String) async throws -> ProjectConfig? {
        try await projects.project(projectID).map(ProjectConfigService.config(of:))
    }
}
