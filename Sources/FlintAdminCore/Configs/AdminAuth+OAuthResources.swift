import FlintWire
import Foundation

extension AdminError.Code {
    /// No protected resource of the project has this ID: Flint's `OAUTH_RESOURCE_NOT_FOUND`.
    public static let oauthResourceNotFound = AdminError.Code(rawValue: "auth/oauth-resource-not-found")
    /// Resource settings the provider cannot serve (a URI that is not an absolute https one, or is registered already, or
    /// changes; a missing display name; a scope of OpenID's own): Flint's `INVALID_OAUTH_RESOURCE`.
    public static let invalidOAuthResource = AdminError.Code(rawValue: "auth/invalid-oauth-resource")
}

/// The protected resources of Flint's OpenID provider (RFC 8707 resource indicators): the APIs, such as MCP servers,
/// that clients ask access tokens for by their URI (`v2/projects/{p}/oauthResources`, a Flint extension in the v2 style).
/// They are the project's: a tenant's `AdminAuth` acts on its project's, which its provider serves too.
extension AdminAuth {
    /// A new resource: `resource` (its URI) and `displayName` are required. The answer carries its `resourceId`.
    public func createOAuthResource(_ resource: OAuthResource) async throws -> OAuthResource {
        try await oauthCall { try await connection.call("POST", oauthResourcesPath, body: resource, as: OAuthResource.self) }
    }

    /// Every protected resource of the project (a project has at most 100).
    public func oauthResources() async throws -> [OAuthResource] {
        try await oauthCall {
            try await connection.call("GET", oauthResourcesPath, as: ListOAuthResourcesResponse.self)
        }.oauthResources
    }

    /// The resource `resourceID`; `oauthResourceNotFound` if the project has none.
    public func oauthResource(_ resourceID: String) async throws -> OAuthResource {
        let path = try oauthResourcePath(resourceID)
        return try await oauthCall { try await connection.call("GET", path, as: OAuthResource.self) }
    }

    /// Changes the fields `change` sets (and, with `updateMask`, exactly those it names: a named field `change` leaves
    /// nil is cleared). A resource's URI is fixed at creation.
    public func updateOAuthResource(_ resourceID: String, _ change: OAuthResource, updateMask: [String]? = nil) async throws
        -> OAuthResource {
        let path = try oauthResourcePath(resourceID) + Self.query(updateMask: updateMask ?? change.setFields)
        return try await oauthCall { try await connection.call("PATCH", path, body: change, as: OAuthResource.self) }
    }

    /// Deletes the resource: clients can no longer ask tokens for it.
    public func deleteOAuthResource(_ resourceID: String) async throws {
        let path = try oauthResourcePath(resourceID)
        _ = try await oauthCall { try await connection.call("DELETE", path, as: JSONValue.self) }
    }

    // MARK: Paths and errors

    /// `/v2/projects/{p}/oauthResources`, whatever the tenant.
    private var oauthResourcesPath: String { "/v2/projects/" + FormURLEncoding.escape(projectID) + "/oauthResources" }

    /// `/v2/projects/{p}/oauthResources/{id}`, for an ID that is not empty.
    private func oauthResourcePath(_ resourceID: String) throws -> String {
        guard !resourceID.isEmpty else { throw AdminError(.invalidArgument, "an OAuth resource ID is not empty") }
        return oauthResourcesPath + "/" + FormURLEncoding.escape(resourceID)
    }
}
