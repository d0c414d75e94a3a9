import FlintWire
import Foundation
import HTTPTypes
import Hummingbird

/// Where users sign in and consent: Flint's pages (`/__/oauth/…`), and the calls the team's own sign-in page makes
/// (`v2/oauth/authorizations:get|approve|deny`). Both end with an ID token of the realm's user, verified as every
/// Firebase call verifies one.
extension ProviderRoutes {
    /// What the sign-in page posts once the user has signed in.
    struct SessionRequest: Codable, Sendable {
        var authorizationId: String?
        var idToken: String?
        var formToken: String?
    }

    struct SessionResponse: Codable, Sendable {
        var location: String
    }

    /// What the sign-in page posts for a proof-of-work challenge.
    struct ChallengeRequest: Codable, Sendable {
        var authorizationId: String?
        var formToken: String?
    }

    struct ChallengeResponse: Codable, Sendable {
        var challenge: String
        var bits: Int
    }

    var pageEndpoints: [Endpoint] {
        let routes = self
        return [
            // The email link comes back with the action page's parameters, a provider with the link in the fragment.
            Endpoint(method: .get, paths: [ProviderEndpoints.signInPage],
                     contract: .page(query: ["authorization_id"] + ActionRoutes.carriedParameters)) {
                request, _ in try await routes.signInPage(request)
            },
            Endpoint(method: .post, paths: [ProviderEndpoints.sessionEndpoint],
                     contract: EndpointContract(credentials: .none, request: [.json(SessionRequest.self)],
                                                response: .json(SessionResponse.self))) { request, _ in
                let body = try await JSONBody.decode(SessionRequest.self, from: request)
                return try await routes.beginSession(request, body)
            },
            Endpoint(method: .post, paths: [ProviderEndpoints.challengeEndpoint],
                     contract: EndpointContract(credentials: .none, request: [.json(ChallengeRequest.self)],
                                                response: .json(ChallengeResponse.self))) { request, _ in
                let body = try await JSONBody.decode(ChallengeRequest.self, from: request)
                return try JSONBody.response(try await routes.challenge(request, body))
            },
            Endpoint(method: .get, paths: [ProviderEndpoints.consentPage], contract: .page(query: ["authorization_id"])) {
                request, _ in try await routes.consentPage(request)
            },
            Endpoint(method: .post, paths: [ProviderEndpoints.consentPage],
                     contract: .page(form: ["authorization_id", "form_token", "consent"])) { request, _ in
                try await routes.decideConsent(request, try await FormBody.fields(of: request, upTo: 16 * 1024))
            },
        ]
    }

    /// The kept authorization a page is for, and the browser it began in (whose cookie the request must carry).
    private func flow(_ request: Request, authorizationID: String?) async throws
        -> (PendingAuthorization, Project, RegisteredClient, browser: String)? {
        guard let authorizationID, let pending = try await authorization.kept(authorizationID),
              let browser = request.cookies[ProviderAuthorization.browserCookie]?.value,
              constantTimeEquals(Data(Hex.sha256(browser).utf8), Data(pending.browserHash.utf8)),
              let realm = try await projects.project(pending.realm),
              let client = try await authorization.clients.client(pending.clientID, realm: pending.realm)
        else { return nil }
        return (pending, realm, client, browser)
    }

    private static let expired = ProviderPages.error(
        heading: "This sign-in has expired", detail: "Go back to the application and start again.", status: .badRequest)

    private func signInPage(_ request: Request) async throws -> Response {
        let authorizationID = request.uri.queryParameters.get("authorization_id")
        guard let authorizationID, let (pending, realm, client, browser) = try await flow(request, authorizationID: authorizationID)
        else { return Self.expired }
        let (language, text) = ProviderPageText.forLocales(pending.uiLocales, custom: realm.settings.oauthServer?.pageText ?? [:])
        return try ProviderPages.signIn(
            ProviderPages.SignInConfiguration(
                apiKey: try await apiKey(realm.realm.projectID), tenantId: realm.realm.tenantID, authorizationId: authorizationID,
                formToken: authorization.formToken(authorizationID: authorizationID, browser: browser),
                loginHint: pending.loginHint, methods: Self.methods(of: realm.settings), text: text),
            clientName: client.settings.displayName, brand: ProviderPages.Brand(realm), language: language)
    }

    /// The methods the realm has enabled that a browser page can offer. Phone sign-in needs Flint's own captcha (or
    /// none): a siteverify service's widget is the app's to show, so with one the page offers no phone.
    static func methods(of settings: ProjectSettings) -> ProviderPages.Methods {
        let signIn = settings.signIn
        let captcha = settings.phone.appVerificationRequired
        let phone = signIn.phoneEnabled && (!captcha || settings.phone.captcha == .proofOfWork)
        let providers = settings.identityProviders
            .filter { $0.value.enabled && FederatedService.hasRedirectFlow($0.key) }
            .map { ProviderPages.FederatedButton(providerId: $0.key, name: $0.value.displayName ?? Self.providerNames[$0.key] ?? $0.key) }
            .sorted { $0.name < $1.name }
        return ProviderPages.Methods(
            password: signIn.emailPasswordEnabled, signUp: signIn.emailPasswordEnabled, emailLink: signIn.emailLinkEnabled,
            phone: phone, passkey: settings.passkeys != nil, captcha: captcha && settings.phone.captcha == .proofOfWork,
            providers: providers)
    }

