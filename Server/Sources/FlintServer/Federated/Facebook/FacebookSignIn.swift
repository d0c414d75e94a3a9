import FlintWire
import Foundation

/// Facebook Login. A classic access token is checked with the Graph API (`FacebookGraphClient`); a
/// Limited Login ID token is checked like an OpenID token: Facebook's keys, issuer, audience = the app
/// id, expiry and the nonce (the same SHA-256 rule as Apple). Facebook does not vouch for emails, so
/// they are stored unverified, as Firebase does.
struct FacebookSignIn: Sendable {
    let graph: FacebookGraphClient
    let limitedLogin: IdentityTokenVerifier
    let issuers: [String]

    func verify(_ assertion: IdpAssertion, configuration: ProjectSettings.IdentityProvider, appSecret: () throws -> String?)
        async throws -> ProviderIdentity {
        guard let appID = configuration.clientID, !appID.isEmpty else {
            throw FlintError(.invalidProviderConfig, "facebook.com has no app id (clientId) configured.")
        }
        if let idToken = assertion.idToken {
            let token: VerifiedIdentityToken
            do {
                token = try await limitedLogin.verify(idToken, expectedIssuers: issuers, audiences: [appID],
                                                      rawNonce: assertion.rawNonce, nonceRule: .sha256Hex)
            } catch {
                throw error.flintError
            }
            var identity = ProviderIdentity(providerID: ProviderID.facebook, rawID: token.subject,
                                            email: token.email?.lowercased())
            identity.readProfile(fromClaims: token.claims)
            return identity
        }
        guard let accessToken = assertion.accessToken else { throw FlintError(.invalidIDPResponse) }
        guard let secret = try appSecret(), !secret.isEmpty else {
            throw FlintError(.invalidProviderConfig, "facebook.com has no app secret (clientSecret) configured.")
        }
        let user = try await graph.verify(accessToken: accessToken, appID: appID, appSecret: secret)
        var identity = ProviderIdentity(providerID: ProviderID.facebook, rawID: user.userID,
                                        email: user.profile["email"]?.stringValue?.lowercased())
        identity.displayName = user.profile["name"]?.stringValue
        identity.firstName = user.profile["first_name"]?.stringValue
        identity.lastName = user.profile["last_name"]?.stringValue
        identity.photoURL = IdentityTokenVerifier.pictureURL(user.profile["picture"])
        identity.rawUserInfo = user.profile
        return identity
    }
}
