import FlintWire
import Foundation

/// The calls of the team's own sign-in page of Flint's OpenID provider (a Flint extension, not in FirebaseAuth).
///
/// When a project names its own sign-in page (`oauthServer.signInPageURL`), Flint sends the browser of an app that
/// signs in with the project's OpenID provider there, with an `authorization_id` in the query. The page shows what
/// ``oauthAuthorization(_:)`` says, signs the user in with this SDK as usual, and then ends the authorization with
/// ``approveOAuthAuthorization(_:)`` or ``denyOAuthAuthorization(_:)``, sending the browser to the URL they return.
///
/// These calls go with the API key, in the tenant of ``tenantID`` if set. An `authorizationID` that names no
/// authorization in progress (empty, unknown, expired, already ended, or another project's) fails with `internalError`,
/// whose message carries the server's `INVALID_AUTHORIZATION_ID`.
extension Auth {
    /// What the authorization `authorizationID` asks: the client (`clientName`, `ownerName`, `logoUri`), the
    /// `scopes`, and the account the client hints at (`loginHint`). For the team's own sign-in page of Flint's
    /// OpenID provider. Needs no signed-in user.
    public func oauthAuthorization(_ authorizationID: String) async throws -> OAuthAuthorizationDetails {
        try await backend.oauthAuthorization(authorizationID)
    }

    /// Completion-handler form of `oauthAuthorization(_:)`.
    public func oauthAuthorization(
        _ authorizationID: String,
        completion: (@MainActor (OAuthAuthorizationDetails?, (any Error)?) -> Void)? = nil
    ) {
        completeOnMainActor(completion) { try await self.oauthAuthorization(authorizationID) }
    }

    /// Approves the authorization `authorizationID` as the current user, with a fresh ID token of theirs: the
    /// consent is remembered, and the answer is where to send the browser, the client's redirect URI with the code,
    /// `state` and `iss`. For the team's own sign-in page of Flint's OpenID provider.
    ///
    /// Throws `nullUser` without a current user, and `requiresRecentLogin` when the client asked for a sign-in more
    /// recent (`max_age`) or stronger (a second factor) than the user's.
    public func approveOAuthAuthorization(_ authorizationID: String) async throws -> URL {
        try await decideOAuthAuthorization(authorizationID, approve: true)
    }

    /// Completion-handler form of `approveOAuthAuthorization(_:)`.
    public func approveOAuthAuthorization(
        _ authorizationID: String,
        completion: (@MainActor (URL?, (any Error)?) -> Void)? = nil
    ) {
        completeOnMainActor(completion) { try await self.approveOAuthAuthorization(authorizationID) }
    }

    /// Denies the authorization `authorizationID` as the current user: the answer is where to send the browser, the
    /// client's redirect URI with `error=access_denied`, `state` and `iss`. For the team's own sign-in page of Flint's
    /// OpenID provider. Throws `nullUser` without a current user.
    public func denyOAuthAuthorization(_ authorizationID: String) async throws -> URL {
        try await decideOAuthAuthorization(authorizationID, approve: false)
    }

    /// Completion-handler form of `denyOAuthAuthorization(_:)`.
    public func denyOAuthAuthorization(
        _ authorizationID: String,
        completion: (@MainActor (URL?, (any Error)?) -> Void)? = nil
    ) {
        completeOnMainActor(completion) { try await self.denyOAuthAuthorization(authorizationID) }
    }

    private func decideOAuthAuthorization(_ authorizationID: String, approve: Bool) async throws -> URL {
        guard let user = currentUser else {
            throw AuthErrorUtils.error(.nullUser, message: "An authorization is approved or denied by the signed-in user; there is none.")
        }
        return try await user.withFreshToken { backend, idToken in
            try await backend.decideOAuthAuthorization(authorizationID, approve: approve, idToken: idToken)
        }
    }
}
