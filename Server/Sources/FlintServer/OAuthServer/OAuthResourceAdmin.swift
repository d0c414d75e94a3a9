import FlintWire
import Foundation

/// The project's protected resources (RFC 8707), for the CLI on the database: the admin API's calls
/// (`v2/projects/{p}/oauthResources`). Resources are the project's: a tenant's caller acts on its project's.
extension AuthServer {
    /// Every protected resource of the caller's project.
    public func oauthResources(caller: Caller) async throws -> ListOAuthResourcesResponse {
        try await assembly.oauthResources.list(projectID: caller.project.realm.projectID)
    }

    /// The resource `resourceID`; `OAUTH_RESOURCE_NOT_FOUND` if the project has none.
    public func oauthResource(_ resourceID: String, caller: Caller) async throws -> OAuthResource {
        try await assembly.oauthResources.get(resourceID, projectID: caller.project.realm.projectID)
    }

    /// A new resource: its `resource` URI and `displayName` are required; `INVALID_OAUTH_RESOURCE` if refused.
    public func createOAuthResource(_ config: OAuthResource, caller: Caller) async throws -> OAuthResource {
        try await assembly.oauthResources.create(config, projectID: caller.project.realm.projectID)
    }

    /// Changes the fields `updateMask` names (without one, those `change` sets); the URI is fixed at creation.
    public func updateOAuthResource(_ resourceID: String, _ change: OAuthResource, updateMask: String?, caller: Caller) async throws
        -> OAuthResource {
        try await assembly.oauthResources.update(resourceID, projectID: caller.project.realm.projectID, with: change,
                                                 mask: updateMask.map(UpdateMask.init))
    }

    /// Deletes the resource: clients can no longer ask tokens for it.
    public func deleteOAuthResource(_ resourceID: String, caller: Caller) async throws {
        try await assembly.oauthResources.delete(resourceID, projectID: caller.project.realm.projectID)
    }
}
