import FlintWire
import Foundation

/// Sign in with Google. An ID token is checked against Google's keys, either spelling of Google's issuer, one of the
/// project's client IDs (`clientId` and `additionalClientIds`: an app's web, iOS and Android clients) as audience, its
/// expiry and, when the token carries one, the nonce. An access token is checked with Google's token-info endpoint (it
/// must be live and issued to one of those clients) and the profile read from the user-info endpoint
/// (`GoogleOAuthClient`). Google vouches for `email_verified`. The redirect
/// flow uses Google's sign-in page and token endpoint and ends with an ID token.
struct GoogleSignIn: CodeFlowProvider {
    let verifier: IdentityTokenVerifier
    let issuers: [String]
    let oauth: GoogleOAuthClient
    let authorizationURL: String
    let tokenURL: String

    func verify(_ assertion: IdpAssertion, configuration: ProjectSettings.IdentityProvider) async throws -> ProviderIdentity {
        let clientIDs = try Self.clientIDs(configuration)
        if let idToken = assertion.idToken {
            return try await verify(idToken: idToken, rawNonce: assertion.rawNonce, clientIDs: clientIDs)
        }
        guard let accessToken = assertion.accessToken else { throw FlintError(.invalidIDPResponse) }
        let profile = try await oauth.verify(accessToken: accessToken, clientIDs: clientIDs)
        guard let subject = profile["sub"]?.stringValue, !subject.isEmpty else { throw FlintError(.invalidIDPResponse) }
        var identity = ProviderIdentity(providerID: ProviderID.google, rawID: subject,
                                        email: profile["email"]?.stringValue?.lowercased(),
                                        emailVerified: IdentityTokenVerifier.flag(profile["email_verified"]) ?? false)
        identity.readGoogleProfile(fromClaims: profile)
        return identity
    }

    private func verify(idToken: String, rawNonce: String?, clientIDs: Set<String>) async throws -> ProviderIdentity {
        var identity = try await verifier.openIDIdentity(
            idToken, providerID: ProviderID.google, issuers: issuers, audiences: clientIDs, rawNonce: rawNonce)
        identity.readGoogleProfile(fromClaims: identity.rawUserInfo)
        return identity
    }

    /// The configured client ID and the additional ones.
    private static func clientIDs(_ configuration: ProjectSettings.IdentityProvider) throws -> Set<String> {
        guard let clientID = configuration.clientID, !clientID.isEmpty else {
            throw FlintError(.invalidProviderConfig, "google.com has no OAuth client ID (clientId) configured.")
        }
        return Set([clientID] + (configuration.additionalClientIDs ?? []).filter { !$0.isEmpty })
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
        // The code was exchanged by the web client: its token names that client.
        return try await verify(idToken: idToken, rawNonce: session.nonce, clientIDs: [try codeFlowClientID(configuration, providerID: ProviderID.google)])
    }
}
