import FlintWire
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The web console at `/console`: server-rendered pages whose forms change users and project settings
/// through the same services the Admin API uses, so every rule (claims limits, test-number count,
/// region codes, …) holds here too.
///
/// Every request needs a session (`ConsoleSessions`); every POST also needs the session's anti-CSRF
/// token and, when the browser says where it comes from (`Origin`, `Sec-Fetch-Site`), this origin. A
/// successful POST redirects (303) to its page with a notice (or, to show a secret once, answers with the page);
/// a refused one shows the page again with the error and what was typed.
struct ConsoleRoutes: Sendable {
    let core: ServerCore
    let sessions: ConsoleSessions
    let accounts: AccountService
    let projectConfig: ProjectConfigService
    let identityProviders: IdentityProviderConfigService
    let samlProviders: SAMLProviderConfigService
    let usage: UsageCounters
    let oauthClients: OAuthClientRegistry
    /// The users' consents the user page lists and revokes.
    let oauthConsents: OAuthConsents
    /// The users' sessions the user page lists and ends, as the admin API does.
    let userSessions: SessionRoutes

    var projects: ProjectDirectory { core.projects }
    var store: Store { core.store }
    var maxTestNumbers: Int { core.configuration.phoneLimits.maxTestNumbers }
    var policy: ModePolicy { core.policy }
    var clock: any FlintClock { core.clock }

    /// What a successful action says on the page it returns to.
    enum Notice: String {
        case saved, userDisabled, userEnabled, sessionsRevoked, userDeleted, passkeyRemoved, numberAdded, numberRemoved, projectSwitched
        case tenantCreated, tenantDeleted, tenantOpened, tenantClosed, samlProviderDeleted
        case oauthClientCreated, oauthClientSecretRotated, oauthClientDeleted, appRevoked, oauthResourceCreated, oauthResourceDeleted, sessionEnded

        var text: String {
            switch self {
            case .saved: "Saved."
            case .userDisabled: "The account is disabled: its sign-ins and token refreshes now fail."
            case .userEnabled: "The account is enabled again."
            case .sessionsRevoked: "The user's sessions are revoked: every device must sign in again."
            case .userDeleted: "The user was deleted."
            case .passkeyRemoved: "The passkey was removed: it no longer signs in."
            case .numberAdded: "Test number added."
            case .numberRemoved: "Test number removed."
            case .projectSwitched: "Switched project."
            case .tenantCreated: "Tenant created."
            case .tenantDeleted: "The tenant was deleted, with its users."
            case .tenantOpened: "Tenant opened: users, sign-in methods, OAuth clients, test phone numbers and the dashboard are now the tenant's."
            case .tenantClosed: "Back to the project."
            case .samlProviderDeleted: "The SAML provider was deleted, with its SP key."
            case .oauthClientCreated: "OAuth client created."
            case .oauthClientSecretRotated: "New secret made: the old one no longer works."
            case .appRevoked: "The application's access was revoked: its consent and its tokens for the user are gone."
            case .oauthClientDeleted: "The OAuth client was deleted: it signs no one in any more, and its secret no longer works."
            case .oauthResourceCreated: "OAuth resource created."
            case .oauthResourceDeleted: "The OAuth resource was deleted: clients can no longer ask tokens for it."
            case .sessionEnded: "The session was ended: its refresh token no longer works, and that device must sign in again."
            }
        }
    }

    /// Where an action's browser goes next, and the session it continues with when the action changed it.
    struct Outcome {
        var notice: Notice
        var location: String
        var session: ConsoleSessions.Session? = nil
        /// A page to answer with (200) instead of redirecting to `location`: for what must go neither into an address
        /// nor into a page that can be fetched again, an OAuth client's secret, shown once. Like every console answer
        /// it is `no-store`.
        var page: String? = nil
    }

    typealias Form = [String: String]

