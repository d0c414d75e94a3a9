import FlintWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The OpenID provider of every project and tenant (production mode): discovery, the authorization, token, userinfo,
/// revocation, introspection and logout endpoints under each issuer, Flint's sign-in and consent pages, and the calls
/// the team's own sign-in page makes. The rules are in `ProviderAuthorization` and `ProviderGrants`; this table reads
/// requests and writes answers.
struct ProviderRoutes: Sendable {
    let authorization: ProviderAuthorization
    let grants: ProviderGrants
    let sessions: ProviderSessions
    let tokens: OAuthTokens
    let idTokens: TokenService
    let projects: ProjectDirectory
    let budgets: BudgetLedger
    let keyring: SigningKeyring
    let clock: any FlintClock
    let random: any RandomSource
    let address: PublicAddress
    /// Flint's captcha, which the sign-in page solves before it asks for an SMS.
    let proofOfWork: ProofOfWork
    let apiKey: @Sendable (String) async throws -> String

    // MARK: The route table

    var endpoints: [Endpoint] {
        let routes = self
        let metadataPaths = ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"].flatMap { document in
            ProviderEndpoints.paths(document) + ["\(document)/:projectId", "\(document)/:projectId/tenants/:tenantId"]
        }
        let protocolErrors = EndpointContract.Failure.oauth
        return [
            Endpoint(method: .get, paths: metadataPaths, contract: EndpointContract(credentials: .none, response: .anyJSONObject)) {
                _, context in try await routes.metadata(context)
            },
            Endpoint(method: .get, paths: ProviderEndpoints.paths(ProviderEndpoints.authorize),
                     contract: .page(query: Self.authorizationParameters), budgets: Self.authorizationBudgets) { request, context, _ in
                try await routes.authorize(request, context, fields: Self.query(request))
            },
            Endpoint(method: .post, paths: ProviderEndpoints.paths(ProviderEndpoints.authorize),
                     contract: .page(form: Self.authorizationParameters), budgets: Self.authorizationBudgets) { request, context, _ in
                try await routes.authorize(request, context, fields: try await FormBody.fields(of: request, upTo: 64 * 1024,
                                                                                               joining: Self.repeatable))
            },
            Endpoint(method: .post, paths: ProviderEndpoints.paths(ProviderEndpoints.token),
                     contract: EndpointContract(
                        credentials: .none, request: [.form(["grant_type", "code", "redirect_uri", "code_verifier", "refresh_token",
                                                             "scope", "resource", "client_id", "client_secret",
                                                             "client_assertion_type", "client_assertion"])],
                        response: .json(ProviderGrants.TokenResponse.self), failure: protocolErrors),
                     budgets: [.oauthTokenRequestsPerAddress, .oauthTokenRequestsPerClient, .oauthClientAuthenticationFailures]) {
                request, context, _ in
                try await routes.backChannel(request, context) { grantRequest, realm in
                    JSONBody.noStore(try JSONBody.response(try await routes.grants.token(grantRequest, realm: realm)))
                }
            },
            Endpoint(method: .post, paths: ProviderEndpoints.paths(ProviderEndpoints.revoke),
                     contract: EndpointContract(
                        credentials: .none, request: [.form(["token", "token_type_hint", "client_id", "client_secret", "client_assertion_type", "client_assertion"])],
                        response: .anyJSONObject, failure: protocolErrors),
                     budgets: [.oauthTokenRequestsPerAddress, .oauthClientAuthenticationFailures]) { request, context, _ in
                try await routes.backChannel(request, context) { grantRequest, realm in
                    try await routes.grants.revoke(grantRequest, realm: realm)
                    return JSONBody.noStore(JSONBody.response(data: Data("{}".utf8)))
                }
            },
            Endpoint(method: .post, paths: ProviderEndpoints.paths(ProviderEndpoints.introspect),
                     contract: EndpointContract(
                        credentials: .none, request: [.form(["token", "token_type_hint", "client_id", "client_secret", "client_assertion_type", "client_assertion"])],
                        response: .anyJSONObject, failure: protocolErrors),
                     budgets: [.oauthTokenRequestsPerAddress, .oauthClientAuthenticationFailures]) { request, context, _ in
                try await routes.backChannel(request, context) { grantRequest, realm in
                    JSONBody.noStore(try JSONBody.response(JSONValue.object(try await routes.grants.introspect(grantRequest, realm: realm))))
                }
            },
            Endpoint(method: .get, paths: ProviderEndpoints.paths(ProviderEndpoints.userinfo),
                     contract: EndpointContract(credentials: .none, response: .anyJSONObject, failure: protocolErrors)) {
                request, context in try await routes.userinfo(request, context, formToken: nil)
            },
            Endpoint(method: .post, paths: ProviderEndpoints.paths(ProviderEndpoints.userinfo),
                     contract: EndpointContract(credentials: .none, request: [.form(["access_token"])], response: .anyJSONObject,
                                                failure: protocolErrors)) { request, context in
                let fields = request.headers[.contentType]?.contains("application/x-www-form-urlencoded") == true
                    ? try await FormBody.fields(of: request, upTo: 16 * 1024) : [:]
                return try await routes.userinfo(request, context, formToken: fields["access_token"])
            },
            Endpoint(method: .get, paths: ProviderEndpoints.paths(ProviderEndpoints.logout),
                     contract: .page(query: Self.logoutParameters)) { request, context in
                try await routes.logout(request, context, fields: Self.query(request))
            },
            Endpoint(method: .post, paths: ProviderEndpoints.paths(ProviderEndpoints.logout),
                     contract: .page(form: Self.logoutParameters)) { request, context in
                try await routes.logout(request, context, fields: try await FormBody.fields(of: request, upTo: 64 * 1024))
            },
        ] + pageEndpoints + teamPageEndpoints + deviceEndpoints + registrationEndpoints
    }

    static let authorizationParameters = [
        "response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge", "code_challenge_method",
        "prompt", "max_age", "login_hint", "ui_locales", "acr_values", "response_mode", "resource",
    ]
    static let logoutParameters = ["id_token_hint", "client_id", "post_logout_redirect_uri", "state", "ui_locales"]
    static let authorizationBudgets: [Budget] = [.oauthAuthorizationsPerAddress, .oauthAuthorizationsPerClient]

    /// The query's parameters, form-decoded (RFC 6749 Appendix B: `+` is a space, as clients write scopes), the first
    /// value of each name.
    private static func query(_ request: Request) -> [String: String] {
        FormBody.fields(of: request.uri.query ?? "", joining: repeatable)
    }

    /// The parameters a request may repeat: RFC 8707's `resource`.
    static let repeatable: Set<String> = ["resource"]

    // MARK: Realms

    /// The project or tenant whose issuer the path names; production serves the provider only (the emulator's tokens
    /// name Google's issuer, which no discovery document here could claim).
    func realm(_ context: FlintRequestContext) async throws -> Project {
        guard let projectID = context.parameters.get("projectId"), !projectID.contains("/"),
              let project = try await projects.project(projectID)
        else { throw FlintError.notFound }
        guard let tenantID = context.parameters.get("tenantId") else { return project }
        guard Realm.isValidTenantID(tenantID), let tenant = try await projects.project(Realm(projectID: projectID, tenantID: tenantID).key),
              tenant.settings.tenant?.disableAuth != true
        else { throw FlintError.notFound }
        return tenant
    }

    private func metadata(_ context: FlintRequestContext) async throws -> Response {
        let realm = try await realm(context)
        let customScopes = realm.settings.oauthServer.map { Array($0.customClaimScopes.keys) } ?? []
        let scopes = Array(Set(OAuthClientRegistry.defaultScopes + customScopes)).sorted()
        let document = ProviderMetadata.document(issuer: tokens.issuer(realm: realm.id),
                                                 jwksURI: address.url + "/.well-known/jwks.json", scopes: scopes,
                                                 registration: realm.settings.oauthServer?.dynamicRegistration != nil,
                                                 metadataDocuments: realm.settings.oauthServer?.clientMetadataDocuments == true)
        var response = try JSONBody.response(JSONValue.object(document))
        response.headers[.cacheControl] = "public, max-age=300"
        return response
    }

    // MARK: The authorization endpoint

    private func authorize(_ request: Request, _ context: FlintRequestContext, fields: [String: String]) async throws -> Response {
        let realm = try await realm(context)
        let client = RequestClient.current
        let (browser, newBrowser) = browserID(request)
        var response: Response
        do {
            try await budgets.spend(.oauthAuthorizationsPerAddress, in: realm.id, for: client.ipAddress.map(ClientAddress.limitKey) ?? "unknown")
            let (pending, registered) = try await authorization.check(
                fields, realm: realm.id, settings: realm.settings, browser: browser,
                uiLocalesDefault: client.locale.map { [$0] } ?? [])
            try await budgets.spend(.oauthAuthorizationsPerClient, in: realm.id, for: registered.clientID)
            response = try await proceed(with: pending, client: registered, request: request, realm: realm)
        } catch ProviderAuthorization.Refusal.page(let reason) {
            response = ProviderPages.error(heading: "This sign-in cannot continue", detail: reason, status: .badRequest)
        } catch ProviderAuthorization.Refusal.redirect(let location) {
            response = Self.redirect(.redirect(location))
        } catch let error as FlintError where error.status == .tooManyRequests || error.is(.tooManyAttempts) {
            response = ProviderPages.error(heading: "Please wait", detail: "Too many sign-ins were started; try again in a minute.",
                                           status: .tooManyRequests)
        }
        if newBrowser { response.setCookie(browserCookie(browser)) }
        return response
    }

    /// Where `pending` sends the browser: back to the client at once when the browser's session and the user's consents
    /// answer it, else to the sign-in page (the team's or Flint's) or the consent page.
    func proceed(with pending: PendingAuthorization, client: RegisteredClient, request: Request, realm: Project) async throws
        -> Response {
        let session = try await sessions.session(in: request, realm: realm.id)
        let teamPage = realm.settings.oauthServer?.signInPageURL
        let outcome = try await authorization.decide(pending, client: client, session: session) { authorizationID in
            RedirectURI.adding([("authorization_id", authorizationID)], to: teamPage ?? ProviderEndpoints.signInPage)
        }
        return Self.redirect(outcome)
    }

    /// The browser's flow cookie, or a new one (then `isNew`, and the answer must set it).
    func browserID(_ request: Request) -> (value: String, isNew: Bool) {
        let browser = request.cookies[ProviderAuthorization.browserCookie]?.value ?? ""
        return (16...64).contains(browser.utf8.count) ? (browser, false) : (random.token(byteCount: 24), true)
    }

    func browserCookie(_ value: String) -> Cookie {
        Cookie(name: ProviderAuthorization.browserCookie, value: value, maxAge: 86_400, path: "/",
               secure: address.url.hasPrefix("https://"), httpOnly: true, sameSite: .lax)
    }

    /// A 303 to the client (or to a page); the pages' security headers, and no referrer, so neither code nor
    /// `authorization_id` leaks to whatever the next page loads.
    static func redirect(_ outcome: ProviderAuthorization.Outcome) -> Response {
        let location: String = switch outcome {
        case .redirect(let uri): uri
        case .interact(let page): page
        }
        var headers = HostedPage.securityHeaders(contentSecurityPolicy: "default-src 'none'; frame-ancestors 'none'")
        headers[.location] = location
        return Response(status: .seeOther, headers: headers)
    }

    // MARK: Back-channel endpoints

    /// Reads a token, revocation or introspection request (a form, with or without Basic credentials) and answers its
    /// OAuth errors in OAuth's shape.
    func backChannel(_ request: Request, _ context: FlintRequestContext,
                             _ body: (ProviderGrants.Request, String) async throws -> Response) async throws -> Response {
        do {
            let realm = try await realm(context)
            guard request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else {
                throw OAuthError(.invalidRequest, "The body must be application/x-www-form-urlencoded.")
            }
            let address = RequestClient.current.ipAddress.map(ClientAddress.limitKey) ?? "unknown"
            try await budgets.spendAtProtocolEndpoint(.oauthTokenRequestsPerAddress, in: realm.id, for: address)
            let fields = try await FormBody.fields(of: request, upTo: 64 * 1024, joining: Self.repeatable)
            let issuer = tokens.issuer(realm: realm.id)
            return try await body(ProviderGrants.Request(fields: fields, authorization: request.headers[.authorization],
                                                         clientAddress: address, issuer: issuer,
                                                         endpoint: issuer + "/" + (request.uri.path.split(separator: "/").last ?? "")),
                                  realm.id)
        } catch let error as OAuthError {
            return error.response
        }
    }

    private func userinfo(_ request: Request, _ context: FlintRequestContext, formToken: String?) async throws -> Response {
        do {
            let realm = try await realm(context)
            var token = formToken
            if let authorization = request.headers[.authorization] {
                let parts = authorization.split(separator: " ", maxSplits: 1)
                guard formToken == nil, parts.count == 2, parts[0].lowercased() == "bearer" else {
                    throw OAuthError(.invalidRequest, "Send the access token once, as Authorization: Bearer.")
                }
                token = String(parts[1])
            }
            return JSONBody.noStore(try JSONBody.response(JSONValue.object(try await grants.userinfo(accessToken: token, realm: realm.id))))
        } catch let error as OAuthError {
            return error.response
        }
    }

    // MARK: RP-initiated logout

    /// OpenID Connect RP-Initiated Logout 1.0: ends the browser's provider session (and the one the ID token hint
    /// names), then returns to a `post_logout_redirect_uri` only if it is registered for the hint's (or named) client;
    /// anything else shows the signed-out page, so the endpoint redirects nowhere it was not told to.
    private func logout(_ request: Request, _ context: FlintRequestContext, fields: [String: String]) async throws -> Response {
        let realm = try await realm(context)
        var hint: [String: JSONValue]?
        if let token = fields["id_token_hint"], !token.isEmpty {
            hint = await tokens.hintedIDToken(token, realm: realm.id)
            if hint == nil {
                return ProviderPages.error(heading: "Sign-out failed", detail: "The application's ID token hint is not valid.",
                                           status: .badRequest)
            }
        }
        let hintedClient = hint?["aud"]?.stringValue
        if let named = fields["client_id"], let hintedClient, named != hintedClient {
            return ProviderPages.error(heading: "Sign-out failed", detail: "client_id does not match the ID token hint.",
                                       status: .badRequest)
        }
        let cleared = try await sessions.end(in: request, realm: realm.id, sid: hint?["sid"]?.stringValue)
        var response: Response
        if let target = fields["post_logout_redirect_uri"], let clientID = hintedClient ?? fields["client_id"],
           let client = try await authorization.clients.client(clientID, realm: realm.id),
           client.settings.postLogoutRedirectURIs.contains(target) {
            response = Self.redirect(.redirect(RedirectURI.adding(fields["state"].map { [("state", $0)] } ?? [], to: target)))
        } else {
            response = ProviderPages.signedOut(brand: ProviderPages.Brand(realm))
        }
        response.setCookie(cleared)
        return response
    }
}

