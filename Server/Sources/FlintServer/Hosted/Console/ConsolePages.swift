import FlintWire
import Foundation

/// What a console page is rendered from: the signed-in session, its project or tenant, and the request's query.
struct ConsoleContext: Sendable {
    var session: ConsoleSessions.Session
    /// What the page shows and its forms change: the open tenant (a `Project` keyed by `Realm.key`), or on a
    /// project-wide page and when no tenant is open, the project.
    var project: Project
    /// The tenant the session has open, on every page (the header names it).
    var tenant: Project?
    /// The projects the operator may switch to (the emulator owner's; a service account has its own only).
    var projectIDs: [String]
    var mode: ModePolicy.Mode
    var query: [String: String]
    /// What the last action did (`#notice`), or why it failed (`#error`).
    var notice: String?
    var error: String?
    var adminCaller: Caller { Caller(project: project, isAdmin: true) }
    /// The project's ID, also while a tenant is open.
    var projectID: String { project.realm.projectID }
}

extension UserAccount {
    /// The user's place in the console's newest-first list.
    var listingKey: AccountStore.ListingKey { AccountStore.ListingKey(createdAt: createdAt, localID: localID) }
}

extension AccountStore.ListingKey {
    /// The key in a page link, `1732415884000.uid` (a uid may hold dots; the time never does).
    var token: String { "\(createdAt).\(localID)" }

    init?(token: String) {
        guard let dot = token.firstIndex(of: "."), let createdAt = Int64(token[..<dot]) else { return nil }
        self.init(createdAt: createdAt, localID: String(token[token.index(after: dot)...]))
    }
}

/// The console's pages, one function each, rendering a `ConsoleContext` into HTML.
extension ConsoleRoutes {
    /// The page a path names, with its `data-page` name.
    enum Page: String, Sendable {
        case users, user, signIn = "sign-in", testNumbers = "test-numbers", settings, templates, dashboard, tenants
        case oauthClients = "oauth-clients", oauthResources = "oauth-resources", audit

        /// Whether the page shows and changes the project even while a tenant is open. As in Identity Platform, a
        /// tenant has its own users, sign-in methods, identity providers, test numbers and OAuth clients (its issuer's),
        /// and its usage is counted under it, so those pages follow the open tenant; the settings page (its cards are
        /// mostly what tenants inherit: domains, email privacy, SMS defences), the email templates (tenants send the
        /// project's), the tenants list and the OAuth resources (which the tenants' providers serve) are the project's, and
        /// say so while a tenant is open.
        var isProjectWide: Bool { [.settings, .templates, .tenants, .oauthResources].contains(self) }
    }

    func render(_ page: Page, context: ConsoleContext, userID: String? = nil) async throws -> String {
        switch page {
        case .users: try await usersPage(context)
        case .user: try await userPage(context, uid: userID ?? "")
        case .signIn: signInPage(context)
        case .testNumbers: testNumbersPage(context)
        case .settings: settingsPage(context)
        case .templates: templatesPage(context)
        case .dashboard: try await dashboardPage(context)
        case .tenants: try await tenantsPage(context)
        case .oauthClients: try await oauthClientsPage(context)
        case .oauthResources: try await oauthResourcesPage(context)
        case .audit: try await auditPage(context)
        }
    }

    /// Above a project-wide page while a tenant is open: that the page is not the tenant's, and `detail`.
    func projectWideNote(_ context: ConsoleContext, _ detail: String) -> String {
        guard let tenantID = context.tenant?.realm.tenantID else { return "" }
        return "<p class=\"hint\" id=\"project-wide\">Project-wide: this page shows and changes project "
            + "\(HTML.escape(context.project.id)), not tenant \(HTML.escape(tenantID)). \(HTML.escape(detail))</p>"
    }

    // MARK: Users

    static let usersPerPage = 25

