import FlintWire
import Foundation

/// Sign in with Google. An ID token is checked against Google's keys, either spelling of Google's issuer, the
/// project's client ID as audience, its expiry and, when the token carries one, the nonce. An access token is
/// checked with Google's token-info endpoint (it must be live and issued to the project's client ID) and the
/// profile read from the user-info endpoint (`GoogleOAuthClient`). Google vouches for `email_verified`. The redirect
/// flow uses Google's sign-in page and token endpoint and ends with an ID token.
struct GoogleSignIn: CodeFlowProvider {
    let verifier: IdentityTokenVerifier
    let issuers: [String]
    let oauth: GoogleOAuthClient
    let authorizationURL: String
    let tokenURL: String

    func verify(_ assertion: IdpAssertion, configuration: ProjectSettings.IdentityProvider) async throws -> ProviderIdentity {
        let clientID = try Self.clientID(configuration)
        if let idToken = assertion.idToken {
            return try await verify(idToken: idToken, rawNonce: assertion.rawNonce, clientID: clientID)
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

    private func verify(idToken: String, rawNonce: String?, clientID: String) async throws -> ProviderIdentity {
        try await verifier.openIDIdentity(idToken, providerID: ProviderID.google, issuers: issuers, audience: clientID,
                                          rawNonce: rawNonce)
    }

    private static func clientID(_ configuration: ProjectSettings.IdentityProvider) throws -> String {
        guard let clientID = configuration.clientID, !clientID.isEmpty else {
            throw FlintError(.invalidProviderConfig, "google.com has no OAuth client ID (clientId) configured.")
        }
        return clientID
    }

    // MARK: The code flow

    let baseScopes = ["openid", "email", "profile"]
    let outsideService = OutsideService.google

    func endpoints(_ configuration: ProjectSettings.IdentityProvider, providerID: String,
                   customParameters: [String: String]) async throws -> CodeFlowEndpoints {
        CodeFlowEndpoints(authorization: authorizationURL, token: tokenURL)
    }

    func identity(fromTokens tokens: [String: JSONValue], session: AuthorizationCodeFlow.Session,
                  configuration: ProjectSettings.IdentityProvider) async throws -> ProviderIdentity {
        guard let idToken = tokens["id_token"]?.stringValue else {
            throw FlintError(.invalidIDPResponse, "Google did not exchange the code for an ID token.")
        }
        return try await verify(idToken: idToken, rawNonce: session.nonce, clientID: try Self.clientID(configuration))
    }
}
