import FlintWire
import Foundation

/// Users' remembered consents to the realm's provider clients: listed with the clients' names (a deleted client's is
/// nil) and withdrawn, which also revokes every token the client holds for the user. The v2 `oauthGrants` endpoints
/// (`OAuthGrantRoutes`) and the console's user page both go through it.
struct OAuthConsents: Sendable {
    let store: OAuthStore
    let clients: OAuthClientRegistry
    let clock: any FlintClock

    func grants(realm: String, localID: String) async throws -> [OAuthGrant] {
        var grants: [OAuthGrant] = []
        for grant in try await store.grants(realm: realm, localID: localID) {
            // A client named by its metadata document shows its name only while the document can be had; the store's
            // own failures still fail the listing.
            let client: RegisteredClient?
            do {
                client = try await clients.client(grant.clientID, realm: realm)
            } catch is OAuthError {
                client = nil
            }
            grants.append(OAuthGrant(
                clientId: grant.clientID, clientName: client?.settings.displayName,
                scopes: grant.scopes.split(separator: " ").map(String.init),
                grantTime: Date(timeIntervalSince1970: TimeInterval(grant.grantedAt)).formatted(.iso8601)))
        }
        return grants
    }

    /// Withdraws the consent and the client's tokens for the user; false when there was neither.
    func revoke(realm: String, localID: String, clientID: String) async throws -> Bool {
        try await store.revokeGrant(realm: realm, localID: localID, clientID: clientID, at: clock.seconds)
    }
}
