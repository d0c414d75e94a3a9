import FlintWire
import Foundation

/// A protected resource as the project keeps it (`ProjectSettings.oauthResources`): few per project, read on every
/// authorization that names one, so they live with the settings every node caches.
public struct OAuthResourceSettings: Codable, Sendable, Equatable {
    public var resourceID: String
    /// The absolute URI clients name (RFC 8707 §2), and the audience of the tokens asked for it.
    public var resource: String
    public var displayName: String
    public var scopes: [String]
    /// Empty: every client of the project.
    public var allowedClientIDs: [String]
    public var createdAt: Int64

    /// Whether `clientID` may ask tokens for this resource.
    func admits(_ clientID: String) -> Bool { allowedClientIDs.isEmpty || allowedClientIDs.contains(clientID) }
}

/// The project's protected resources (RFC 8707 resource indicators): the admin API's collection
/// (`v2/projects/{p}/oauthResources`), and the rule the authorization and token endpoints apply to a request's
/// `resource` parameters. Tenants' providers serve their project's resources.
struct OAuthResourceRegistry: Sendable {
    let projects: ProjectDirectory
    let random: any RandomSource
    let clock: any FlintClock

    static let maximumPerProject = 100
    static let notFound = FlintError(.oauthResourceNotFound, status: .notFound)

    // MARK: The admin API

    func create(_ config: OAuthResource, projectID: String) async throws -> OAuthResource {
        guard let uri = config.resource else { throw FlintError(.invalidOAuthResource, "resource is required.") }
        try Self.checkResourceURI(uri, error: .invalidOAuthResource)
        var created = OAuthResourceSettings(resourceID: random.string(length: 20, alphabet: Self.idAlphabet), resource: uri,
                                            displayName: "", scopes: [], allowedClientIDs: [], createdAt: clock.seconds)
        try Self.apply(config, to: &created, mask: nil)
        let settings = try await projects.updateSettings(projectID) { settings in
            guard !settings.oauthResources.contains(where: { $0.resource == uri }) else {
                throw FlintError(.invalidOAuthResource, "\(uri) is registered already.")
            }
            guard settings.oauthResources.count < Self.maximumPerProject else {
                throw FlintError(.invalidOAuthResource, "A project has at most \(Self.maximumPerProject) resources.")
            }
            settings.oauthResources.append(created)
        }
        return Self.shown(created, projectID: settings.realm.projectID)
    }

    func list(projectID: String) async throws -> ListOAuthResourcesResponse {
        let resources = try await project(projectID).settings.oauthResources
        return ListOAuthResourcesResponse(oauthResources: resources.map { Self.shown($0, projectID: projectID) })
    }

    func get(_ resourceID: String, projectID: String) async throws -> OAuthResource {
        guard let found = try await project(projectID).settings.oauthResources.first(where: { $0.resourceID == resourceID }) else {
            throw Self.notFound
        }
        return Self.shown(found, projectID: projectID)
    }

    /// Applies the fields `mask` names (all the body has, without one). The URI is fixed at creation.
    func update(_ resourceID: String, projectID: String, with change: OAuthResource, mask: UpdateMask?) async throws -> OAuthResource {
        var updated: OAuthResourceSettings?
        _ = try await projects.updateSettings(projectID) { settings in
            guard let index = settings.oauthResources.firstIndex(where: { $0.resourceID == resourceID }) else { throw Self.notFound }
            var resource = settings.oauthResources[index]
            if let uri = change.resource, mask.covers("resource", present: true), uri != resource.resource {
                throw FlintError(.invalidOAuthResource, "A resource's URI cannot change; register a new resource.")
            }
            try Self.apply(change, to: &resource, mask: mask)
            settings.oauthResources[index] = resource
            updated = resource
        }
        guard let updated else { throw Self.notFound }
        return Self.shown(updated, projectID: projectID)
    }

