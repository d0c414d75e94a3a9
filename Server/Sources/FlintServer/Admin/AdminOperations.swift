import FlintWire
import Foundation

/// What the `flint` command line needs from a server it opened directly on its database: admin callers
/// for the account operations (so the CLI obeys the same rules as the Admin SDK), the v2 project
/// configuration and the tenants as the Admin APIs show them.
extension AuthServer {
    /// An admin caller of an existing project, or of one of its tenants, as an Admin SDK request naming it would
    /// resolve to. Throws `PROJECT_NOT_FOUND` (`TENANT_NOT_FOUND`) when there is none.
    public func adminCaller(projectID: String, tenantID: String? = nil) async throws -> Caller {
        let realm = Realm(projectID: projectID, tenantID: tenantID)
        guard let project = try await projects.project(realm.key) else {
            throw FlintError(tenantID == nil ? .projectNotFound : .tenantNotFound, status: .notFound)
        }
        return Caller(project: project, isAdmin: true)
    }

    /// Creates a tenant of the project, as `POST v2/projects/{p}/tenants` does.
    public func createTenant(_ config: TenantConfig, projectID: String) async throws -> TenantConfig {
        guard try await projects.project(projectID) != nil else { throw FlintError(.projectNotFound, status: .notFound) }
        return TenantService.config(of: try await tenants.create(config, in: projectID))
    }

    /// Every tenant of the project, in the order of their IDs.
    public func tenants(projectID: String) async throws -> [TenantConfig] {
        var all: [Project] = []
        while true {
            let page = try await projects.tenants(of: projectID, after: all.last?.realm.tenantID, limit: TenantService.maximumPageSize)
            all += page
            if page.count < TenantService.maximumPageSize { return all.map(TenantService.config(of:)) }
        }
    }

    /// Deletes a tenant with all its users; `TENANT_NOT_FOUND` when there is none.
    public func deleteTenant(_ tenantID: String, projectID: String) async throws {
        guard try await projects.deleteTenant(Realm(projectID: projectID, tenantID: tenantID)) else {
            throw FlintError(.tenantNotFound, status: .notFound)
        }
    }

    /// The project's v2 configuration (`GET /v2/projects/{p}/config`), or nil if the project does not exist.
    public func projectConfig(_ projectID: String) async throws -> ProjectConfig? {
        try await projects.project(projectID).map(ProjectConfigService.config(of:))
    }
}