    private static let providerNames = [ProviderID.google: "Google", ProviderID.gitHub: "GitHub", ProviderID.microsoft: "Microsoft"]

    /// A proof-of-work challenge for the sign-in page's SMS (phone sign-in or a second factor), only for the browser
    /// the authorization began in. The SMS itself is budgeted as every SMS is.
    private func challenge(_ request: Request, _ body: ChallengeRequest) async throws -> ChallengeResponse {
        guard let (pending, realm, _, browser) = try await flow(request, authorizationID: body.authorizationId),
              let authorizationID = body.authorizationId,
              authorization.isFromItsBrowser(pending, authorizationID: authorizationID, browser: browser, formToken: body.formToken)
        else { throw FlintError(.invalidAuthorizationID, "The sign-in has expired or began in another browser.") }
        let bits = realm.settings.phone.proofOfWorkBits
        return ChallengeResponse(challenge: try proofOfWork.challenge(projectID: realm.realm.projectID, bits: bits), bits: bits)
    }

    /// The sign-in page's user signed in: their ID token (of the realm, fresh: signed in within five minutes) begins a
    /// provider session in this browser, and the authorization goes on to consent or back to the client.
    private func beginSession(_ request: Request, _ body: SessionRequest) async throws -> Response {
        guard let (pending, _, client, browser) = try await flow(request, authorizationID: body.authorizationId),
              let authorizationID = body.authorizationId,
              authorization.isFromItsBrowser(pending, authorizationID: authorizationID, browser: browser, formToken: body.formToken)
        else { throw FlintError(.invalidAuthorizationID, "The sign-in has expired or began in another browser.") }
        let verified = try await idTokens.verifyIDToken(body.idToken, projectID: pending.realm)
        try idTokens.requireRecentSignIn(verified)
        let signIn = try Self.signIn(of: verified, for: pending)
        let (session, cookie) = try await sessions.begin(realm: pending.realm, localID: verified.user.localID, signIn: signIn)
        let outcome = try await authorization.afterSignIn(pending, client: client, session: session, authorizationID: authorizationID)
        var response = try JSONBody.response(SessionResponse(location: {
            switch outcome {
            case .redirect(let location), .interact(let location): location
            }
        }()))
        response.setCookie(cookie)
        return response
    }

    /// How a verified Firebase ID token signed its user in, for the session; refused for anonymous users (who have no
    /// identity to give) and for a sign-in older than `prompt=login` or `max_age` allow.
    static func signIn(of verified: TokenService.VerifiedIDToken, for pending: PendingAuthorization) throws
        -> ProviderSessions.SignIn {
        let claims = verified.claims
        guard claims.firebase.signInProvider != ProviderID.anonymous else {
            throw FlintError(.operationNotAllowed, "A guest account cannot sign in to an application.")
        }
        if pending.prompts.contains("login"), claims.authTime < pending.startedAt {
            throw FlintError(.credentialTooOld, "The application asked for a new sign-in.")
        }
        let amr = ProviderSessions.methods(signInProvider: claims.firebase.signInProvider,
                                           secondFactor: claims.firebase.signInSecondFactor)
        return ProviderSessions.SignIn(authTime: claims.authTime, amr: amr, acr: AuthenticationLevel(amr: amr).rawValue)
    }

    private func consentPage(_ request: Request) async throws -> Response {
        let authorizationID = request.uri.queryParameters.get("authorization_id")
        guard let authorizationID, let (pending, realm, client, browser) = try await flow(request, authorizationID: authorizationID)
        else { return Self.expired }
        guard let session = try await sessions.session(in: request, realm: pending.realm) else {
            return Self.redirect(.interact(RedirectURI.adding([("authorization_id", authorizationID)], to: ProviderEndpoints.signInPage)))
        }
        let account = try await grants.accounts.user(projectID: pending.realm, localID: session.localID)
        let (language, text) = ProviderPageText.forLocales(pending.uiLocales, custom: realm.settings.oauthServer?.pageText ?? [:])
        // A step-up asks only for what the user has not granted this client yet (all again with prompt=consent).
        let granted = pending.prompts.contains("consent") ? [] : Set(
            (try await grants.store.grantedScopes(realm: pending.realm, localID: session.localID, clientID: client.clientID) ?? "")
                .split(separator: " ").map(String.init))
        let asked = pending.scopes.filter { !granted.contains($0) }
        // A resource's scope is named beside the resource it is for.
        let requested = Set(pending.resources ?? [])
        let resourceNames = Dictionary(realm.settings.oauthResources.filter { requested.contains($0.resource) }
            .flatMap { resource in resource.scopes.map { ($0, resource.displayName) } }, uniquingKeysWith: { first, _ in first })
        return ProviderPages.consent(
            clientName: client.settings.displayName, ownerName: client.settings.ownerName,
            scopes: asked.isEmpty ? pending.scopes : asked, resourceNames: resourceNames,
            account: account?.email ?? account?.phoneNumber ?? account?.displayName ?? session.localID,
            authorizationID: authorizationID, formToken: authorization.formToken(authorizationID: authorizationID, browser: browser),
            redirectURI: pending.redirectURI, brand: ProviderPages.Brand(realm), text: text, language: language)
    }

