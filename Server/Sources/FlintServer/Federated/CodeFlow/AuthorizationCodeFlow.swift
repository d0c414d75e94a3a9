import Crypto
import FlintWire
import Foundation

/// The redirect flow: the user signs in at the provider's own page, which sends the browser back with an
/// authorization code.
///
/// Starting (`start`) seals a session (ten minutes, single use on every node) binding the provider, the redirect URI,
/// a PKCE verifier (S256), a nonce and the hash of a session ID the client keeps; the sealed session is the `state`
/// the provider returns, so it cannot be read or changed on the way. Finishing (`finish`) with the session ID and the
/// URL the provider sent the browser back to: the session must open, be live and unspent, and its hash must be the
/// session ID's, so only the client that started the flow can finish it (a code intercepted on the way is useless
/// without it, and PKCE makes it useless to anyone but Flint). The code is exchanged at the provider's token
/// endpoint with the client secret, the verifier and the same redirect URI, and the provider's answer is checked
/// like any credential, the nonce included.
///
/// Two ways in: `createAuthUri` with a provider (the client gets the session ID and the provider's URL), and the
/// hosted `/__/auth/handler` page the Firebase SDKs open (the client sends only the session ID's hash).
struct AuthorizationCodeFlow: Sendable {
    struct Session: Codable, Sendable {
        var projectID: String
        var providerID: String
        /// Where the provider sends the browser back: the app's URI, or Flint's handler page.
        var redirectURI: String
        /// Lowercase hex SHA-256 of the session ID the client keeps.
        var sessionHash: String
        var codeVerifier: String
        var nonce: String?
        var tokenEndpoint: String
        /// The directory tenant the sign-in was limited to (Microsoft).
        var tenant: String?
        /// Where the handler page returns the browser to; nil when the client called `createAuthUri` itself.
        var handlerReturn: HandlerReturn?
    }

    /// Where and how the hosted handler page hands the result back to the app that opened it.
    struct HandlerReturn: Codable, Sendable, Equatable {
        /// `signInWithRedirect` (the iOS SDK), `signInViaRedirect` or `signInViaPopup` (web).
        var authType: String
        var eventID: String
        /// The app's URL scheme (`…://firebaseauth/link`), or the web page to go back to.
        var callbackScheme: String?
        var webRedirectURL: String?
    }

    /// A session that opened from a `state`, before it is spent.
    typealias OpenedSession = SingleUseTokens<Session>.Opened

    let sessions: SingleUseTokens<Session>
    let providers: CodeFlowProviders
    let secrets: SecretBox
    let http: OutsideHTTP
    let random: any RandomSource

    static var unsupportedProvider: FlintError {
        FlintError(.invalidProviderID, "Flint runs the redirect flow for google.com, github.com, microsoft.com, oidc.* and saml.* providers.")
    }

    /// Custom parameters and scopes are bounded: they travel in the authorization URL.
    static let maximumCustomParameters = 20
    static let maximumRequestLength = 2048

