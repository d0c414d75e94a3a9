import Crypto
import FlintWire
import Foundation
import Hummingbird

/// An authorization request that was checked (its client and redirect URI good, PKCE S256 given) and waits for the
/// user: to sign in, on Flint's page or the team's own, and to consent. Kept under a stored handle, the
/// `authorization_id` the pages carry.
struct PendingAuthorization: Codable, Sendable, Equatable {
    var realm: String
    var clientID: String
    var redirectURI: String
    var state: String?
    var scopes: [String]
    var nonce: String?
    var codeChallenge: String
    var prompts: [String]
    var maxAge: Int64?
    var loginHint: String?
    var uiLocales: [String]
    /// `acr_values` asked for two factors.
    var requiresMultiFactor: Bool
    /// The browser that started it (the flow cookie's value, hashed): only that browser's sign-in and consent count.
    var browserHash: String
    var startedAt: Int64
    /// RFC 8707's resources the tokens are for (their audience); none: the provider's own userinfo.
    var resources: [String]? = nil
    /// A device's authorization (RFC 8628), by its user code's hash: the decision goes to the device, not a redirect URI.
    var deviceUserCodeHash: String? = nil
}

/// The authorization endpoint's rules (OAuth 2.1 §4.1, OpenID Connect Core §3.1.2): check a request, decide whether the
/// user must sign in or consent, and answer the client's redirect URI with a code or an error, always with `iss`
/// (RFC 9207). Codes are 256 random bits, stored hashed, good once for 60 seconds.
struct ProviderAuthorization: Sendable {
    let clients: OAuthClientRegistry
    let sessions: ProviderSessions
    let tokens: OAuthTokens
    let store: OAuthStore
    let pending: StoredHandles
    let secrets: SecretBox
    let clock: any FlintClock
    let random: any RandomSource

    /// How long a user has to sign in and consent.
    static let pendingLifetime: Int64 = 900
    static let codeLifetime: Int64 = 60
    /// The cookie that names the browser an authorization began in (so a sign-in or consent posted from elsewhere,
    /// with another authorization's ID, counts for nothing).
    static let browserCookie = "flint_oauth_browser"

    /// What the endpoint answers.
    enum Outcome: Sendable {
        /// To the client's redirect URI (a code or an error).
        case redirect(String)
        /// To Flint's sign-in page or the team's own, or to the consent page.
        case interact(String)
    }

    // MARK: The request