    var endpoints: [Endpoint] {
        let routes = self
        var endpoints = [
            Endpoint(method: .get, paths: ["/console"], contract: .init(credentials: .none, response: .redirect)) { _, _ in
                Self.redirect("/console/users")
            },
            Endpoint(method: .get, paths: ["/console/login"], contract: .page()) { request, _ in
                try await routes.loginPage(request, error: nil)
            },
            Endpoint(method: .post, paths: ["/console/login"], contract: .page(form: ["challenge", "assertion"])) { request, _ in
                try await routes.signIn(request)
            },
            Endpoint(method: .post, paths: ["/console/logout"], contract: .page(credentials: .consoleSession, form: [])) {
                request, _ in try await routes.signOut(request)
            },
        ]
        let pages: [(String, Page)] = [
            ("/console/users", .users), ("/console/users/:uid", .user), ("/console/sign-in", .signIn),
            ("/console/test-numbers", .testNumbers), ("/console/settings", .settings), ("/console/templates", .templates),
            ("/console/dashboard", .dashboard), ("/console/tenants", .tenants), ("/console/oauth-clients", .oauthClients),
            ("/console/oauth-resources", .oauthResources), (Self.auditPath, .audit),
        ]
        for provider in Self.clientProviders {
            endpoints.append(action("/console/sign-in/\(provider.slug)", page: .signIn) { form, context in
                try await routes.saveClientProvider(provider, form, context)
            })
        }
        for (path, page) in pages {
            // The Audit page reads the admin API's audit query (`ConsoleAudit`).
            let query = page == .audit ? AuditRoutes.queryParameters : ["project", "q", "after", "before"]
            endpoints.append(Endpoint(method: .get, paths: [path], contract: .page(credentials: .consoleSession, query: query)) { request, context in
                try await routes.show(page, request: request, userID: Self.uid(context))
            })
        }
        endpoints += [
            action("/console/project", page: .users) { form, context in try await routes.switchProject(form, context) },
            action("/console/users/:uid/:operation", page: .user) { form, context in try await routes.changeUser(form, context) },
            action("/console/sign-in/methods", page: .signIn) { form, context in try await routes.saveMethods(form, context) },
            action("/console/sign-in/apple", page: .signIn) { form, context in try await routes.saveApple(form, context) },
            action("/console/sign-in/saml", page: .signIn) { form, context in try await routes.saveSAMLProvider(form, context) },
            action("/console/sign-in/saml/delete", page: .signIn) { form, context in try await routes.deleteSAMLProvider(form, context) },
            action("/console/test-numbers/add", page: .testNumbers) { form, context in try await routes.addNumber(form, context) },
            action("/console/test-numbers/remove", page: .testNumbers) { form, context in
                try await routes.removeNumber(form, context)
            },
            action("/console/settings/domains", page: .settings) { form, context in try await routes.saveDomains(form, context) },
            action("/console/settings/privacy", page: .settings) { form, context in try await routes.savePrivacy(form, context) },
            action("/console/settings/sms-regions", page: .settings) { form, context in try await routes.saveRegions(form, context) },
            action("/console/settings/mfa", page: .settings) { form, context in try await routes.saveMultiFactor(form, context) },
            action("/console/settings/passkeys", page: .settings) { form, context in try await routes.savePasskeys(form, context) },
            action("/console/settings/apps", page: .settings) { form, context in try await routes.saveApps(form, context) },
            action("/console/templates", page: .templates) { form, context in try await routes.saveTemplate(form, context) },
            action("/console/tenants", page: .tenants) { form, context in try await routes.createTenant(form, context) },
            action("/console/tenants/open", page: .tenants) { form, context in try await routes.openTenant(form, context) },
            action("/console/tenants/close", page: .tenants) { _, context in routes.closeTenant(context) },
            action("/console/tenants/delete", page: .tenants) { form, context in try await routes.deleteTenant(form, context) },
            action("/console/oauth-clients", page: .oauthClients) { form, context in try await routes.createOAuthClient(form, context) },
            action("/console/oauth-clients/rotate-secret", page: .oauthClients) { form, context in
                try await routes.rotateOAuthClientSecret(form, context)
            },
            action("/console/oauth-clients/delete", page: .oauthClients) { form, context in
                try await routes.deleteOAuthClient(form, context)
            },
            action("/console/oauth-resources", page: .oauthResources) { form, context in
                try await routes.createOAuthResource(form, context)
            },
            action("/console/oauth-resources/delete", page: .oauthResources) { form, context in
                try await routes.deleteOAuthResource(form, context)
            },
        ]
        return endpoints
    }

    // MARK: Signing in and out