    func delete(_ resourceID: String, projectID: String) async throws {
        _ = try await projects.updateSettings(projectID) { settings in
            guard settings.oauthResources.contains(where: { $0.resourceID == resourceID }) else { throw Self.notFound }
            settings.oauthResources.removeAll { $0.resourceID == resourceID }
        }
    }

    private func project(_ projectID: String) async throws -> Project {
        guard let project = try await projects.project(projectID) else { throw FlintError(.projectNotFound, status: .notFound) }
        return project
    }

    private static func apply(_ change: OAuthResource, to resource: inout OAuthResourceSettings, mask: UpdateMask?) throws {
        if mask.covers("displayName", present: change.displayName != nil) {
            let name = change.displayName ?? ""
            guard (1...200).contains(name.count) else {
                throw FlintError(.invalidOAuthResource, "displayName must have 1 to 200 characters.")
            }
            resource.displayName = name
        } else if resource.displayName.isEmpty {
            throw FlintError(.invalidOAuthResource, "displayName must have 1 to 200 characters.")
        }
        if mask.covers("scopes", present: change.scopes != nil) {
            let scopes = change.scopes ?? []
            guard scopes.count <= 100, scopes.allSatisfy({ Scopes.isScopeToken($0) && !OAuthClientRegistry.defaultScopes.contains($0) })
            else {
                throw FlintError(.invalidOAuthResource, "scopes must be up to 100 scope tokens, none of OpenID's own.")
            }
            resource.scopes = Array(NSOrderedSet(array: scopes)) as? [String] ?? scopes
        }
        if mask.covers("allowedClientIds", present: change.allowedClientIds != nil) {
            let clients = change.allowedClientIds ?? []
            guard clients.count <= 100, clients.allSatisfy({ (1...ClientMetadataDocuments.maximumURLLength).contains($0.utf8.count) }) else {
                throw FlintError(.invalidOAuthResource, "allowedClientIds must name up to 100 clients.")
            }
            resource.allowedClientIDs = clients
        }
    }

    static func shown(_ resource: OAuthResourceSettings, projectID: String) -> OAuthResource {
        OAuthResource(
            name: "projects/\(projectID)/oauthResources/\(resource.resourceID)", resourceId: resource.resourceID,
            resource: resource.resource, displayName: resource.displayName, scopes: resource.scopes,
            allowedClientIds: resource.allowedClientIDs,
            createTime: Date(timeIntervalSince1970: TimeInterval(resource.createdAt)).formatted(.iso8601))
    }

    // MARK: Requests naming resources

    /// RFC 8707 §2: an absolute URI without a fragment; Flint serves `https`, and `http` on a loopback host.
    static func checkResourceURI(_ uri: String, error code: ServerErrorCode) throws {
        guard uri.utf8.count <= 2048, let components = URLComponents(string: uri), let host = components.host, !host.isEmpty,
              components.fragment == nil, components.user == nil, components.password == nil,
              !uri.contains(where: { $0.isWhitespace }),
              components.scheme == "https" || (components.scheme == "http" && RedirectURI.loopbackHosts.contains(host))
        else {
            throw FlintError(code, "\(uri) must be an absolute https URI without a fragment (http only on loopback).")
        }
    }

    /// The resources `resources` name, each registered in `settings` and open to `clientID`; else `invalid_target`.
    static func requested(_ resources: [String], by clientID: String, in settings: ProjectSettings) throws(OAuthError)
        -> [OAuthResourceSettings] {
        var found: [OAuthResourceSettings] = []
        for uri in resources where !found.contains(where: { $0.resource == uri }) {
            guard (try? checkResourceURI(uri, error: .invalidOAuthResource)) != nil else {
                throw OAuthError(.invalidTarget, "resource must be an absolute URI without a fragment.")
            }
            guard let resource = settings.oauthResources.first(where: { $0.resource == uri }), resource.admits(clientID) else {
                throw OAuthError(.invalidTarget, "\(uri) is not a resource this client may ask for.")
            }
            found.append(resource)
        }
        return found
    }

    private static let idAlphabet: StaticString = "abcdefghijklmnopqrstuvwxyz0123456789"
}
