import FlintWire
import Foundation

extension Endpoint {
    private static func oauthAuthorizations(_ method: String) -> Endpoint {
        Endpoint(hostAndPath: "identitytoolkit.googleapis.com/v2/oauth/authorizations:\(method)")
    }

    static let oauthAuthorization = oauthAuthorizations("get")
    static let approveOAuthAuthorization = oauthAuthorizations("approve")
    static let denyOAuthAuthorization = oauthAuthorizations("deny")
}

/// The RPCs of the team's own sign-in page of Flint's OpenID provider (a Flint extension): each names the
/// authorization Flint sent the browser with, and the configured tenant (`post` adds it).
extension AuthBackend {
    /// `oauth/authorizations:get`: what the authorization asks.
    func oauthAuthorization(_ authorizationID: String) async throws -> OAuthAuthorizationDetails {
        try await post(.oauthAuthorization, OAuthAuthorizationLookupRequest(authorizationId: authorizationID))
    }

    /// `oauth/authorizations:approve` or `:deny` with the user's ID token: where the browser goes next.
    func decideOAuthAuthorization(_ authorizationID: String, approve: Bool, idToken: String) async throws -> URL {
        let request = OAuthAuthorizationDecisionRequest(authorizationId: authorizationID, idToken: idToken)
        let response: OAuthAuthorizationDecisionResponse = try await post(
            approve ? .approveOAuthAuthorization : .denyOAuthAuthorization, request)
        guard let url = URL(string: response.redirectUri) else {
            throw AuthErrorUtils.internalError(response: "oauth/authorizations answered a redirect that is no URL: \(response.redirectUri)")
        }
        return url
    }
}

extension Endpoint {
    static let listOAuthGrants = Endpoint(hostAndPath: "identitytoolkit.googleapis.com/v2/accounts/oauthGrants:list")
    static let revokeOAuthGrant = Endpoint(hostAndPath: "identitytoolkit.googleapis.com/v2/accounts/oauthGrants:revoke")
}

/// A user's remembered consents to the OpenID provider's clients (a Flint extension).
extension AuthBackend {
    func oauthGrants(idToken: String) async throws -> [OAuthGrant] {
        let response: ListOAuthGrantsResponse = try await post(.listOAuthGrants, OAuthGrantsRequest(idToken: idToken))
        return response.grants
    }

    func revokeOAuthGrant(clientID: String, idToken: String) async throws {
        let _: JSONValue = try await post(.revokeOAuthGrant, OAuthGrantsRequest(idToken: idToken, clientId: clientID))
    }
}
