import FlintWire
import Foundation

/// The applications the user let sign in with their account through Flint's OpenID provider (a Flint extension, not in
/// FirebaseAuth): each consent names the client and the scopes granted.
extension User {
    /// The user's consents, one per client.
    public func oauthGrants() async throws -> [OAuthGrant] {
        try await withFreshToken { backend, idToken in try await backend.oauthGrants(idToken: idToken) }
    }

    /// Withdraws the user's consent to `clientID`, and ends every token that client holds for the user; the client
    /// asks for consent again next time.
    public func revokeOAuthGrant(clientID: String) async throws {
        try await withFreshToken { backend, idToken in try await backend.revokeOAuthGrant(clientID: clientID, idToken: idToken) }
    }
}