    /// The provider's authorization URL for a new session whose ID hashes to `sessionHash`.
    func start(providerID: String, redirectURI: String, sessionHash: String, scopes: [String],
               customParameters: [String: String], handlerReturn: HandlerReturn? = nil,
               configuration: ProjectSettings.IdentityProvider, projectID: String) async throws -> String {
        guard let provider = providers.provider(for: providerID) else { throw Self.unsupportedProvider }
        guard customParameters.count <= Self.maximumCustomParameters,
              (customParameters.map { $0.key + $0.value } + scopes).joined().utf8.count <= Self.maximumRequestLength
        else { throw FlintError(.invalidArgument, "Too many or too long scopes and custom parameters.") }
        let clientID = try provider.codeFlowClientID(configuration, providerID: providerID)
        let endpoints = try await provider.endpoints(configuration, providerID: providerID, customParameters: customParameters)
        guard var url = URLComponents(string: endpoints.authorization), url.host != nil else {
            throw FlintError(.invalidIDPResponse, "The provider names no authorization endpoint.")
        }
        let session = Session(
            projectID: projectID, providerID: providerID, redirectURI: redirectURI, sessionHash: sessionHash,
            codeVerifier: random.token(byteCount: 32), nonce: provider.sendsNonce ? random.token(byteCount: 16) : nil,
            tokenEndpoint: endpoints.token, tenant: endpoints.tenant, handlerReturn: handlerReturn)
        let state = try sessions.make(session)
        let allScopes = provider.baseScopes + scopes.filter { !$0.isEmpty && !provider.baseScopes.contains($0) }
        // Custom parameters first, so none of them can replace what binds the flow.
        var items = customParameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        var bound: [(String, String)] = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", redirectURI),
            ("scope", allScopes.joined(separator: " ")), ("state", state),
            ("code_challenge", Base64URL.encode(Data(SHA256.hash(data: Data(session.codeVerifier.utf8))))),
            ("code_challenge_method", "S256"),
        ]
        if let nonce = session.nonce { bound.append(("nonce", nonce)) }
        items.removeAll { item in item.name == "nonce" || bound.contains { $0.0 == item.name } }
        url.queryItems = (url.queryItems ?? []) + items + bound.map { URLQueryItem(name: $0.0, value: $0.1) }
        return url.string ?? endpoints.authorization
    }

    /// A random session ID for a client that calls `createAuthUri`, with the hash a session keeps of it.
    func newSessionID() -> (id: String, hash: String) {
        let id = random.token(byteCount: 24)
        return (id, Hex.sha256(id))
    }

    /// The session a `state` carries, live, of this project; not yet spent.
    func open(state: String?, projectID: String?) throws -> OpenedSession {
        guard let state, let opened = sessions.open(state), projectID == nil || opened.payload.projectID == projectID else {
            throw FlintError(.invalidIDPResponse, "The provider's answer does not belong to a sign-in session.")
        }
        guard sessions.isLive(opened) else { throw FlintError(.invalidIDPResponse, "The sign-in session has expired.") }
        return opened
    }

    /// The identity behind the code in `callback` (the fields of the URL the provider sent the browser back to), for
    /// the client holding `sessionID`, and the provider's tokens.
    func finish(sessionID: String, callback: [String: String], caller: Caller) async throws -> (ProviderIdentity, ProviderTokens) {
        let opened = try open(state: callback["state"], projectID: caller.projectID)
        let session = opened.payload
        guard constantTimeEquals(Data(Hex.sha256(sessionID).utf8), Data(session.sessionHash.utf8)) else {
            throw FlintError(.invalidIDPResponse, "The provider's answer belongs to another sign-in session.")
        }
        if let error = callback["error"] {
            throw FlintError(.invalidIDPResponse, "The provider refused the sign-in: \(error)")
        }
        guard let code = callback["code"], !code.isEmpty else {
            throw FlintError(.invalidIDPResponse, "The provider's answer carries no code.")
        }
        guard try await sessions.redeem(opened) else { throw FlintError(.invalidIDPResponse, "The sign-in session was used already.") }

        guard let configuration = caller.project.settings.identityProviders[session.providerID], configuration.enabled,
              let provider = providers.provider(for: session.providerID)
        else { throw FlintError(.operationNotAllowed, "The identity provider configuration is not found or disabled.") }
        let clientID = try provider.codeFlowClientID(configuration, providerID: session.providerID)
        let secret = try IdentityProviderConfigService.openSecret(
            configuration.sealedClientSecret ?? "", with: secrets, projectID: caller.projectID, providerID: session.providerID)
        let tokens = try await exchange(code, session: session, clientID: clientID, secret: secret,
                                        provider: provider)
        let identity = try await provider.identity(fromTokens: tokens, session: session, configuration: configuration)
        return (identity, ProviderTokens(idToken: tokens["id_token"]?.stringValue, accessToken: tokens["access_token"]?.stringValue))
    }

    /// The token endpoint's JSON answer for `code`.
    private func exchange(_ code: String, session: Session, clientID: String, secret: String,
                          provider: any CodeFlowProvider) async throws -> [String: JSONValue] {
        var form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", session.redirectURI),
                    ("client_id", clientID), ("code_verifier", session.codeVerifier)]
        var headers = [("accept", "application/json")]
        switch provider.clientAuthentication {
        case .basic:
            // RFC 6749 §2.3.1: the client ID and secret are form-encoded before they go into HTTP Basic.
            let basic = Data("\(FormURLEncoding.escape(clientID)):\(FormURLEncoding.escape(secret))".utf8).base64EncodedString()
            headers.append(("authorization", "Basic \(basic)"))
        case .post:
            form.append(("client_secret", secret))
        }
        let answer = try await http.providerSend(
            DeliveryHTTP.post(session.tokenEndpoint, contentType: "application/x-www-form-urlencoded",
                              body: Data(FormURLEncoding.encode(form).utf8), headers: headers),
            to: provider.outsideService)
        // GitHub answers a bad code with 200 and an `error` field.
        guard answer.isSuccess, case .object(let tokens)? = try? JSONDecoder().decode(JSONValue.self, from: answer.body),
              tokens["error"] == nil
        else {
            throw FlintError(.invalidIDPResponse, "The provider did not exchange the code.")
                .withCause("token endpoint: HTTP \(answer.status): \(answer.bodyText)")
        }
        return tokens
    }
}
