import FlintWire
import Foundation
import Hummingbird

/// The console's view of the audit trail: the Audit page (`/console/audit`), the open tenant's or else the project's
/// events newest first, and the Activity section of a user's page, that user's newest. Both read the pages
/// `GET v2/projects/{p}[/tenants/{t}]/auditEvents` answers, through `AuditRoutes`, with its query parameters
/// (`localId`, `type`, `ipAddress`, `startTime`, `endTime`, `pageSize`, `pageToken`): its filters, its keyset pages, its
/// wire events, and a link to the page filtered is the link to the API's page too.
extension ConsoleRoutes {
    static let auditPath = "/console/audit"
    /// How many of a user's events their page shows; the Audit page filtered to the user has the rest.
    static let activityEvents = 20

    /// The trail's reader, the admin API's.
    private var auditTrail: AuditRoutes { AuditRoutes(core: core) }

    // MARK: Page

    /// A page of the trail as the query asks, the filter form above it and an "Older" link below it when more are left.
    /// A malformed query (an unknown type, a page token this console did not give) is shown as the error.
    func auditPage(_ context: ConsoleContext) async throws -> String {
        var context = context
        var page = ListAuditEventsResponse(events: [])
        do {
            page = try await auditTrail.page(realm: context.project.id, Self.parameters(context.query))
        } catch let error as FlintError {
            context.error = error.message
        }
        // The next page keeps the filters and the page size; its token replaces this page's.
        let filters = context.query.filter { AuditRoutes.queryParameters.contains($0.key) && $0.key != "pageToken" }
        let older = page.nextPageToken.map { token in
            "<p class=\"pager\"><a id=\"older-page\" href=\"\(HTML.escape(Self.auditLink(filters.merging(["pageToken": token]) { $1 })))\">Older</a></p>"
        } ?? ""
        let realm = context.tenant.map { "tenant \(HTML.escape($0.realm.tenantID ?? ""))" } ?? "project \(HTML.escape(context.projectID))"
        let status = page.events.isEmpty ? "No events." : "Newest first."
        return ConsoleHTML.signedIn(page: Page.audit.rawValue, title: "Audit trail", context: context, content: """
            <p class="hint">The security events of \(realm): sign-ins and refusals, changes to users and to the
            configuration, who made each (<code>user</code>, <code>console:…</code>, <code>serviceAccount:…</code>, …), from
            which address and through which endpoint. Changes name the fields they changed, never their values.</p>
            \(auditFilterForm(context.query))
            <p class="hint" id="audit-status">\(status)</p>
            \(Self.auditTable(id: "audit-events", page.events))
            \(older)
            """)
    }

    /// The filters, a GET form to this page: a new filter starts again at the newest events.
    private func auditFilterForm(_ query: [String: String]) -> String {
        let types = [(value: "", title: "Any")] + AuditEventType.allCases.map { (value: $0.rawValue, title: $0.rawValue) }
        return """
            <form method="get" action="\(Self.auditPath)" id="audit-filters" class="card">
            \(ConsoleHTML.select("audit-type", name: "type", label: "Type", options: types, selected: query["type"]))
            \(ConsoleHTML.textField("audit-uid", name: "localId", label: "User UID", value: query["localId"]))
            \(ConsoleHTML.textField("audit-ip", name: "ipAddress", label: "IP address", value: query["ipAddress"]))
            <button type="submit" id="filter-audit">Filter</button>
            <a href="\(Self.auditPath)">All events</a>
            </form>
            """
    }

    // MARK: A user's activity

    /// The user's newest events, for their page, and a link to the Audit page filtered to them when there are more.
    func userActivity(_ context: ConsoleContext, localID: String) async throws -> String {
        let page = try await auditTrail.page(realm: context.project.id,
                                             Self.parameters(["localId": localID, "pageSize": String(Self.activityEvents)]))
        let link = HTML.escape(Self.auditLink(["localId": localID]))
        return """
            <p class="hint">The user's newest events\(page.nextPageToken == nil ? "" : " (the last \(Self.activityEvents))").
            <a id="user-audit" href="\(link)">All of this user's events</a></p>
            \(Self.auditTable(id: "activity", page.events))
            """
    }

    // MARK: Rows

    /// The events as a table, one row each: the Audit page's and the Activity section's.
    private static func auditTable(id: String, _ events: [AuditEvent]) -> String {
        ConsoleHTML.table(id: id, header: ["Time", "Type", "User", "Principal", "Address", "Operation", "Detail"],
                          rows: events.map(auditRow))
    }

    private static func auditRow(_ event: AuditEvent) -> (attributes: String, cells: [String]) {
        let user = event.localId.map {
            "<a class=\"user-link\" href=\"/console/users/\(FormURLEncoding.escape($0))\">\(HTML.escape($0))</a>"
        } ?? ""
        let detail = (event.fields.map { ["fields: " + $0.joined(separator: ", ")] } ?? [])
            + (event.detail ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        return (attributes: " data-event=\"\(HTML.escape(event.eventId))\" data-type=\"\(event.type.rawValue)\"", cells: [
            "<time datetime=\"\(HTML.escape(event.time))\">\(HTML.escape(event.time))</time>",
            "<code>\(event.type.rawValue)</code>", user, HTML.escape(event.principal),
            origin(SessionOrigin(ipAddress: event.ipAddress, userAgent: event.userAgent)),
            HTML.escape(event.operation ?? ""), detail.map(HTML.escape).joined(separator: "<br>"),
        ])
    }

    // MARK: Links

    /// The Audit page with `query`, its parameters sorted so a link is the same each time.
    private static func auditLink(_ query: [String: String]) -> String {
        let fields = query.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return fields.isEmpty ? auditPath : auditPath + "?" + FormURLEncoding.encode(fields)
    }

    /// A console query as the API's route reads one.
    private static func parameters(_ query: [String: String]) -> Hummingbird.Parameters {
        Hummingbird.Parameters(query.map { (key: Substring($0.key), value: Substring($0.value)) })
    }
}
