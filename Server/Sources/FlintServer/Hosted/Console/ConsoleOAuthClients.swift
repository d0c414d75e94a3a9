import FlintWire
import Foundation

/// The console's page of the OpenID provider's clients (`/console/oauth-clients`): the realm's clients, a form for a new
/// one, and per client its secret's rotation and its deletion. They change through `OAuthClientRegistry`, as the admin
/// API's `oauthClients` do, so its rules (https redirect URIs, the type fixed at creation, …) hold here too.
///
/// A secret is shown once, in the answer of the POST that made it (`Outcome.page`): never in an address (a redirect's
/// query would put it in the history and the logs) and never on a page that can be loaded again, since only its hash is
/// kept. Reloading that answer sends the form again (the browser asks first), which makes another client or secret.
extension ConsoleRoutes {
    static let oauthClientsPath = "/console/oauth-clients"

    // MARK: Page

    /// The realm's clients (a page of `OAuthClientRegistry.maximumPageSize`, from the client ID of the `after` query
    /// parameter), the client whose secret an action just made (`revealed`), and the form for a new one.
    func oauthClientsPage(_ context: ConsoleContext, revealed: OAuthClient? = nil) async throws -> String {
        let after = context.query["after"].flatMap { $0.isEmpty ? nil : $0 }
        let listing = try await oauthClients.list(realm: context.project.id, pageSize: nil, pageToken: after)
        let clients = listing.oauthClients
        let pager = [
            after == nil ? nil : "<a id=\"first-page\" href=\"\(Self.oauthClientsPath)\">First page</a>",
            listing.nextPageToken.map {
                "<a id=\"next-page\" href=\"\(Self.oauthClientsPath)?after=\(FormURLEncoding.escape($0))\">Next page</a>"
            },
        ].compactMap { $0 }
        return ConsoleHTML.signedIn(page: Page.oauthClients.rawValue, title: "OAuth clients", context: context, content: """
            \(providerNote(context))
            \(revealed.map(secretPanel) ?? "")
            <p class="hint"><span id="client-count">\(clients.count)</span> clients\(after == nil ? "" : " on this page").</p>
            \(ConsoleHTML.table(id: "oauth-clients", header: ["Name", "Client ID", "Type", "First-party", "Redirect URIs", ""],
                                rows: clients.map { oauthClientRow($0, context: context) }))
            \(pager.isEmpty ? "" : "<p class=\"pager\">\(pager.joined(separator: "\n"))</p>")
            \(newOAuthClientForm(context))
            """)
    }

    /// What the provider is, and where its relying parties find it: the realm's issuer (`OAuthTokens.issuer(realm:)`).
    /// The emulator serves no provider endpoints (its tokens name Google's issuers), which the page says.
    private func providerNote(_ context: ConsoleContext) -> String {
        let whose = context.tenant.map { "Tenant \(HTML.escape($0.realm.tenantID ?? ""))'s" } ?? "The project's"
        let issuer = core.address.url + "/" + context.project.id
        let location = policy.usesGoogleIssuers
            ? "<p class=\"hint\" id=\"provider-off\">This server runs as the emulator, which serves no OpenID provider endpoints: "
                + "clients are kept, but no one signs in through them here.</p>"
            : "<p class=\"hint\">Issuer: <code id=\"issuer\">\(HTML.escape(issuer))</code> (its discovery document is at "
                + "<code>\(HTML.escape(issuer))/.well-known/openid-configuration</code>).</p>"
        return """
            <p class="hint">\(whose) OpenID provider: the apps listed here sign its users in with OpenID Connect. A confidential
            client (a server) authenticates with its secret; a public one (a native or browser app) with PKCE alone.</p>
            \(location)
            """
    }

