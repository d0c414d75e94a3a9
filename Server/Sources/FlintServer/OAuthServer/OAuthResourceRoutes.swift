import FlintWire
import Foundation
import Hummingbird

/// The admin API of the project's protected resources, `v2/projects/{p}/oauthResources` (create, list, get, patch,
/// delete), in the v2 style of the clients' collection.
struct OAuthResourceRoutes: Sendable {
    let registry: OAuthResourceRegistry

    var endpoints: [Endpoint] {
        let registry = registry
        let collection = Endpoint.identityToolkitPaths(version: "v2", "projects/:projectId/oauthResources")
        let item = Endpoint.identityToolkitPaths(version: "v2", "projects/:projectId/oauthResources/:resourceId")
        @Sendable func resourceID(_ context: FlintRequestContext) throws -> String {
            guard let id = context.parameters.get("resourceId"), !id.isEmpty else { throw OAuthResourceRegistry.notFound }
            return id
        }
        return [
            .json(collection, access: .admin) { (body: OAuthResource, caller: Caller) in
                try await registry.create(body, projectID: caller.projectID)
            },
            .get(collection, access: .admin) { _, caller in try await registry.list(projectID: caller.projectID) },
            Endpoint(method: .get, paths: item,
                     contract: EndpointContract(credentials: .admin, response: .json(OAuthResource.self))) { request, context, callers in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                return try JSONBody.response(try await registry.get(resourceID(context), projectID: caller.projectID))
            },
            Endpoint(method: .patch, paths: item,
                     contract: EndpointContract(credentials: .admin, query: ["updateMask"], request: [.json(OAuthResource.self)],
                                                response: .json(OAuthResource.self))) { request, context, callers in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                let body = try await JSONBody.decode(OAuthResource.self, from: request)
                let mask = request.uri.queryParameters.get("updateMask").map(UpdateMask.init)
                return try JSONBody.response(try await registry.update(resourceID(context), projectID: caller.projectID, with: body,
                                                                       mask: mask))
            },
            Endpoint(method: .delete, paths: item, contract: EndpointContract(credentials: .admin, response: .anyJSONObject)) {
                request, context, callers in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                try await registry.delete(resourceID(context), projectID: caller.projectID)
                return JSONBody.response(data: Data("{}".utf8))
            },
        ]
    }
}
