import FlintWire

/// An outside account a provider vouched for (Apple's `sub`, a Facebook user id), with the profile
/// Flint stores on the user and returns in `signInWithIdp`.
struct ProviderIdentity: Codable, Sendable, Equatable {
    var providerID: String
    /// The provider's id of the account (`federatedId`, `rawId`).
    var rawID: String
    var email: String?
    /// Whether the provider vouches for the email (Apple does; Facebook does not).
    var emailVerified = false
    var displayName: String?
    var firstName: String?
    var lastName: String?
    var photoURL: String?
    var screenName: String?
    /// The provider's profile as it sent it (token claims, Graph fields): `rawUserInfo`.
    var rawUserInfo: [String: JSONValue] = [:]

    /// The stored form, on the user.
    var federatedIdentity: FederatedIdentity {
        FederatedIdentity(providerID: providerID, rawID: rawID, email: email, displayName: displayName,
                          photoURL: photoURL, screenName: screenName)
    }
}

extension ProviderIdentity {
    /// Takes the profile from OpenID claims (`name`, `given_name`, `family_name`, `picture`, `screen_name`),
    /// keeping them all as `rawUserInfo`.
    mutating func readProfile(fromClaims claims: [String: JSONValue]) {
        displayName = claims["name"]?.stringValue
        firstName = claims["given_name"]?.stringValue
        lastName = claims["family_name"]?.stringValue
        photoURL = IdentityTokenVerifier.pictureURL(claims["picture"])
        screenName = claims["screen_name"]?.stringValue
        rawUserInfo = claims
    }
}

extension IdentityTokenVerifier {
    /// The identity an OpenID Connect ID token vouches for (Google, `oidc.…` providers): the token checked for its
    /// signature, one of `issuers`, one of `audiences`, its expiry and, when it carries one, the nonce (the raw nonce or
    /// its hex SHA-256); the email verified as the token says; the profile from its claims.
    func openIDIdentity(_ idToken: String, providerID: String, issuers: [String], audiences: Set<String>, rawNonce: String?)
        async throws -> ProviderIdentity {
        let token: VerifiedIdentityToken
        do {
            token = try await verify(idToken, expectedIssuers: issuers, audiences: audiences, rawNonce: rawNonce, nonceRule: .plain)
        } catch {
            throw error.flintError
        }
        var identity = ProviderIdentity(providerID: providerID, rawID: token.subject, email: token.email?.lowercased(),
                                        emailVerified: token.emailVerified ?? false)
        identity.readProfile(fromClaims: token.claims)
        return identity
    }
}

/// The provider's own tokens, echoed back as `oauthIdToken` / `oauthAccessToken` so the SDK can build
/// credentials from the answer.
struct ProviderTokens: Sendable, Equatable {
    var idToken: String?
    var accessToken: String?
}