    /// The client an action just made a secret for: its ID and that secret, with the warning that it is not shown again.
    private func secretPanel(_ client: OAuthClient) -> String {
        let secret = client.clientSecret.map { secret in
            """
            <p><strong>Client secret</strong></p>
            <code id="revealed-client-secret">\(HTML.escape(secret))</code>
            <p id="secret-note" role="alert"><strong>Copy the secret now: it is not shown again.</strong> Flint keeps only its
            hash; a lost secret cannot be recovered, only replaced (Rotate secret).</p>
            """
        } ?? "<p id=\"secret-note\">This client has no secret: it is a public client, which proves itself with PKCE.</p>"
        return """
            <section class="secret" id="revealed-client">
            <h2>\(HTML.escape(client.displayName ?? ""))</h2>
            <p><strong>Client ID</strong></p>
            <code id="revealed-client-id">\(HTML.escape(client.clientId ?? ""))</code>
            \(secret)
            </section>
            """
    }

    /// A row of the list: the client's settings, and its secret's rotation (a client with a secret) and deletion.
    private func oauthClientRow(_ client: OAuthClient, context: ConsoleContext) -> (attributes: String, cells: [String]) {
        let rawID = client.clientId ?? ""
        let id = HTML.escape(rawID)
        let named = "<input type=\"hidden\" name=\"client-id\" value=\"\(id)\">"
        let owner = client.ownerName.map { " <span class=\"hint\">by \(HTML.escape($0))</span>" } ?? ""
        let logout = (client.postLogoutRedirectUris ?? []).isEmpty ? ""
            : "<br><span class=\"hint\">After logout:</span><br>" + Self.codeLines(client.postLogoutRedirectUris)
        // Only a confidential client authenticating with a secret has one to rotate (`OAuthClientRegistry.rotateSecret`).
        let rotate = client.tokenEndpointAuthMethod == "client_secret_basic"
            ? ConsoleHTML.form(Self.oauthClientsPath + "/rotate-secret", context: context, id: "rotate-\(rawID)", content: """
                \(named)
                <button type="submit" class="secondary rotate-secret">Rotate secret</button>
                """)
            : ""
        let delete = Self.deleteForm(Self.oauthClientsPath + "/delete", field: "client-id", id: rawID, buttonClass: "delete-client",
                                     context: context)
        return (attributes: " data-client=\"\(id)\"", cells: [
            "<span id=\"name-\(id)\">\(HTML.escape(client.displayName ?? ""))</span>\(owner)", "<code>\(id)</code>",
            "<span id=\"type-\(id)\">\(Self.typeTitle(client))</span>",
            "<span id=\"first-party-\(id)\">\(client.firstParty == true ? "Yes" : "No")</span>",
            "<span id=\"redirect-uris-\(id)\">\(Self.codeLines(client.redirectUris))</span>\(logout)",
            rotate + delete,
        ])
    }

    /// The deletion of a listed item (`id` in the hidden field `field`), once its box is ticked (`confirm-delete`).
    static func deleteForm(_ action: String, field: String, id rawID: String, buttonClass: String, context: ConsoleContext) -> String {
        let id = HTML.escape(rawID)
        return ConsoleHTML.form(action, context: context, id: "delete-\(rawID)", content: """
            <input type="hidden" name="\(field)" value="\(id)">
            \(ConsoleHTML.checkbox("confirm-delete-\(id)", name: "confirm-delete", label: "Yes, delete it", checked: false))
            <button type="submit" class="danger \(buttonClass)">Delete</button>
            """)
    }

    /// URIs (or other values), escaped, one a line.
    static func codeLines(_ values: [String]?) -> String {
        (values ?? []).map { "<code>\(HTML.escape($0))</code>" }.joined(separator: "<br>")
    }

    /// The client's type as the list names it; a confidential client without a secret is one with a JWKS URI.
    private static func typeTitle(_ client: OAuthClient) -> String {
        guard client.type == OAuthClient.confidential else { return "Public" }
        return client.tokenEndpointAuthMethod == "private_key_jwt" ? "Confidential (JWKS keys)" : "Confidential"
    }

