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
