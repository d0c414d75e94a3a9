import FlintWire
import Foundation

/// The console's page of the OpenID provider's protected resources (`/console/oauth-resources`, RFC 8707): the APIs
/// clients ask access tokens for by URI, a form for a new one, and per resource its deletion. They change through
/// `OAuthResourceRegistry`, as the admin API's `oauthResources` do, so its rules (absolute https URIs, no scope of
/// OpenID's own, …) hold here too. Resources are the project's (its tenants' providers serve them), so the page is
/// project-wide.
extension ConsoleRoutes {
    static let oauthResourcesPath = "/console/oauth-resources"

    /// The registry the page changes, the admin API's: it keeps nothing of its own beside the project settings.
    var oauthResources: OAuthResourceRegistry {
        OAuthResourceRegistry(projects: core.projects, random: core.random, clock: core.clock)
    }

    // MARK: Page

    /// The project's resources and the form for a new one.
    func oauthResourcesPage(_ context: ConsoleContext) async throws -> String {
        let resources = try await oauthResources.list(projectID: context.project.id).oauthResources
        return ConsoleHTML.signedIn(page: Page.oauthResources.rawValue, title: "OAuth resources", context: context, content: """
            \(projectWideNote(context, "A tenant's provider serves its project's resources."))
            <p class="hint">The APIs (an MCP server, say) that clients ask access tokens for by their URI, the
            <code>resource</code> parameter of RFC 8707: the tokens name it as their audience, with the scopes of it the
            client was granted. A request naming a URI not listed here is refused (<code>invalid_target</code>).</p>
            <p class="hint"><span id="resource-count">\(resources.count)</span> resources.</p>
            \(ConsoleHTML.table(id: "oauth-resources", header: ["Name", "Resource", "Scopes", "Clients", ""],
                                rows: resources.map { oauthResourceRow($0, context: context) }))
            \(newOAuthResourceForm(context))
            """)
    }

    /// A row of the list: the resource's settings and its deletion.
    private func oauthResourceRow(_ resource: OAuthResource, context: ConsoleContext) -> (attributes: String, cells: [String]) {
        let rawID = resource.resourceId ?? ""
        let id = HTML.escape(rawID)
        let clients = resource.allowedClientIds ?? []
        return (attributes: " data-resource=\"\(id)\"", cells: [
            "<span id=\"name-\(id)\">\(HTML.escape(resource.displayName ?? ""))</span>",
            "<code id=\"resource-\(id)\">\(HTML.escape(resource.resource ?? ""))</code>",
            "<span id=\"scopes-\(id)\">\((resource.scopes ?? []).map { "<code>\(HTML.escape($0))</code>" }.joined(separator: " "))</span>",
            "<span id=\"clients-\(id)\">\(clients.isEmpty ? "Every client" : Self.codeLines(clients))</span>",
            Self.deleteForm(Self.oauthResourcesPath + "/delete", field: "resource-id", id: rawID, buttonClass: "delete-resource",
                            context: context),
        ])
    }

    /// The form for a new resource; a refused one keeps what was typed (the action's form is the page's query then).
    private func newOAuthResourceForm(_ context: ConsoleContext) -> String {
        let typed = context.query
        return ConsoleHTML.form(Self.oauthResourcesPath, context: context, id: "create-resource-form", card: true, content: """
            <h2>New OAuth resource</h2>
            \(ConsoleHTML.textField("resource-uri", name: "resource", label: "Resource URI (https; http only for loopback addresses)",
                                    value: typed["resource"], placeholder: "https://mcp.example.com"))
            \(ConsoleHTML.textField("resource-display-name", name: "display-name", label: "Display name (shown on the consent page)",
                                    value: typed["display-name"], placeholder: "Acme MCP server"))
            \(ConsoleHTML.textField("resource-scopes", name: "scopes", label: "Scopes, separated by spaces (optional)",
                                    value: typed["scopes"], placeholder: "mcp:tools mcp:resources"))
            \(ConsoleHTML.textArea("resource-clients", name: "clients",
                                   label: "Client IDs that may ask tokens for it, one per line (none: every client)",
                                   value: typed["clients"] ?? "", rows: 2))
            <button type="submit" id="create-resource">Create resource</button>
            """)
    }

    // MARK: Actions

    /// The resource a create form describes.
    static func oauthResource(from form: Form) -> OAuthResource {
        OAuthResource(resource: nonEmpty(form["resource"]), displayName: nonEmpty(form["display-name"]),
                      scopes: (form["scopes"] ?? "").split(whereSeparator: \.isWhitespace).map(String.init),
                      allowedClientIds: textAreaLines(form["clients"]))
    }

    func createOAuthResource(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        _ = try await oauthResources.create(Self.oauthResource(from: form), projectID: context.project.id)
        return Outcome(notice: .oauthResourceCreated, location: Self.oauthResourcesPath)
    }

    func deleteOAuthResource(_ form: Form, _ context: ConsoleContext) async throws -> Outcome {
        guard form["confirm-delete"] == "on" else {
            throw FlintError(.invalidArgument, "Tick the box to confirm that the resource should be deleted.")
        }
        guard let id = form["resource-id"], (try? await oauthResources.get(id, projectID: context.project.id)) != nil else {
            throw FlintError(.invalidArgument, "Choose one of the listed resources.")
        }
        try await oauthResources.delete(id, projectID: context.project.id)
        return Outcome(notice: .oauthResourceDeleted, location: Self.oauthResourcesPath)
    }
}
