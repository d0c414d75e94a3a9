import Crypto
import FlintWire
import Foundation

/// The redirect flow with an OpenID Connect provider's authorization code. `createAuthUri` with a provider starts
/// it: a session (sealed, ten minutes, single use on every node) binds a random `state`, a PKCE verifier (S256) and
/// a nonce to the provider and the redirect URI, and the answer carries the provider's authorization URL and the
/// session. `signInWithIdp` with that session and the URL the provider sent the browser back to (`code`, `state`)
/// finishes it: the state must match, the session is spent, the code is exchanged at the provider's token endpoint
/// (client secret by HTTP Basic, the PKCE verifier, the same redirect URI) and the ID token it returns is checked
/// like any other, its nonce included.
struct AuthorizationCodeFlow: Sendable {
    struct Session: Codable, Sendable {
        var projectID: String
        var providerID: String
        var redirectURI: String
        var state: String
        var codeVerifier: String
        var nonce: String
    }

    let sessions: SingleUseTokens<Session>
    let oidc: OIDCSignIn
    let secrets: SecretBox
    let random: any RandomSource

    /// Scopes every request asks for; `oauthScope` adds to them.
    static let baseScopes = ["openid", "email", "profile"]

    /// The provider's authorization URL for a new session, and the session.
    func start(providerID: String, redirectURI: String, extraScopes: String?, customParameters: [String: String],
               configuration: ProjectSettings.IdentityProvider, projectID: String) async throws -> (authURI: String, sessionID: String) {
        let (issuer, clientID) = try OIDCSignIn.issuerAndClient(providerID, configuration)
        guard configuration.codeFlow == true else {
            throw FlintError(.invalidProviderConfig, "\(providerID) does not have the code flow (responseType.code) on.")
        }
        guard let endpoint = try await oidc.metadata(issuer).authorizationEndpoint,
              var url = URLComponents(string: endpoint), url.host != nil
        else { throw FlintError(.invalidIDPResponse, "The OpenID provider names no authorization endpoint.") }
        let session = Session(projectID: projectID, providerID: providerID, redirectURI: redirectURI,
                              state: random.token(byteCount: 24), codeVerifier: random.token(byteCount: 32),
                              nonce: random.token(byteCount: 16))
        let scopes = Self.baseScopes + (extraScopes ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
            .filter { !Self.baseScopes.contains($0) }
        // Custom parameters first, so none of them can replace what binds the flow.
        var items = customParameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        let bound: [(String, String)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI), ("scope", scopes.joined(separator: " ")),
            ("state", session.state), ("nonce", session.nonce),
            ("code_challenge", Base64URL.encode(Data(SHA256.hash(data: Data(session.codeVerifier.utf8))))), ("code_challenge_method", "S256"),
        ]
        items.removeAll { item in bound.contains { $0.0 == item.name } }
        url.queryItems = (url.queryItems ?? []) + items + bound.map { URLQueryItem(name: $0.0, value: $0.1) }
        return (url.string ?? endpoint, try sessions.make(session))
    }

    /// The identity behind the code in `callback` (the URL the provider sent the browser back to), and the
    /// provider's tokens.
    func finish(sessionID: String, callback: [String: String], caller: Caller) async throws -> (ProviderIdentity, ProviderTokens) {
        guard let opened = sessions.open(sessionID), opened.payload.projectID == caller.projectID else {
            throw FlintError(.invalidIDPResponse, "The sign-in session is not valid.")
        }
        guard sessions.isLive(opened) else { throw FlintError(.invalidIDPResponse, "The sign-in session has expired.") }
        let session = opened.payload
        if let error = callback["error"] {
            throw FlintError(.invalidIDPResponse, "The provider refused the sign-in: \(error)")
        }
        guard let code = callback["code"], !code.isEmpty, let state = callback["state"],
              constantTimeEquals(Data(state.utf8), Data(session.state.utf8))
        else { throw FlintError(.invalidIDPResponse, "The provider's answer does not belong to this sign-in session.") }
        guard try await sessions.redeem(opened) else { throw FlintError(.invalidIDPResponse, "The sign-in session was used already.") }

        guard let configuration = caller.project.settings.identityProviders[session.providerID], configuration.enabled,
              configuration.codeFlow == true, let sealed = configuration.sealedClientSecret
        else { throw FlintError(.operationNotAllowed, "The identity provider configuration is not found or disabled.") }
        let (issuer, clientID) = try OIDCSignIn.issuerAndClient(session.providerID, configuration)
        let secret = try IdentityProviderConfigService.openSecret(
            sealed, with: secrets, projectID: caller.projectID, providerID: session.providerID)
        guard let tokenEndpoint = try await oidc.metadata(issuer).tokenEndpoint else {
            throw FlintError(.invalidIDPResponse, "The OpenID provider names no token endpoint.")
        }
        // RFC 6749 §2.3.1: the client ID and secret are form-encoded before they go into HTTP Basic.
        let basic = Data("\(FormURLEncoding.escape(clientID)):\(FormURLEncoding.escape(secret))".utf8).base64EncodedString()
        let body = FormURLEncoding.encode([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", session.redirectURI),
            ("client_id", clientID), ("code_verifier", session.codeVerifier),
        ])
        let answer = try await oidc.http.providerSend(
            DeliveryHTTP.post(tokenEndpoint, contentType: "application/x-www-form-urlencoded", body: Data(body.utf8),
                              headers: [("authorization", "Basic \(basic)"), ("accept", "application/json")]),
            to: .oidc)
        guard answer.isSuccess, case .object(let tokens)? = try? JSONDecoder().decode(JSONValue.self, from: answer.body),
              let idToken = tokens["id_token"]?.stringValue
        else {
            throw FlintError(.invalidIDPResponse, "The provider did not exchange the code for an ID token.")
                .withCause("token endpoint: HTTP \(answer.status): \(answer.bodyText)")
        }
        let identity = try await oidc.verify(idToken: idToken, rawNonce: session.nonce, providerID: session.providerID,
                                             configuration: configuration)
        return (identity, ProviderTokens(idToken: idToken, accessToken: tokens["access_token"]?.stringValue))
    }
}
