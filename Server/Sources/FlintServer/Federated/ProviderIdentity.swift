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

    /// Takes the profile as `readProfile` does, with `rawUserInfo` in Google's own shape, the one Firebase answers
    /// for google.com: the user-info fields (`id`, `email`, `verified_email`, names, `picture`, `locale`) and the
    /// scopes the claims show were granted. `locale` is the claims' own, else `defaultLocale`.
    mutating func readGoogleProfile(fromClaims claims: [String: JSONValue], defaultLocale: String? = nil) {
        readProfile(fromClaims: claims)
        var scopes = ["openid", "https://www.googleapis.com/auth/userinfo.profile"]
        if email != nil { scopes.append("https://www.googleapis.com/auth/userinfo.email") }
        let fields: [String: JSONValue?] = [
            "id": .string(rawID), "email": email.map(JSONValue.string), "verified_email": .bool(emailVerified),
            "name": claims["name"], "given_name": claims["given_name"], "family_name": claims["family_name"],
            "picture": claims["picture"], "locale": claims["locale"] ?? defaultLocale.map(JSONValue.string),
            "granted_scopes": .string(scopes.joined(separator: " ")),
        ]
        rawUserInfo = fields.compactMapValues { $0 }
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