    private func loginPage(_ request: Request, error: String?, status: HTTPResponse.Status = .ok) async throws -> Response {
        if error == nil, (try? await sessions.session(cookie: request.cookies[ConsoleSessions.sessionCookie]?.value)) != nil {
            return Self.redirect("/console/users")
        }
        let challenge = try sessions.newChallenge()
        let html = try ConsoleLoginPage.html(
            configuration: .init(audience: sessions.audience(publicURL: core.publicURL), challenge: challenge, now: clock.seconds,
                                 chooseFile: "Choose the key file first.",
                                 unreadable: "That file is not a service-account key file (JSON with private_key)."),
            ownerSignIn: policy.ownerTokenIsAdmin, error: error)
        var response = Self.html(html, status: status, contentSecurityPolicy: policy.ownerTokenIsAdmin
            ? Self.contentSecurityPolicy : Self.loginContentSecurityPolicy)
        response.setCookie(cookie(ConsoleSessions.challengeCookie, challenge, path: "/console/login", maxAge: 300))
        return response
    }

    private func signIn(_ request: Request) async throws -> Response {
        guard Self.isSameOrigin(request) else { return Self.forbidden() }
        let form = try await Self.form(of: request)
        let session: ConsoleSessions.Session
        do {
            session = try await sessions.signIn(
                challenge: form["challenge"], cookieChallenge: request.cookies[ConsoleSessions.challengeCookie]?.value,
                assertion: form["assertion"], publicURL: core.publicURL)
        } catch ConsoleSessions.Refusal.signInFailed(let reason) {
            return try await loginPage(request, error: reason, status: .unauthorized)
        }
        var response = Self.redirect("/console/users")
        response.setCookie(cookie(ConsoleSessions.sessionCookie, try sessions.cookieValue(of: session), path: "/console",
                                  maxAge: Int(ConsoleSessions.lifetimeSeconds)))
        response.setCookie(cookie(ConsoleSessions.challengeCookie, "", path: "/console/login", maxAge: 0))
        return response
    }

    private func signOut(_ request: Request) async throws -> Response {
        guard Self.isSameOrigin(request) else { return Self.forbidden() }
        if let session = try? await sessions.session(cookie: request.cookies[ConsoleSessions.sessionCookie]?.value) {
            guard ConsoleSessions.isValid(csrfToken: try await Self.form(of: request)["csrf"], for: session) else {
                return Self.forbidden()
            }
            try await sessions.signOut(session)
        }
        var response = Self.redirect("/console/login")
        response.setCookie(cookie(ConsoleSessions.sessionCookie, "", path: "/console", maxAge: 0))
        return response
    }

    // MARK: Pages, and the frame of every action

    /// The signed-in context of a request for `page`, or the refusal to answer with: the session's open tenant, or
    /// on a project-wide page (`Page.isProjectWide`) and when none is open, its project.
    private func context(_ request: Request, page: Page, query: Form) async throws -> ConsoleContext {
        let session = try await sessions.session(cookie: request.cookies[ConsoleSessions.sessionCookie]?.value)
        AuditScope.current?.principal = .console(keyID: session.keyID)
        let realm = Realm(key: session.projectID)
        let project = policy.createsProjectsOnDemand ? try await projects.ensureProject(realm.projectID) : try await projects.project(realm.projectID)
        guard let project else { throw ConsoleSessions.Refusal.signInRequired }
        // Never made on demand: a tenant deleted while open (by another session) leaves this one in the project.
        let tenant = realm.tenantID == nil ? nil : try await projects.project(realm.key)
        return ConsoleContext(
            session: session, project: page.isProjectWide ? project : tenant ?? project, tenant: tenant,
            projectIDs: session.isOwner ? try await store.settings.projectIDs() : [project.id], mode: policy.mode, query: query,
            notice: query["notice"].flatMap(Notice.init(rawValue:))?.text, error: nil)
    }

    private func show(_ page: Page, request: Request, userID: String?) async throws -> Response {
        var query: Form = [:]
        for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
        let context: ConsoleContext
        do {
            context = try await self.context(request, page: page, query: query)
        } catch ConsoleSessions.Refusal.signInRequired {
            return Self.redirect("/console/login")
        }
        do {
            return Self.html(try await render(page, context: context, userID: userID))
        } catch let error as FlintError where page == .user {
            var missing = context
            missing.error = error.message
            return Self.html(try await render(.users, context: missing), status: .notFound)
        }
    }