    /// The consent form's answer: only from the browser the authorization began in, with its page's form token.
    private func decideConsent(_ request: Request, _ form: [String: String]) async throws -> Response {
        let authorizationID = form["authorization_id"]
        guard let authorizationID, let (pending, _, _, browser) = try await flow(request, authorizationID: authorizationID),
              authorization.isFromItsBrowser(pending, authorizationID: authorizationID, browser: browser, formToken: form["form_token"])
        else {
            return ProviderPages.error(heading: "This consent was not accepted",
                                       detail: "The form has expired or was sent from elsewhere. Go back to the application and start again.",
                                       status: .forbidden)
        }
        guard let session = try await sessions.session(in: request, realm: pending.realm) else { return Self.expired }
        switch form["consent"] {
        case "allow":
            try await authorization.recordConsent(pending, localID: session.localID)
            return Self.redirect(.redirect(try await authorization.issueCode(
                pending, localID: session.localID, signIn: session.signIn, sid: session.sid, authorizationID: authorizationID)))
        case "deny":
            return Self.redirect(.redirect(try await authorization.deny(pending, authorizationID: authorizationID)))
        default:
            return ProviderPages.error(heading: "Choose Allow or Deny", detail: "The form did not say.", status: .badRequest)
        }
    }

    // MARK: The team's own sign-in page

    var teamPageEndpoints: [Endpoint] {
        let routes = self
        return [
            .json(Endpoint.identityToolkitPaths(version: "v2", "oauth/authorizations:get")) {
                (body: OAuthAuthorizationLookupRequest, caller: Caller) in
                let (pending, client) = try await routes.teamFlow(body.authorizationId, caller: caller)
                return OAuthAuthorizationDetails(
                    authorizationId: body.authorizationId ?? "", clientId: client.clientID, clientName: client.settings.displayName,
                    ownerName: client.settings.ownerName, logoUri: client.settings.logoURI, scopes: pending.scopes,
                    loginHint: pending.loginHint)
            },
            .json(Endpoint.identityToolkitPaths(version: "v2", "oauth/authorizations:approve")) {
                (body: OAuthAuthorizationDecisionRequest, caller: Caller) in
                try await routes.approve(body, caller: caller)
            },
            .json(Endpoint.identityToolkitPaths(version: "v2", "oauth/authorizations:deny")) {
                (body: OAuthAuthorizationDecisionRequest, caller: Caller) in
                let (pending, _) = try await routes.teamFlow(body.authorizationId, caller: caller)
                _ = try await routes.idTokens.verifyIDToken(body.idToken, projectID: caller.projectID)
                return OAuthAuthorizationDecisionResponse(
                    redirectUri: try await routes.authorization.deny(pending, authorizationID: body.authorizationId ?? ""))
            },
        ]
    }

    /// A kept authorization of the caller's realm.
    private func teamFlow(_ authorizationID: String?, caller: Caller) async throws -> (PendingAuthorization, RegisteredClient) {
        guard let pending = try await authorization.kept(authorizationID), pending.realm == caller.projectID,
              let client = try await authorization.clients.client(pending.clientID, realm: pending.realm)
        else { throw FlintError(.invalidAuthorizationID) }
        return (pending, client)
    }

    /// The team's page signed its user in and asked them: the user's consent is recorded and the client gets its code.
    private func approve(_ body: OAuthAuthorizationDecisionRequest, caller: Caller) async throws -> OAuthAuthorizationDecisionResponse {
        let (pending, _) = try await teamFlow(body.authorizationId, caller: caller)
        let verified = try await idTokens.verifyIDToken(body.idToken, projectID: caller.projectID)
        let signIn = try Self.signIn(of: verified, for: pending)
        if let maxAge = pending.maxAge, clock.seconds - signIn.authTime > maxAge {
            throw FlintError(.credentialTooOld, "The application asked for a sign-in within \(maxAge) seconds.")
        }
        if pending.requiresMultiFactor, AuthenticationLevel(rawValue: signIn.acr) != .multiFactor {
            throw FlintError(.credentialTooOld, "The application asked for a sign-in with a second factor.")
        }
        try await authorization.recordConsent(pending, localID: verified.user.localID)
        return OAuthAuthorizationDecisionResponse(redirectUri: try await authorization.issueCode(
            pending, localID: verified.user.localID, signIn: signIn, sid: nil, authorizationID: body.authorizationId))
    }
}