    /// Checks an authorization request's parameters. Until the client and its redirect URI are known good, an error is
    /// thrown as `Refusal.page` (shown to the user, never sent anywhere); after, as `Refusal.redirect` to the client.
    func check(_ parameters: [String: String], realm: String, settings: ProjectSettings, browser: String,
               uiLocalesDefault: [String]) async throws -> (PendingAuthorization, RegisteredClient) {
        var known: RegisteredClient?
        do {
            if let clientID = parameters["client_id"], !clientID.isEmpty { known = try await clients.client(clientID, realm: realm) }
        } catch let error as OAuthError {
            throw Refusal.page(error.detail ?? "The application that sent you here cannot be used.")
        }
        guard let client = known else { throw Refusal.page("The application that sent you here is not known to this sign-in service.") }
        guard let redirectURI = parameters["redirect_uri"], RedirectURI.matches(redirectURI, registered: client.settings.redirectURIs)
        else { throw Refusal.page("The application asked to return to an address it has not registered.") }
        let state = parameters["state"]
        func refuse(_ code: OAuthError.Code, _ detail: String) -> Refusal {
            .redirect(answer(redirectURI: redirectURI, realm: realm, state: state, error: OAuthError(code, detail)))
        }
        if let state, state.utf8.count > 2048 { throw refuse(.invalidRequest, "state is over 2048 bytes.") }
        guard parameters["response_type"] == "code" else {
            throw refuse(.unsupportedResponseType, "Only response_type=code is served.")
        }
        if parameters["request"] != nil || parameters["request_uri"] != nil {
            throw refuse(.invalidRequest, "Request objects are not supported.")
        }
        if let mode = parameters["response_mode"], mode != "query" { throw refuse(.invalidRequest, "Only response_mode=query is served.") }
        guard client.allows(grantType: "authorization_code") else {
            throw refuse(.unauthorizedClient, "The client may not use the authorization code grant.")
        }
        guard let challenge = parameters["code_challenge"], PKCE.isWellFormed(challenge) else {
            throw refuse(.invalidRequest, "A PKCE code_challenge (43 to 128 characters) is required.")
        }
        guard parameters["code_challenge_method"] == "S256" else {
            throw refuse(.invalidRequest, "code_challenge_method must be S256.")
        }
        guard let scopes = Scopes.parse(parameters["scope"]), !scopes.isEmpty else {
            throw refuse(.invalidScope, "scope must name at least one scope.")
        }
        let resources: [OAuthResourceSettings]
        do {
            resources = try OAuthResourceRegistry.requested(Scopes.parse(parameters["resource"]) ?? [], by: client.clientID,
                                                            in: settings)
        } catch {
            throw Refusal.redirect(answer(redirectURI: redirectURI, realm: realm, state: state, error: error))
        }
        if let unknown = Self.scopeNotAllowed(scopes, client: client, resources: resources) {
            throw refuse(.invalidScope, "The client may not ask for \(unknown).")
        }
        let nonce = parameters["nonce"]
        if let nonce, nonce.utf8.count > 512 { throw refuse(.invalidRequest, "nonce is over 512 bytes.") }
        let prompts = Scopes.parse(parameters["prompt"]) ?? []
        if let unknown = prompts.first(where: { !["none", "login", "consent", "select_account"].contains($0) }) {
            throw refuse(.invalidRequest, "prompt \(unknown) is not one of none, login, consent, select_account.")
        }
        if prompts.contains("none"), prompts.count > 1 { throw refuse(.invalidRequest, "prompt=none stands alone.") }
        var maxAge: Int64?
        if let text = parameters["max_age"] {
            guard let value = Int64(text), value >= 0 else { throw refuse(.invalidRequest, "max_age must be a number of seconds.") }
            maxAge = value
        }
        let acrValues = Scopes.parse(parameters["acr_values"]) ?? []
        let loginHint = parameters["login_hint"].flatMap { $0.isEmpty || $0.utf8.count > 320 ? nil : $0 }
        let uiLocales = (Scopes.parse(parameters["ui_locales"]) ?? []).prefix(10)
        return (PendingAuthorization(
            realm: realm, clientID: client.clientID, redirectURI: redirectURI, state: state, scopes: scopes, nonce: nonce,
            codeChallenge: challenge, prompts: prompts, maxAge: maxAge, loginHint: loginHint,
            uiLocales: uiLocales.isEmpty ? uiLocalesDefault : Array(uiLocales),
            requiresMultiFactor: acrValues.contains(AuthenticationLevel.multiFactor.rawValue), browserHash: Hex.sha256(browser),
            startedAt: clock.seconds, resources: resources.isEmpty ? nil : resources.map(\.resource)), client)
    }

    /// The first of `scopes` the client may not ask for: a scope is the client's (OpenID's and those its admin allowed),
    /// or one of a requested resource's.
    static func scopeNotAllowed(_ scopes: [String], client: RegisteredClient, resources: [OAuthResourceSettings]) -> String? {
        scopes.first { scope in !client.settings.allowedScopes.contains(scope) && !resources.contains { $0.scopes.contains(scope) } }
    }

    /// Why an authorization request is refused.
    enum Refusal: Error {
        /// Shown on an error page: the client or its redirect URI cannot be trusted with an answer.
        case page(String)
        /// Sent to the client's redirect URI.
        case redirect(String)
    }

    // MARK: Deciding

    /// Where a checked request goes, given the browser's session: sign-in, consent, or straight back with a code.
    /// `signInPage` is where sign-ins happen (Flint's page or the team's), given the authorization's ID.
    func decide(_ request: PendingAuthorization, client: RegisteredClient, session: ProviderSessions.Session?,
                signInPage: (String) -> String) async throws -> Outcome {
        let mustSignIn = session.map { !satisfies($0, request) } ?? true
        if mustSignIn {
            if request.prompts.contains("none") {
                return .redirect(answer(request, error: OAuthError(session == nil ? .loginRequired : .interactionRequired,
                                                                   "The user must sign in.")))
            }
            return .interact(signInPage(try await keep(request)))
        }
        guard let session else { throw OAuthError(.serverError) }
        return try await afterSignIn(request, client: client, session: session, authorizationID: nil)
    }

