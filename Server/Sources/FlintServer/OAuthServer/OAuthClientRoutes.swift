import FlintWire
import Foundation
import Hummingbird

/// The admin API of the provider's clients, `v2/projects/{p}[/tenants/{t}]/oauthClients` (create, list, get, patch,
/// delete, rotate the secret), in the v2 style of the other admin collections.
struct OAuthClientRoutes: Sendable {
    let registry: OAuthClientRegistry

    var endpoints: [Endpoint] {
        let registry = registry
        let collection = Endpoint.projectPaths(version: "v2", "oauthClients")
        let item = Endpoint.projectPaths(version: "v2", "oauthClients/:clientId")
        let rotation = Endpoint.identityToolkitPaths(version: "v2", "projects/:projectId/oauthClients/{clientId}:rotateSecret")
            + Endpoint.identityToolkitPaths(version: "v2", "projects/:projectId/tenants/:tenantId/oauthClients/{clientId}:rotateSecret")
        @Sendable func clientID(_ context: FlintRequestContext) throws -> String {
            guard let id = context.parameters.get("clientId"), !id.isEmpty else { throw OAuthClientRegistry.notFound }
            return id
        }
        return [
            .json(collection, access: .admin) { (body: OAuthClient, caller: Caller) in
                try await registry.create(body, realm: caller.projectID)
            },
            .get(collection, access: .admin, query: ["pageSize", "pageToken"]) { request, caller in
                try await registry.list(realm: caller.projectID, pageSize: request.uri.queryParameters.get("pageSize"),
                                        pageToken: request.uri.queryParameters.get("pageToken"))
            },
            Endpoint(method: .get, paths: item,
                     contract: EndpointContract(credentials: .admin, response: .json(OAuthClient.self))) { request, context, callers in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                return try JSONBody.response(OAuthClientRegistry.shown(try await registry.existing(clientID(context), realm: caller.projectID)))
            },
            Endpoint(method: .patch, paths: item,
                     contract: EndpointContract(credentials: .admin, query: ["updateMask"], request: [.json(OAuthClient.self)],
                                                response: .json(OAuthClient.self))) { request, context, callers in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                let body = try await JSONBody.decode(OAuthClient.self, from: request)
                let mask = request.uri.queryParameters.get("updateMask").map(UpdateMask.init)
                return try JSONBody.response(try await registry.update(clientID(context), realm: caller.projectID, with: body, mask: mask))
            },
            Endpoint(method: .delete, paths: item, contract: EndpointContract(credentials: .admin, response: .anyJSONObject)) {
                request, context, callers in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                try await registry.delete(clientID(context), realm: caller.projectID)
                return JSONBody.response(data: Data("{}".utf8))
            },
            Endpoint(method: .post, paths: rotation,
                     contract: EndpointContract(credentials: .admin, request: [.json(RotateOAuthClientSecretRequest.self)],
                                                response: .json(OAuthClient.self))) { request, context, callers in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                return try JSONBody.response(try await registry.rotateSecret(clientID(context), realm: caller.projectID))
            },
        ]
    }
}

extension AuthServer {
    /// The OpenID provider's clients of the caller's realm, for the CLI on the database (the admin API's calls).
    public func oauthClients(pageToken: String?, caller: Caller) async throws -> ListOAuthClientsResponse {
        try await assembly.oauthClients.list(realm: caller.projectID, pageSize: nil, pageToken: pageToken)
    }

    public func oauthClient(_ clientID: String, caller: Caller) async throws -> OAuthClient {
        OAuthClientRegistry.shown(try await assembly.oauthClients.existing(clientID, realm: caller.projectID))
    }

    /// A new client; its secret (for a confidential client without a JWKS URI) is in the answer, this once.
    public func createOAuthClient(_ config: OAuthClient, caller: Caller) async throws -> OAuthClient {
        try await assembly.oauthClients.create(config, realm: caller.projectID)
    }

    public func updateOAuthClient(_ clientID: String, _ change: OAuthClient, updateMask: String?, caller: Caller) async throws
        -> OAuthClient {
        try await assembly.oauthClients.update(clientID, realm: caller.projectID, with: change, mask: updateMask.map(UpdateMask.init))
    }

    public func rotateOAuthClientSecret(_ clientID: String, caller: Caller) async throws -> OAuthClient {
        try await assembly.oauthClients.rotateSecret(clientID, realm: caller.projectID)
    }

    public func deleteOAuthClient(_ clientID: String, caller: Caller) async throws {
        try await assembly.oauthClients.delete(clientID, realm: caller.projectID)
    }
}
