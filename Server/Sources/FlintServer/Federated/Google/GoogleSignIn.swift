import FlintWire
import Foundation

/// Sign in with Google. An ID token is checked against Google's keys, either spelling of Google's issuer, the
/// project's client ID as audience, its expiry and, when the token carries one, the nonce. An access token is
/// checked with Google's token-info endpoint (it must be live and issued to the project's client ID) and the
/// profile read from the user-info endpoint (`GoogleOAuthClient`). Google vouches for `email_verified`.
struct GoogleSignIn: Sendable {
    let verifier: IdentityTokenVerifier
    let issuers: [String]
    let oauth: GoogleOAuthClient

    func verify(_ assertion: IdpAssertion, configuration: ProjectSettings.IdentityProvider) async throws -> ProviderIdentity {
        guard let clientID = configuration.clientID, !clientID.isEmpty else {
            throw FlintError(.invalidProviderConfig, "google.com has no OAuth client ID (clientId) configured.")
        }
        if let idToken = assertion.idToken {
            return try await verifier.openIDIdentity(idToken, providerID: ProviderID.google, issuers: issuers, audience: clientID,
                                                     rawNonce: assertion.rawNonce)
        }
        guard let accessToken = assertion.accessToken else { throw FlintError(.invalidIDPResponse) }
        let profile = try await oauth.verify(accessToken: accessToken, clientID: clientID)
        guard let subject = profile["sub"]?.stringValue, !subject.isEmpty else { throw FlintError(.invalidIDPResponse) }
        var identity = ProviderIdentity(providerID: ProviderID.google, rawID: subject,
                                        email: profile["email"]?.stringValue?.lowercased(),
                                        emailVerified: IdentityTokenVerifier.flag(profile["email_verified"]) ?? false)
        identity.readProfile(fromClaims: profile)
        return identity
    }
}