    /// Whether a session may answer the request without a new sign-in.
    private func satisfies(_ session: ProviderSessions.Session, _ request: PendingAuthorization) -> Bool {
        if request.prompts.contains("login") || request.prompts.contains("select_account") { return false }
        if let maxAge = request.maxAge, clock.seconds - session.signIn.authTime > maxAge { return false }
        if request.requiresMultiFactor, AuthenticationLevel(rawValue: session.signIn.acr) != .multiFactor { return false }
        return true
    }

    /// With the user signed in: the consent page if the client needs one, else the code. `authorizationID` is the kept
    /// request's, which a code ends.
    func afterSignIn(_ request: PendingAuthorization, client: RegisteredClient, session: ProviderSessions.Session,
                     authorizationID: String?) async throws -> Outcome {
        if request.requiresMultiFactor, AuthenticationLevel(rawValue: session.signIn.acr) != .multiFactor {
            return .redirect(answer(request, error: OAuthError(
                .unmetAuthenticationRequirements, "The account has no second factor to sign in with.")))
        }
        if try await needsConsent(request, client: client, localID: session.localID) {
            if request.prompts.contains("none") {
                return .redirect(answer(request, error: OAuthError(.consentRequired, "The user must consent.")))
            }
            let id: String
            if let authorizationID { id = authorizationID } else { id = try await keep(request) }
            return .interact(ProviderEndpoints.consentPage + "?authorization_id=" + id)
        }
        return .redirect(try await issueCode(request, localID: session.localID, signIn: session.signIn, sid: session.sid,
                                             authorizationID: authorizationID))
    }

    /// Whether the user must be asked: not for a first-party client, nor for scopes granted before (unless the client
    /// asks again with `prompt=consent`).
    func needsConsent(_ request: PendingAuthorization, client: RegisteredClient, localID: String) async throws -> Bool {
        if client.settings.firstParty { return false }
        if request.prompts.contains("consent") { return true }
        let granted = Set((try await store.grantedScopes(realm: request.realm, localID: localID, clientID: client.clientID) ?? "")
            .split(separator: " ").map(String.init))
        return !Set(request.scopes).isSubset(of: granted)
    }

    /// Records the user's consent to the request's scopes (beside those granted before).
    func recordConsent(_ request: PendingAuthorization, localID: String) async throws {
        let before = (try await store.grantedScopes(realm: request.realm, localID: localID, clientID: request.clientID) ?? "")
            .split(separator: " ").map(String.init)
        let scopes = (before + request.scopes.filter { !before.contains($0) }).joined(separator: " ")
        try await store.saveGrant(realm: request.realm, localID: localID, clientID: request.clientID, scopes: scopes,
                                  at: clock.seconds)
    }

    /// A new code for the request, which ends the kept authorization; the client's redirect URI with it.
    func issueCode(_ request: PendingAuthorization, localID: String, signIn: ProviderSessions.SignIn, sid: String?,
                   authorizationID: String?) async throws -> String {
        if let authorizationID { _ = try await pending.take(authorizationID) }
        let grant = ProviderGrant(scopes: request.scopes, nonce: request.nonce, authTime: signIn.authTime, amr: signIn.amr,
                                  acr: signIn.acr, sid: sid, resources: request.resources)
        if let userCodeHash = request.deviceUserCodeHash {
            return try await ProviderDeviceFlow.decide(userCodeHash, grant: ProviderDeviceFlow.Grant(localID: localID, grant: grant),
                                                       request: request, store: store, now: clock.seconds)
        }
        let code = random.token(byteCount: 32)
        let payload = IssuedCode(
            realm: request.realm, localID: localID, redirectURI: request.redirectURI, codeChallenge: request.codeChallenge,
            grant: grant)
        try await store.insertCode(hash: Hex.sha256(code), clientID: request.clientID,
                                   payload: String(decoding: try JSONBody.encoder.encode(payload), as: UTF8.self),
                                   expiresAt: clock.seconds + Self.codeLifetime)
        return RedirectURI.adding(
            [("code", code)] + (request.state.map { [("state", $0)] } ?? []) + [("iss", tokens.issuer(realm: request.realm))],
            to: request.redirectURI)
    }