    /// The users list as Firebase's console shows it: newest first, a page at a time (links to the next and previous
    /// pages carry the key of the row they continue from, see `AccountStore.users(projectID:newestFirst:limit:)`), or the
    /// users a search finds by uid, email or phone number. No count of the realm's users: that would read them all.
    private func usersPage(_ context: ConsoleContext) async throws -> String {
        let search = context.query["q"]?.trimmingCharacters(in: .whitespaces) ?? ""
        let users: [UserAccount]
        let status: String
        var pager: [String] = []
        if search.isEmpty {
            let page = try await usersListing(realm: context.project.id, query: context.query)
            users = page.users
            status = users.isEmpty ? "No users yet." : "Newest first."
            pager = [("prev-page", "before", "Previous page", page.previous), ("next-page", "after", "Next page", page.next)]
                .compactMap { id, parameter, title, key in
                    key.map { "<a id=\"\(id)\" href=\"/console/users?\(parameter)=\(FormURLEncoding.escape($0.token))\">\(title)</a>" }
                }
        } else {
            users = try await store.accounts.users(projectID: context.project.id, matching: search, limit: Self.usersPerPage)
            status = users.isEmpty
                ? "No user's uid, email or phone number is or starts with \(search)."
                : "\(users.count) users with a uid, email or phone number that is or starts with \(search)"
                    + (users.count < Self.usersPerPage ? "." : " (at most \(Self.usersPerPage) of each: type more of it to narrow).")
        }
        let rows = users.map { user in
            let identifier = HTML.escape(Self.identifier(of: user))
            return (attributes: " data-uid=\"\(HTML.escape(user.localID))\"\(user.disabled ? " class=\"disabled\"" : "")", cells: [
                user.disabled ? identifier + " <span class=\"badge\">disabled</span>" : identifier,
                HTML.escape(Self.providers(of: user).joined(separator: ", ")),
                ConsoleHTML.day(milliseconds: user.createdAt), ConsoleHTML.day(milliseconds: user.lastLoginAt),
                "<a class=\"user-link\" href=\"/console/users/\(FormURLEncoding.escape(user.localID))\">\(HTML.escape(user.localID))</a>",
            ])
        }
        return ConsoleHTML.signedIn(page: Page.users.rawValue, title: "Users", context: context, content: """
            <form method="get" action="/console/users" id="user-search" class="inline">
            <div><label for="q">Search by email address, phone number or user UID</label>
            <input type="search" id="q" name="q" value="\(HTML.escape(search))" placeholder="ada@example.com, +16505550100 or a uid" size="40"></div>
            <button type="submit" id="search">Search</button>
            \(search.isEmpty ? "" : "<a href=\"/console/users\">All users</a>")
            </form>
            <p class="hint" id="list-status">\(HTML.escape(status))</p>
            \(ConsoleHTML.table(id: "users", header: ["Identifier", "Providers", "Created", "Signed In", "User UID"], rows: rows))
            \(pager.isEmpty ? "" : "<p class=\"pager\">\(pager.joined(separator: "\n"))</p>")
            """)
    }

    /// A page of the newest-first list, and the keys its links to the previous and next pages continue from.
    struct UsersListing {
        var users: [UserAccount]
        var previous: AccountStore.ListingKey?
        var next: AccountStore.ListingKey?
    }

    /// The page `query` names: the newest users, those after the key `after` (a next page), or those before the key
    /// `before` (a previous page). A page reads one user more than it shows, to tell whether another page follows; a
    /// previous page with fewer than a page of users before it is the first page (users went, or came, since).
    private func usersListing(realm: String, query: [String: String]) async throws -> UsersListing {
        let limit = Self.usersPerPage
        if let key = query["before"].flatMap(AccountStore.ListingKey.init(token:)) {
            let newer = try await store.accounts.users(projectID: realm, newestFirst: .newerThan(key), limit: limit + 1)
            if newer.count > limit {
                let users = Array(newer.suffix(limit))
                return UsersListing(users: users, previous: users.first?.listingKey, next: users.last?.listingKey)
            }
            return try await usersListing(realm: realm, query: [:])
        }
        let after = query["after"].flatMap(AccountStore.ListingKey.init(token:))
        let read = try await store.accounts.users(projectID: realm, newestFirst: after.map { .olderThan($0) } ?? .newest,
                                                  limit: limit + 1)
        let users = Array(read.prefix(limit))
        return UsersListing(users: users, previous: after.map { users.first?.listingKey ?? $0 },
                            next: read.count > limit ? users.last?.listingKey : nil)
    }

    /// Who a user is in the list: the email, else the phone number, else a linked provider's email; an account with
    /// no way to sign in again but its session is `(anonymous)`, as in Firebase's console.
    static func identifier(of user: UserAccount) -> String {
        user.email ?? user.phoneNumber ?? user.identities.lazy.compactMap(\.email).first
            ?? (user.isAnonymous ? "(anonymous)" : "–")
    }

    /// How a user signs in, by provider ID (`password`, `phone`, `google.com`, …, and `passkey`), or `anonymous`.
    static func providers(of user: UserAccount) -> [String] {
        guard !user.isAnonymous else { return ["anonymous"] }
        return user.providerUserInfo.map(\.providerId) + (user.passkeys.isEmpty ? [] : ["passkey"])
    }

    private func userPage(_ context: ConsoleContext, uid: String) async throws -> String {
        // By local id only: a uid may look like an email or a phone number.
        guard let stored = try await store.accounts.user(projectID: context.project.id, localID: uid) else {
            throw FlintError(.userNotFound)
        }
        let user = UserRecord(stored, revealPasswordHash: false)
        let disabled = user.disabled == true
        func field(_ name: String, _ id: String, _ value: String?) -> String {
            "<dt>\(HTML.escape(name))</dt><dd id=\"\(id)\">\(HTML.escape(value ?? ""))</dd>"
        }
        let identities = ConsoleHTML.table(id: "identities", header: ["Provider", "Identifier", "Email", "Name"], rows:
            (user.providerUserInfo ?? []).map { info in
                (attributes: " data-provider=\"\(HTML.escape(info.providerId))\"", cells: [
                    HTML.escape(info.providerId), HTML.escape(info.rawId ?? info.federatedId ?? info.phoneNumber ?? ""),
                    HTML.escape(info.email ?? ""), HTML.escape(info.displayName ?? ""),
                ])
            })
        let factors = ConsoleHTML.table(id: "factors", header: ["Kind", "Name", "Phone", "Enrolled"], rows:
            (user.mfaInfo ?? []).map { factor in
                (attributes: " data-enrollment=\"\(HTML.escape(factor.mfaEnrollmentId))\"", cells: [
                    factor.totpInfo != nil ? "TOTP" : "Phone", HTML.escape(factor.displayName ?? ""),
                    HTML.escape(factor.unobfuscatedPhoneInfo ?? factor.phoneInfo ?? ""), HTML.escape(factor.enrolledAt ?? ""),
                ])
            })
        let path = "/console/users/\(FormURLEncoding.escape(user.localId))"
        // From the stored account: the wire's passkeyInfo has no dates.
        let passkeys = ConsoleHTML.table(id: "passkeys", header: ["Name", "Created", "Last used", ""], rows:
            stored.passkeys.map { passkey in
                (attributes: " data-credential=\"\(HTML.escape(passkey.credentialID))\"", cells: [
                    HTML.escape(passkey.name), HTML.escape(ConsoleHTML.date(milliseconds: passkey.createdAt)),
                    HTML.escape(ConsoleHTML.date(milliseconds: passkey.lastUsedAt)),
                    ConsoleHTML.form(path + "/remove-passkey", context: context, content: """
                        <input type="hidden" name="credential" value="\(HTML.escape(passkey.credentialID))">
                        <button type="submit" class="secondary">Remove</button>
                        """),
                ])
            })
        let applications = ConsoleHTML.table(id: "applications", header: ["Application", "Client ID", "Scopes", "Granted", ""], rows:
            try await oauthConsents.grants(realm: context.project.id, localID: stored.localID).map { grant in
                (attributes: " data-client=\"\(HTML.escape(grant.clientId))\"", cells: [
                    HTML.escape(grant.clientName ?? "(deleted client)"), "<code>\(HTML.escape(grant.clientId))</code>",
                    HTML.escape(grant.scopes.joined(separator: " ")), HTML.escape(grant.grantTime),
                    ConsoleHTML.form(path + "/revoke-app", context: context, content: """
                        <input type="hidden" name="client-id" value="\(HTML.escape(grant.clientId))">
                        <button type="submit" class="secondary revoke-app">Revoke</button>
                        """),
                ])
            })
        // The user's sessions as the admin API's `…/accounts/{uid}/sessions` lists them (its realm's policy applied, an
        // OpenID provider client's sessions too); ending one is its `DELETE …/sessions/{id}`.
        let live = try await userSessions.list(realm: context.project.id, localID: stored.localID, current: nil).sessions
        let sessions = ConsoleHTML.table(id: "sessions", header: ["Signed in with", "Second factor", "Signed in", "From",
                                                                  "Last refreshed", "From", ""], rows:
            live.map { session in
                let client = session.clientId.map { "OAuth client <code>\(HTML.escape($0))</code>" }
                return (attributes: " data-session=\"\(HTML.escape(session.sessionId))\"", cells: [
                    HTML.escape(session.signInProvider), HTML.escape(session.secondFactor ?? ""), HTML.escape(session.createTime),
                    client ?? Self.origin(SessionOrigin(ipAddress: session.createIpAddress, userAgent: session.createUserAgent)),
                    HTML.escape(session.lastRefreshTime),
                    client ?? Self.origin(SessionOrigin(ipAddress: session.lastRefreshIpAddress, userAgent: session.lastRefreshUserAgent)),
                    ConsoleHTML.form(path + "/end-session", context: context, content: """
                        <input type="hidden" name="session-id" value="\(HTML.escape(session.sessionId))">
                        <button type="submit" class="secondary end-session">End session</button>
                        """),
                ])
            })
        let actions = [
            disabled
                ? ConsoleHTML.form(path + "/enable", context: context, content: "<button type=\"submit\" id=\"enable\">Enable account</button>")
                : ConsoleHTML.form(path + "/disable", context: context, content: "<button type=\"submit\" id=\"disable\" class=\"secondary\">Disable account</button>"),
            ConsoleHTML.form(path + "/revoke", context: context, content: """
                <button type="submit" id="revoke" class="secondary">Revoke sessions</button>
                <span class="hint">Signs the user out everywhere: refresh tokens stop working.</span>
                """),
            ConsoleHTML.form(path + "/delete", context: context, content: """
                \(ConsoleHTML.checkbox("confirm-delete", label: "Yes, delete this user for good", checked: false))
                <button type="submit" id="delete" class="danger">Delete user</button>
                """),
        ]
        return ConsoleHTML.signedIn(page: Page.user.rawValue, title: "User \(user.localId)", context: context, content: """
            <dl>
            \(field("UID", "user-uid", user.localId))
            \(field("Status", "user-status", disabled ? "Disabled" : "Enabled"))
            \(field("Email", "user-email", user.email.map { $0 + (user.emailVerified == true ? " (verified)" : " (not verified)") }))
            \(field("Phone", "user-phone", user.phoneNumber))
            \(field("Display name", "user-name", user.displayName))
            \(field("Created", "user-created", ConsoleHTML.date(milliseconds: user.createdAt.flatMap { Int64($0) })))
            \(field("Last sign-in", "user-last-sign-in", ConsoleHTML.date(milliseconds: user.lastLoginAt.flatMap { Int64($0) })))
            \(field("Tokens valid since", "user-valid-since", ConsoleHTML.date(milliseconds: user.validSince.flatMap { Int64($0) }.map { $0 * 1000 })))
            \(field("Custom claims", "user-claims", user.customAttributes))
            </dl>
            <h2>Identities</h2>
            \(identities)
            <h2>Second factors</h2>
            \(factors)
            <h2>Passkeys</h2>
            \(passkeys)
            <h2>Applications</h2>
            <p class="hint">The OpenID provider's clients the user has consented to. Revoking one withdraws the consent and
            every token the client holds for the user.</p>
            \(applications)
            <h2>Sessions</h2>
            <p class="hint">One per sign-in, the most recently refreshed first. Ending one signs that device out: its refresh
            token stops working at once. Revoke sessions, below, ends them all.</p>
            \(sessions)
            <h2>Activity</h2>
            \(try await userActivity(context, localID: stored.localID))
            <h2>Actions</h2>
            <section>\(actions.joined(separator: "\n"))</section>
            """)
    }

    /// Where a session was used from (or an audit event came from): its address over its user agent, escaped.
    static func origin(_ origin: SessionOrigin) -> String {
        [origin.ipAddress, origin.userAgent].compactMap { $0.flatMap { $0.isEmpty ? nil : HTML.escape($0) } }
            .joined(separator: "<br>")
    }

    // MARK: Sign-in methods

    private func signInPage(_ context: ConsoleContext) -> String {
        let settings = context.project.settings
        let apple = settings.identityProviders[ProviderID.apple]
        return ConsoleHTML.signedIn(page: Page.signIn.rawValue, title: "Sign-in methods", context: context, content: """
            \(ConsoleHTML.form("/console/sign-in/methods", context: context, id: "providers-form", card: true, content: """
                <h2>Built-in methods</h2>
                \(ConsoleHTML.checkbox("email-password", label: "Email and password", checked: settings.signIn.emailPasswordEnabled))
                \(ConsoleHTML.checkbox("email-link", label: "Email link (passwordless)", checked: settings.signIn.emailLinkEnabled))
                \(ConsoleHTML.checkbox("phone", label: "Phone (SMS code)", checked: settings.signIn.phoneEnabled))
                \(ConsoleHTML.checkbox("anonymous", label: "Anonymous", checked: settings.signIn.anonymousEnabled))
                <button type="submit" id="save-providers">Save</button>
                """))
            \(ConsoleHTML.form("/console/sign-in/apple", context: context, id: "apple-form", card: true, content: """
                <h2>Sign in with Apple <span class="hint" id="apple-status">\(apple?.enabled == true ? "Enabled" : "Disabled")</span></h2>
                \(ConsoleHTML.checkbox("apple-enabled", label: "Enabled", checked: apple?.enabled == true))
                \(ConsoleHTML.textField("apple-services-id", label: "Services ID (web sign-in)", value: apple?.clientID))
                \(ConsoleHTML.textField("apple-bundle-ids", label: "Bundle IDs (comma-separated)", value: apple?.bundleIDs.joined(separator: ", ")))
                \(ConsoleHTML.textField("apple-team-id", label: "Team ID", value: apple?.teamID))
                \(ConsoleHTML.textField("apple-key-id", label: "Key ID", value: apple?.keyID))
                \(ConsoleHTML.textArea("apple-private-key", label: "Private key (.p8), for token revocation", value: ""))
                <p class="hint">\(apple?.sealedPrivateKey == nil ? "No key stored." : "A key is stored (encrypted); leave empty to keep it.")</p>
                <button type="submit" id="save-apple">Save Apple</button>
                """))
            \(Self.clientProviders.map { clientProviderForm($0, context: context) }.joined(separator: "\n"))
            \(samlProvidersSection(context))
            """)
    }

    /// A provider configured by a client ID and secret, as its console form names it.
    struct ClientProvider: Sendable {
        var id: String
        /// The form's and its fields' prefix, and the last part of its path.
        var slug: String
        var title: String
        var clientIDLabel: String
        var secretLabel: String
    }

    static let clientProviders = [
        ClientProvider(id: ProviderID.facebook, slug: "facebook", title: "Facebook Login", clientIDLabel: "App ID", secretLabel: "App secret"),
        ClientProvider(id: ProviderID.google, slug: "google", title: "Google", clientIDLabel: "OAuth client ID (web)",
                       secretLabel: "Client secret (for the redirect flow)"),
        ClientProvider(id: ProviderID.gitHub, slug: "github", title: "GitHub", clientIDLabel: "Client ID", secretLabel: "Client secret"),
        ClientProvider(id: ProviderID.microsoft, slug: "microsoft", title: "Microsoft", clientIDLabel: "Application (client) ID",
                       secretLabel: "Client secret"),
    ]

    private func clientProviderForm(_ provider: ClientProvider, context: ConsoleContext) -> String {
        let stored = context.project.settings.identityProviders[provider.id]
        let slug = provider.slug
        return ConsoleHTML.form("/console/sign-in/\(slug)", context: context, id: "\(slug)-form", card: true, content: """
            <h2>\(HTML.escape(provider.title)) <span class="hint" id="\(slug)-status">\(stored?.enabled == true ? "Enabled" : "Disabled")</span></h2>
            \(ConsoleHTML.checkbox("\(slug)-enabled", label: "Enabled", checked: stored?.enabled == true))
            \(ConsoleHTML.textField("\(slug)-client-id", label: provider.clientIDLabel, value: stored?.clientID))
            \(ConsoleHTML.textField("\(slug)-client-secret", label: provider.secretLabel, value: nil, type: "password",
                placeholder: stored?.sealedClientSecret == nil ? nil : "stored (encrypted); leave empty to keep it",
                extra: " autocomplete=\"off\""))
            <button type="submit" id="save-\(slug)">Save \(HTML.escape(provider.title))</button>
            """)
    }

    // MARK: Test phone numbers

    private func testNumbersPage(_ context: ConsoleContext) -> String {
        let numbers = context.project.settings.phone.testNumbers.sorted { $0.key < $1.key }
        let rows = numbers.map { number, code in
            (attributes: " data-number=\"\(HTML.escape(number))\"", cells: [
                HTML.escape(number), HTML.escape(code),
                ConsoleHTML.form("/console/test-numbers/remove", context: context, content: """
                    <input type="hidden" name="number" value="\(HTML.escape(number))">
                    <button type="submit" class="secondary remove-number">Remove</button>
                    """),
            ])
        }
        return ConsoleHTML.signedIn(page: Page.testNumbers.rawValue, title: "Test phone numbers", context: context, content: """
            <p class="hint">Fictional numbers sign in with their fixed code: no SMS is sent and no limits apply.
            <span id="test-number-count">\(numbers.count)</span> of \(maxTestNumbers) used.</p>
            \(ConsoleHTML.table(id: "test-numbers", header: ["Phone number", "Code", ""], rows: rows))
            \(ConsoleHTML.form("/console/test-numbers/add", context: context, id: "add-number-form", card: true, content: """
                <div class="inline">
                <div>\(ConsoleHTML.textField("number", label: "Phone number", value: context.query["number"], placeholder: "+16505550100"))</div>
                <div>\(ConsoleHTML.textField("code", label: "Code (6 digits)", value: context.query["code"], placeholder: "123456",
                    extra: " inputmode=\"numeric\" maxlength=\"6\""))</div>
                <button type="submit" id="add-number">Add</button>
                </div>
                """))
            """)
    }

    // MARK: Settings

    private func settingsPage(_ context: ConsoleContext) -> String {
        let settings = context.project.settings
        let regionMode: String
        let regions: [String]
        switch settings.phone.regionPolicy {
        case .allowByDefault(let disallowed): (regionMode, regions) = ("allow-by-default", disallowed)
        case .allowlistOnly(let allowed): (regionMode, regions) = ("allowlist-only", allowed)
        }
        func card(_ action: String, id: String, _ content: String) -> String {
            ConsoleHTML.form(action, context: context, id: id, card: true, content: content)
        }
        return ConsoleHTML.signedIn(page: Page.settings.rawValue, title: "Settings", context: context, content: """
            \(projectWideNote(context, "Tenants use its authorized domains, email privacy and SMS defences; "
                + "a tenant's own MFA and SMS regions are set with the tenants API (v2)."))
            \(card("/console/settings/domains", id: "domains-form", """
                <h2>Authorized domains</h2>
                <p class="hint">Continue URLs and OAuth redirects may only point at these hosts. One per line.</p>
                \(ConsoleHTML.textArea("domains", label: "Domains", value: settings.authorizedDomains.joined(separator: "\n")))
                <button type="submit" id="save-domains">Save domains</button>
                """))
            \(card("/console/settings/privacy", id: "privacy-form", """
                <h2>Email enumeration protection</h2>
                \(ConsoleHTML.checkbox("enumeration-protection", label: "Do not reveal whether an email address has an account",
                                       checked: settings.improvedEmailPrivacy))
                <button type="submit" id="save-privacy">Save</button>
                """))
            \(card("/console/settings/sms-regions", id: "sms-regions-form", """
                <h2>SMS regions and defences</h2>
                <label class="check"><input type="radio" name="mode" id="regions-allow" value="allow-by-default"\(regionMode == "allow-by-default" ? " checked" : "")> Allow every region except those listed</label>
                <label class="check"><input type="radio" name="mode" id="regions-allowlist" value="allowlist-only"\(regionMode == "allowlist-only" ? " checked" : "")> Allow only the regions listed</label>
                \(ConsoleHTML.textField("regions", label: "Region codes (ISO 3166, comma-separated)", value: regions.joined(separator: ", "), placeholder: "US, CA"))
                \(ConsoleHTML.textField("daily-cap", label: "Codes a day per country calling code (empty: no cap)",
                                        value: settings.phone.regionDailyCap.map(String.init), type: "number", extra: " min=\"0\""))
                \(ConsoleHTML.textField("denied-prefixes", label: "Never send to numbers starting with (E.164, comma-separated)",
                                        value: settings.phone.deniedPrefixes.joined(separator: ", "), placeholder: "+88213"))
                <button type="submit" id="save-sms-regions">Save</button>
                """))
            \(card("/console/settings/mfa", id: "mfa-form", """
                <h2>Multi-factor authentication</h2>
                \(ConsoleHTML.checkbox("mfa-enabled", label: "Users may enroll second factors", checked: settings.multiFactor.enabled))
                \(ConsoleHTML.checkbox("mfa-phone", label: "SMS second factor", checked: settings.multiFactor.phone))
                \(ConsoleHTML.checkbox("mfa-totp", label: "Authenticator app (TOTP)", checked: settings.multiFactor.totp))
                \(ConsoleHTML.textField("totp-intervals", label: "TOTP steps accepted either side of now (0–10)",
                                        value: String(settings.multiFactor.totpAdjacentIntervals), type: "number", extra: " min=\"0\" max=\"10\""))
                <button type="submit" id="save-mfa">Save MFA</button>
                """))
            \(card("/console/settings/passkeys", id: "passkeys-form", """
                <h2>Passkeys</h2>
                <p class="hint">The relying party passkeys are bound to: a domain your sites are at or under. Besides the origins
                listed, the authorized domains under it (over https), your iOS apps and your Android apps are accepted.</p>
                \(ConsoleHTML.textField("rp-id", label: "Relying party ID", value: settings.passkeys?.rpID, placeholder: "example.com"))
                \(ConsoleHTML.textArea("origins", label: "More origins, one per line",
                                       value: (settings.passkeys?.expectedOrigins ?? []).joined(separator: "\n")))
                <button type="submit" id="save-passkeys">Save passkeys</button>
                """))
            \(card("/console/settings/apps", id: "apps-form", """
                <h2>Apps</h2>
                <p class="hint">The sign-in and app-verification pages answer only these apps, through their URL schemes;
                universal links and app links name them too. One app per line, its fields separated by commas.</p>
                \(ConsoleHTML.textArea("ios-apps", label: "iOS apps: bundle ID, team ID, OAuth client ID, app ID (the last two optional)",
                                       value: settings.apps.iOS.map(ConsoleRoutes.line(of:)).joined(separator: "\n")))
                \(ConsoleHTML.textArea("android-apps", label: "Android apps: package name, SHA-256 certificate fingerprints",
                                       value: settings.apps.android.map(ConsoleRoutes.line(of:)).joined(separator: "\n")))
                <button type="submit" id="save-apps">Save apps</button>
                """))
            """)
    }

    // MARK: Email templates

    private func templatesPage(_ context: ConsoleContext) -> String {
        let templates = context.project.settings.emailTemplates
        let forms = OobRequestType.allCases.map { type in
            let template = templates[type.rawValue]
            let id = type.rawValue.lowercased().replacingOccurrences(of: "_", with: "-")
            return ConsoleHTML.form("/console/templates", context: context, id: "template-\(id)", card: true, content: """
                <h2>\(HTML.escape(Self.templateTitle(type))) <span class="hint">\(template == nil ? "built-in wording" : "custom")</span></h2>
                <input type="hidden" name="type" value="\(type.rawValue)">
                \(ConsoleHTML.textField("\(id)-sender", name: "sender", label: "Sender name", value: template?.senderDisplayName))
                \(ConsoleHTML.textField("\(id)-subject", name: "subject", label: "Subject", value: template?.subject))
                \(ConsoleHTML.textArea("\(id)-body", name: "body", label: "Body", value: template?.body ?? "", rows: 6))
                <label class="check"><input type="checkbox" name="html" value="on"\(template?.bodyFormat.uppercased() == "HTML" ? " checked" : "")> The body is HTML</label>
                <button type="submit">Save</button>
                """)
        }
        return ConsoleHTML.signedIn(page: Page.templates.rawValue, title: "Email templates", context: context, content: """
            \(projectWideNote(context, "Tenants send these emails too."))
            <p class="hint">Placeholders: %LINK%, %EMAIL%, %NEW_EMAIL%, %APP_NAME%, %DISPLAY_NAME%.
            Leave the subject and body empty to go back to the built-in wording (in the user's language).</p>
            \(forms.joined(separator: "\n"))
            """)
    }

    static func templateTitle(_ type: OobRequestType) -> String {
        switch type {
        case .emailSignIn: "Email sign-in link"
        case .passwordReset: "Password reset"
        case .verifyEmail: "Email verification"
        case .verifyAndChangeEmail: "Email change"
        case .recoverEmail: "Email recovery"
        }
    }

    // MARK: Tenants

    /// The project's tenants (the first `TenantService.maximumPageSize`, as one page of the v2 list), each with
    /// its switches and user count, and the forms to open or delete one and to create another.
    private func tenantsPage(_ context: ConsoleContext) async throws -> String {
        let limit = TenantService.maximumPageSize
        let tenants = try await projects.tenants(of: context.projectID, after: nil, limit: limit)
        var rows: [(attributes: String, cells: [String])] = []
        for tenant in tenants {
            let id = HTML.escape(tenant.realm.tenantID ?? "")
            let profile = tenant.settings.tenant ?? TenantProfile()
            let users = try await store.accounts.userCount(projectID: tenant.id)
            let named = "<input type=\"hidden\" name=\"tenant\" value=\"\(id)\">"
            let open = tenant.id == context.tenant?.id ? "Open now" : ConsoleHTML.form("/console/tenants/open", context: context,
                content: named + "<button type=\"submit\" class=\"open-tenant\">Open</button>")
            rows.append((attributes: " data-tenant=\"\(id)\"", cells: [
                id, HTML.escape(profile.displayName ?? ""), HTML.escape(Self.signInMethods(tenant.settings).joined(separator: ", ")),
                profile.disableAuth ? "Disabled" : "Enabled", String(users), open,
                ConsoleHTML.form("/console/tenants/delete", context: context, content: """
                    \(named)
                    \(ConsoleHTML.checkbox("confirm-delete-\(id)", name: "confirm-delete", label: "Yes, with its users", checked: false))
                    <button type="submit" class="danger delete-tenant">Delete</button>
                    """),
            ]))
        }
        let count = "\(tenants.count) tenants" + (tenants.count == limit ? " (the first \(limit))" : "")
        return ConsoleHTML.signedIn(page: Page.tenants.rawValue, title: "Tenants", context: context, content: """
            <p class="hint">Each tenant has its own users, sign-in methods, identity providers, MFA and test numbers; it
            uses the project's authorized domains, email templates and password-hash key. Open one to manage its users and
            sign-in methods. <span id="tenant-count">\(count)</span></p>
            \(ConsoleHTML.table(id: "tenants", header: ["Tenant ID", "Display name", "Sign-in methods", "Status", "Users", "", ""], rows: rows))
            \(ConsoleHTML.form("/console/tenants", context: context, id: "create-tenant-form", card: true, content: """
                <h2>New tenant</h2>
                \(ConsoleHTML.textField("display-name", label: "Display name", value: context.query["display-name"], placeholder: "Acme Corp"))
                <p class="hint">Its ID is made of the display name and five random characters.</p>
                \(ConsoleHTML.checkbox("email-password", label: "Email and password sign-up", checked: context.query["email-password"] == "on"))
                \(ConsoleHTML.checkbox("email-link", label: "Email link (passwordless)", checked: context.query["email-link"] == "on"))
                \(ConsoleHTML.checkbox("anonymous", label: "Anonymous", checked: context.query["anonymous"] == "on"))
                <button type="submit" id="create-tenant">Create tenant</button>
                """))
            """)
    }

    /// The sign-in methods that are on, as the tenants list names them: the built-in ones, then the identity providers.
    private static func signInMethods(_ settings: ProjectSettings) -> [String] {
        let builtIn = [("Email/password", settings.signIn.emailPasswordEnabled), ("Email link", settings.allowsEmailLinkSignIn),
                       ("Phone", settings.signIn.phoneEnabled), ("Anonymous", settings.signIn.anonymousEnabled)]
        return builtIn.filter(\.1).map(\.0) + settings.identityProviders.filter(\.value.enabled).keys.sorted()
    }

    // MARK: Dashboard

    private func dashboardPage(_ context: ConsoleContext) async throws -> String {
        let days = try await usage.daily(projectID: context.project.id)
        let oldestFirst = Array(days.reversed())
        let dates = oldestFirst.map { Self.date(of: $0) }
        /// A series per label of `metric` (sign-ins before they had a provider show as `other`).
        func byLabel(_ metric: UsageCounters.Metric, prefix: String = "") -> [ConsoleChart.Series] {
            let counts = oldestFirst.map { $0.byLabel(metric) }
            let labels = Set(counts.flatMap(\.keys)).sorted()
            return labels.map { label in
                ConsoleChart.Series(name: prefix + (label.isEmpty ? "other" : label), counts: counts.map { $0[label] ?? 0 })
            }
        }
        func total(_ metric: UsageCounters.Metric, as name: String) -> ConsoleChart.Series {
            ConsoleChart.Series(name: name, counts: oldestFirst.map { $0.total(metric) })
        }
        let errors = oldestFirst.reduce(into: [String: Int64]()) { sums, day in
            for (code, count) in day.byLabel(.errors) { sums[code, default: 0] += count }
        }
        let rows = days.map { day in
            let date = Self.date(of: day)
            let cells = [UsageCounters.Metric.signIns, .smsSent, .smsRefused, .emailsSent, .emailsRefused, .errors]
                .map { String(day.total($0)) }
            return (attributes: " data-day=\"\(date)\"", cells: [date] + cells)
        }
        let totals = [UsageCounters.Metric.signIns, .smsSent, .emailsSent].map { metric in days.reduce(0) { $0 + $1.total(metric) } }
        let tenantNote = context.project.realm.tenantID.map { tenantID in
            "<p class=\"hint\" id=\"tenant-usage\">Tenant \(HTML.escape(tenantID))'s usage only; the project's dashboard "
                + "counts the project's own.</p>"
        } ?? ""
        return ConsoleHTML.signedIn(page: Page.dashboard.rawValue, title: "Dashboard", context: context, content: """
            <p class="hint">The last 30 days (UTC). Sign-ins count every session started: sign-ups, sign-ins and
            re-authentications. SMS and emails count messages handed to the provider; refused ones were stopped by a
            limit, the region policy or the app check before any was sent.</p>
            \(tenantNote)
            <p id="usage-totals">30-day totals: \(totals[0]) sign-ins, \(totals[1]) SMS, \(totals[2]) emails.</p>
            \(ConsoleChart.dailyBars(id: "chart-sign-ins", title: "Sign-ins by provider", days: dates, series: byLabel(.signIns)))
            \(ConsoleChart.dailyBars(id: "chart-sms", title: "SMS sent and refused", days: dates,
                                     series: [total(.smsSent, as: "sent"), total(.smsFailed, as: "failed")]
                                        + byLabel(.smsRefused, prefix: "refused: ")))
            \(ConsoleChart.dailyBars(id: "chart-emails", title: "Emails sent and refused", days: dates,
                                     series: [total(.emailsSent, as: "sent"), total(.emailsFailed, as: "failed")]
                                        + byLabel(.emailsRefused, prefix: "refused: ")))
            \(ConsoleChart.totals(id: "chart-errors", title: "Errors by code", items: errors.map { (name: $0.key, count: $0.value) }))
            <h2>By day</h2>
            \(ConsoleHTML.table(id: "usage", header: ["Day", "Sign-ins", "SMS sent", "SMS refused", "Emails sent", "Emails refused", "Errors"], rows: rows))
            """)
    }

    /// A day's UTC date, `2026-11-24`.
    private static func date(of day: UsageCounters.Day) -> String {
        String(UserRecord.iso8601(milliseconds: day.day * 86_400_000).prefix(10))
    }
}