extension JSONBody {
    /// RFC 6749 §5.1: token answers are not cached.
    static func noStore(_ response: Response) -> Response {
        var response = response
        response.headers[.cacheControl] = "no-store"
        response.headers[.pragma] = "no-cache"
        return response
    }
}

extension ProviderRoutes {
    /// The provider, built from the core with the clients, the signing keys, Firebase's ID-token verification (the
    /// sign-in pages end with an ID token of the realm's user) and the outside HTTP client that fetches `private_key_jwt`
    /// clients' keys.
    init(core: ServerCore, clients: OAuthClientRegistry, keyring: SigningKeyring, idTokens: TokenService, http: OutsideHTTP,
         proofOfWork: ProofOfWork) {
        let address = core.address
        let tokens = OAuthTokens(keyring: keyring, clock: core.clock, random: core.random, address: address)
        let sessions = ProviderSessions(store: core.store.oauth, accounts: core.store.accounts, clock: core.clock, random: core.random,
                                        secure: { address.url.hasPrefix("https://") })
        self.init(
            authorization: ProviderAuthorization(
                clients: clients, sessions: sessions, tokens: tokens, store: core.store.oauth,
                pending: core.storedHandles(purpose: "oauth-authorization"), secrets: core.secrets, clock: core.clock,
                random: core.random),
            grants: ProviderGrants(clients: clients, tokens: tokens, store: core.store.oauth, accounts: core.store.accounts,
                                   projects: core.projects, budgets: core.budgets, clock: core.clock, random: core.random,
                                   assertions: ClientAssertions(http: http, counters: core.store.counters, clock: core.clock),
                                   counters: core.store.counters,
                                   serviceAccounts: ServiceAccountClients(store: core.store.serviceAccounts)),
            sessions: sessions, tokens: tokens, idTokens: idTokens, projects: core.projects, budgets: core.budgets,
            keyring: keyring, clock: core.clock, random: core.random, address: address, proofOfWork: proofOfWork,
            apiKey: { projectID in try await core.apiKey(forProject: projectID) })
    }
}