    /// A POST endpoint: checks the session, origin and token, runs `perform`, then redirects to the
    /// outcome (or answers with its page), or shows `page` again with the error.
    private func action(_ path: String, page: Page,
                        _ perform: @escaping @Sendable (Form, ConsoleContext) async throws -> Outcome) -> Endpoint {
        Endpoint(method: .post, paths: [path], contract: .page(credentials: .consoleSession, form: [])) { request, requestContext in
            guard Self.isSameOrigin(request) else { return Self.forbidden() }
            let form = try await Self.form(of: request)
            var context: ConsoleContext
            do {
                context = try await self.context(request, page: page, query: form)
            } catch ConsoleSessions.Refusal.signInRequired {
                return Self.redirect("/console/login")
            }
            guard ConsoleSessions.isValid(csrfToken: form["csrf"], for: context.session) else { return Self.forbidden() }
            context.notice = nil
            var parameters = form
            parameters["uid"] = Self.uid(requestContext)
            parameters["operation"] = requestContext.parameters.get("operation")
            do {
                let outcome = try await perform(parameters, context)
                let separator = outcome.location.contains("?") ? "&" : "?"
                var response = outcome.page.map { Self.html($0) }
                    ?? Self.redirect(outcome.location + separator + "notice=" + outcome.notice.rawValue)
                if let session = outcome.session {
                    response.setCookie(cookie(ConsoleSessions.sessionCookie, try sessions.cookieValue(of: session),
                                              path: "/console", maxAge: Int(session.expiresAt - clock.seconds)))
                }
                return response
            } catch let error as FlintError {
                context.error = error.message
                if let project = try await projects.project(context.project.id) { context.project = project }
                return Self.html(try await render(page, context: context, userID: parameters["uid"]), status: .badRequest)
            }
        }
    }

    // MARK: HTTP

    /// The uid of a user's page or action, as its links escape it (`FormURLEncoding.escape`): the router hands the path
    /// segment over as sent, so a uid holding `@` or `+` would name no user.
    private static func uid(_ context: FlintRequestContext) -> String? {
        context.parameters.get("uid").map { $0.removingPercentEncoding ?? $0 }
    }

    /// Form fields of a POST (URL-encoded, at most 64 KiB).
    private static func form(of request: Request) async throws -> Form {
        try await FormBody.fields(of: request, upTo: 1 << 16)
    }

    /// False when the browser says the request comes from another site: `Sec-Fetch-Site` other than
    /// same-origin (or none, a typed address), or an `Origin` whose host and port are not this request's.
    static func isSameOrigin(_ request: Request) -> Bool {
        if let site = request.headers[secFetchSite], site != "same-origin", site != "none" { return false }
        guard let origin = request.headers[.origin] else { return true }
        guard let hostAndPort = origin.split(separator: "://", maxSplits: 1).last, origin.contains("://"),
              let authority = request.head.authority
        else { return false }
        return hostAndPort.lowercased() == authority.lowercased()
    }

    private func cookie(_ name: String, _ value: String, path: String, maxAge: Int) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: path, secure: core.publicURL.hasPrefix("https://"),
               httpOnly: true, sameSite: .strict)
    }

    private static func redirect(_ location: String) -> Response {
        var headers = HostedPage.securityHeaders(contentSecurityPolicy: contentSecurityPolicy, referrerPolicy: referrerPolicy)
        headers[.location] = location
        return Response(status: .seeOther, headers: headers)
    }

    private static func forbidden() -> Response {
        html(ConsoleHTML.document(page: "forbidden", title: "Refused", body: """
            <main class="login"><h1>Request refused</h1>
            <p id="error" role="alert">This form was not sent from the console's own page, or it has expired.
            Go back, reload the page and try again.</p>
            <p><a href="/console">Back to the console</a></p></main>
            """), status: .forbidden)
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok,
                     contentSecurityPolicy: String = contentSecurityPolicy) -> Response {
        HostedPage.response(text, status: status, contentSecurityPolicy: contentSecurityPolicy, referrerPolicy: referrerPolicy)
    }

    /// Not `no-referrer`: under it browsers send `Origin: null` with form posts, and the origin check needs
    /// the real one. Other sites still learn nothing.
    private static let referrerPolicy = "same-origin"

    /// The console's policy: its stylesheet by hash, forms to itself, nothing else.
    static let contentSecurityPolicy = policy(scriptSource: "'none'")
    /// The sign-in page's: the same, and its script by hash.
    static let loginContentSecurityPolicy = policy(scriptSource: "'\(HostedPage.hash(ConsoleLoginPage.script))'")

    private static func policy(scriptSource: String) -> String {
        [
            "default-src 'none'", "style-src '\(HostedPage.hash(ConsoleHTML.style))'", "script-src \(scriptSource)",
            "img-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'",
        ].joined(separator: "; ")
    }

    private static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
}