    /// The form for a new client; a refused one keeps what was typed (the action's form is the page's query then).
    private func newOAuthClientForm(_ context: ConsoleContext) -> String {
        let typed = context.query
        return ConsoleHTML.form(Self.oauthClientsPath, context: context, id: "create-client-form", card: true, content: """
            <h2>New OAuth client</h2>
            \(ConsoleHTML.textField("client-display-name", name: "display-name", label: "Display name (shown on the consent page)",
                                    value: typed["display-name"], placeholder: "Acme dashboard"))
            \(ConsoleHTML.select("client-type", name: "type", label: "Type", options: [
                (OAuthClient.confidential, "Confidential: a server that keeps a secret"),
                (OAuthClient.public, "Public: a native or browser app (PKCE, no secret)"),
            ], selected: typed["type"] ?? OAuthClient.confidential))
            \(ConsoleHTML.textArea("client-redirect-uris", name: "redirect-uris",
                                   label: "Redirect URIs, one per line (https; http only for loopback addresses)",
                                   value: typed["redirect-uris"] ?? ""))
            \(ConsoleHTML.textArea("client-post-logout-uris", name: "post-logout-uris",
                                   label: "Post-logout redirect URIs, one per line (optional)", value: typed["post-logout-uris"] ?? "",
                                   rows: 2))
            \(ConsoleHTML.checkbox("client-first-party", name: "first-party", label: "First-party: users are not asked to consent",
                                   checked: typed["first-party"] == "on"))
            \(ConsoleHTML.textField("client-owner-name", name: "owner-name", label: "Owner (named on the consent page, optional)",
                                    value: typed["owner-name"], placeholder: "Acme Corp"))
            <p class="hint">A confidential client's secret is shown once, on the page that answers this form.</p>
            <button type="submit" id="create-client">Create client</button>
            """)
    }

    // MARK: Actions

    /// The client a create form describes: every scope and grant the provider has (the registry's defaults).
    static func oauthClient(from form: Form) -> OAuthClient {
        OAuthClient(displayName: nonEmpty(form["display-name"]), type: form["type"],
                    redirectUris: textAreaLines(form["redirect-uris"]), postLogoutRedirectUris: textAreaLines(form["post-logout-uris"]),
                    firstParty: form["first-party"] == "on", ownerName: nonEmpty(form["owner-name"]))
    }

    /// The non-empty lines of a text area, trimmed.
    static func textAreaLines(_ text: String?) -> [String] {
        (text ?? "").split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func createOAuthClient(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        let client = try await oauthClients.create(Self.oauthClient(from: form), realm: context.project.id)
        return try await revealing(client, notice: .oauthClientCreated, context)
    }

    func rotateOAuthClientSecret(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        let client = try await oauthClients.rotateSecret(try await listedClientID(form, context), realm: context.project.id)
        return try await revealing(client, notice: .oauthClientSecretRotated, context)
    }

    func deleteOAuthClient(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        guard form["confirm-delete"] == "on" else {
            throw FlintError(.invalidArgument, "Tick the box to confirm that the client should be deleted.")
        }
        try await oauthClients.delete(try await listedClientID(form, context), realm: context.project.id)
        return Outcome(notice: .oauthClientDeleted, location: Self.oauthClientsPath)
    }

    /// The client ID the form names, if it is one of the realm's clients (else the console's words, not the API's code).
    private func listedClientID(_ form: Form, _ context: ConsoleContext) async throws -> String {
        guard let id = form["client-id"], try await oauthClients.client(id, realm: context.project.id) != nil else {
            throw FlintError(.invalidArgument, "Choose one of the listed clients.")
        }
        return id
    }

    /// The outcome that answers with the page and `client`'s new secret instead of redirecting (see the type's note):
    /// the form just sent is not the page's query, so the new-client form is empty again.
    private func revealing(_ client: OAuthClient, notice: Notice, _ context: ConsoleContext) async throws -> Outcome {
        var answer = context
        answer.query = [:]
        answer.notice = notice.text
        return Outcome(notice: notice, location: Self.oauthClientsPath, page: try await oauthClientsPage(answer, revealed: client))
    }
}
