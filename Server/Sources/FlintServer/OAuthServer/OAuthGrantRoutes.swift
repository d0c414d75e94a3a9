import FlintWire
import Foundation
import Hummingbird

/// Users' remembered consents to the provider's clients: the signed-in user lists and revokes their own
/// (`v2/accounts/oauthGrants:list|revoke` with their ID token, Flint extensions in the v2 style), and admins do the
/// same for any user (`v2/projects/{p}[/tenants/{t}]/accounts/{uid}/oauthGrants[/{clientId}]`). Revoking a consent
/// also revokes every token the client holds for the user.
struct OAuthGrantRoutes: Sendable {
    let consents: OAuthConsents
    let idTokens: TokenService

    var endpoints: [Endpoint] {
        let routes = self
        let userGrants = Endpoint.projectPaths(version: "v2", "accounts/:localId/oauthGrants")
        let userGrant = Endpoint.projectPaths(version: "v2", "accounts/:localId/oauthGrants/:clientId")
        return [
            .json(Endpoint.identityToolkitPaths(version: "v2", "accounts/oauthGrants:list")) { (body: OAuthGrantsRequest, caller: Caller) in
                let verified = try await routes.idTokens.verifyIDToken(body.idToken, projectID: caller.projectID)
                return try await routes.grants(realm: caller.projectID, localID: verified.user.localID)
            },
            .json(Endpoint.identityToolkitPaths(version: "v2", "accounts/oauthGrants:revoke")) { (body: OAuthGrantsRequest, caller: Caller) in
                let verified = try await routes.idTokens.verifyIDToken(body.idToken, projectID: caller.projectID)
                guard let clientID = body.clientId, !clientID.isEmpty else { throw FlintError(.invalidArgument, "clientId is required.") }
                try await routes.revoke(realm: caller.projectID, localID: verified.user.localID, clientID: clientID)
                return JSONValue.object([:])
            },
            Endpoint(method: .get, paths: userGrants,
                     contract: EndpointContract(credentials: .admin, response: .json(ListOAuthGrantsResponse.self))) { request, context, callers in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                return try JSONBody.response(try await routes.grants(realm: caller.projectID, localID: context.parameters.get("localId") ?? ""))
            },
            Endpoint(method: .delete, paths: userGrant, contract: EndpointContract(credentials: .admin, response: .anyJSONObject)) {
                request, context, callers in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                try await routes.revoke(realm: caller.projectID, localID: context.parameters.get("localId") ?? "",
                                        clientID: context.parameters.get("clientId") ?? "")
                return JSONBody.response(data: Data("{}".utf8))
            },
        ]
    }

    func grants(realm: String, localID: String) async throws -> ListOAuthGrantsResponse {
        ListOAuthGrantsResponse(grants: try await consents.grants(realm: realm, localID: localID))
    }

    /// Withdraws a consent and the client's tokens for the user; `OAUTH_CLIENT_NOT_FOUND` when there was neither.
    func revoke(realm: String, localID: String, clientID: String) async throws {
        guard try await consents.revoke(realm: realm, localID: localID, clientID: clientID) else { throw OAuthClientRegistry.notFound }
    }
}