    /// What a code stands for.
    struct IssuedCode: Codable, Sendable {
        var realm: String
        var localID: String
        var redirectURI: String
        var codeChallenge: String
        var grant: ProviderGrant
    }

    // MARK: Kept requests

    /// Keeps a request until the user has signed in and consented; returns its `authorization_id`.
    func keep(_ request: PendingAuthorization) async throws -> String {
        try await pending.make(String(decoding: try JSONBody.encoder.encode(request), as: UTF8.self),
                               expiresAt: clock.seconds + Self.pendingLifetime)
    }

    /// A kept request, still waiting.
    func kept(_ authorizationID: String?) async throws -> PendingAuthorization? {
        guard let authorizationID, let value = try await pending.value(of: authorizationID) else { return nil }
        return try? JSONBody.decoder.decode(PendingAuthorization.self, from: Data(value.utf8))
    }

    /// Ends a kept request with the user's refusal: the client's redirect URI with `access_denied`.
    func deny(_ request: PendingAuthorization, authorizationID: String) async throws -> String {
        _ = try await pending.take(authorizationID)
        if let userCodeHash = request.deviceUserCodeHash {
            return try await ProviderDeviceFlow.decide(userCodeHash, grant: nil, request: request, store: store, now: clock.seconds)
        }
        return answer(request, error: OAuthError(.accessDenied, "The user did not allow the application."))
    }

    /// The form token of a kept request in the browser it began in: an HMAC of both, so a form posted by another site
    /// (which can neither read the page nor set the cookie) is refused.
    func formToken(authorizationID: String, browser: String) -> String {
        Base64URL.encode(secrets.tag(authorizationID + "." + browser, context: "oauth-form"))
    }

    /// Whether a POST comes from the browser that began `request`, with the form token of its page.
    func isFromItsBrowser(_ request: PendingAuthorization, authorizationID: String, browser: String?, formToken: String?) -> Bool {
        guard let browser, let formToken,
              constantTimeEquals(Data(Hex.sha256(browser).utf8), Data(request.browserHash.utf8))
        else { return false }
        return constantTimeEquals(Data(formToken.utf8), Data(self.formToken(authorizationID: authorizationID, browser: browser).utf8))
    }

    // MARK: Answers

    func answer(_ request: PendingAuthorization, error: OAuthError) -> String {
        answer(redirectURI: request.redirectURI, realm: request.realm, state: request.state, error: error)
    }

    /// The client's redirect URI with an error (RFC 6749 §4.1.2.1), `state` and `iss`.
    func answer(redirectURI: String, realm: String, state: String?, error: OAuthError) -> String {
        var parameters = [("error", error.code.rawValue)]
        if let detail = error.detail { parameters.append(("error_description", detail)) }
        if let state { parameters.append(("state", state)) }
        parameters.append(("iss", tokens.issuer(realm: realm)))
        return RedirectURI.adding(parameters, to: redirectURI)
    }
}

/// PKCE (RFC 7636) with S256 only.
enum PKCE {
    /// 43 to 128 characters of the unreserved set (§4.1, §4.2).
    static func isWellFormed(_ value: String) -> Bool {
        (43...128).contains(value.utf8.count)
            && value.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
                || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "~") }
    }

    /// Whether `verifier` is the one `challenge` was made from: base64url(SHA-256(verifier)), compared in constant time.
    static func verifies(_ verifier: String, challenge: String) -> Bool {
        guard isWellFormed(verifier) else { return false }
        let computed = Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
        return constantTimeEquals(Data(computed.utf8), Data(challenge.utf8))
    }
}

private extension UInt8 {
    var isASCIIAlphanumeric: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
