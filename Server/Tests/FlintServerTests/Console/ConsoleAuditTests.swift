import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The console's view of the audit trail: the Audit page lists the realm's events newest first (a change made in the
/// console names the console's key as its principal), its filters narrow them, its "Older" link pages by key, what a
/// client sent (its user agent) is shown escaped; a user's page shows that user's events only.
extension ConsoleTests {
    /// A production server's console signed in with a new service-account key, and a REST client of the server.
    private func withSignedInConsole(_ body: (TestServer, ConsoleClient, TestClient, ServiceAccounts.KeyFile) async throws -> Void)
        async throws {
        try await withConsole(emulator: false) { server, console in
            let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
            try await console.signIn(keyFile: keyFile, now: seconds(server))
            try await body(server, console, TestClient(server), keyFile)
        }
    }

    /// The event rows of `table` on a page: their ID, type and markup.
    private static func auditRows(_ page: ConsoleClient.Page, table: String = "audit-events")
        -> [(id: String, type: String, html: String)] {
        guard let start = page.body.range(of: "<table id=\"\(table)\""),
              let end = page.body.range(of: "</table>", range: start.upperBound..<page.body.endIndex)
        else { return [] }
        let text = String(page.body[start.upperBound..<end.lowerBound])
        let expression = try! NSRegularExpression(pattern: #"<tr data-event="([^"]*)" data-type="([^"]*)">(.*?)</tr>"#)
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            let group = { (index: Int) in String(text[Range(match.range(at: index), in: text)!]) }
            return (id: group(1), type: group(2), html: group(3))
        }
    }

    /// The path the page's "Older" link goes to, if it has one.
    private static func olderLink(_ page: ConsoleClient.Page) -> String? {
        ConsoleClient.Page.capture(#"id="older-page" href="([^"]*)""#, in: page.body)?.replacingOccurrences(of: "&amp;", with: "&")
    }

    @Test func theAuditPageListsFiltersAndPagesTheTrail() async throws {
        try await withSignedInConsole { server, console, client, keyFile in
            let uid = try #require(try await client.signUp(email: "ada@example.com", password: "secret-pass-1").string("localId"))
            let other = try #require(try await client.signUp(email: "bob@example.com", password: "secret-pass-1").string("localId"))
            let wrong = try await client.post("/v1/accounts:signInWithPassword", [
                "email": "ada@example.com", "password": "not-the-password", "returnSecureToken": true,
            ], headers: ["User-Agent": "Evil/1.0 <script>alert(1)</script>"])
            #expect(wrong.status == 400)
            _ = try await client.signIn(email: "ada@example.com", password: "secret-pass-1", device: "Phone/1.0")
            let userPage = try await console.get("/console/users/\(uid)")
            let disabled = try await console.post("/console/users/\(uid)/disable", [("csrf", try #require(userPage.csrfToken))])
            #expect(disabled.status == 303, "\(disabled.body)")

            let page = try await console.get("/console/audit")
            #expect(page.status == 200 && page.name == "audit", "\(page.body)")
            #expect(page.body.contains("id=\"nav-audit\" href=\"/console/audit\" aria-current=\"page\""))
            let rows = Self.auditRows(page)
            // Newest first, after the project's own (its creation, its keys); disabling the account in the console ended
            // its sessions too.
            #expect(rows.prefix(6).map(\.type) == ["sessionsRevoked", "userDisabled", "signIn", "signInFailed", "signUp", "signUp"],
                    "\(rows)")
            #expect(rows.map(\.id) == rows.map(\.id).sorted { Int($0)! > Int($1)! })
            let change = try #require(rows.first { $0.type == "userDisabled" })
            #expect(change.html.contains("<td>console:\(keyFile.private_key_id)</td>") && change.html.contains("<td>/console/users/{uid}/{operation}</td>"),
                    "\(change.html)")
            #expect(change.html.contains("<a class=\"user-link\" href=\"/console/users/\(uid)\">\(uid)</a>"))
            let failed = try #require(rows.first { $0.type == "signInFailed" })
            #expect(failed.html.contains("<td>user</td>") && failed.html.contains("127.0.0.1") && failed.html.contains("reason: INVALID_LOGIN_CREDENTIALS"),
                    "\(failed.html)")
            // A client's user agent is its own to choose: shown escaped, never as markup.
            #expect(failed.html.contains("Evil/1.0 &lt;script&gt;alert(1)&lt;/script&gt;"), "\(failed.html)")
            #expect(!page.body.contains("<script>"))

            // Filters narrow the list, and the form shows them.
            let byType = try await console.get("/console/audit?type=signInFailed")
            #expect(Self.auditRows(byType).map(\.type) == ["signInFailed"])
            #expect(byType.body.contains("<option value=\"signInFailed\" selected>"))
            let byUser = try await console.get("/console/audit?localId=\(other)")
            #expect(Self.auditRows(byUser).map(\.type) == ["signUp"] && byUser.body.contains("value=\"\(other)\""))
            let loopback = Self.auditRows(try await console.get("/console/audit?ipAddress=127.0.0.1"))
            #expect(loopback.map(\.type) == Array(rows.prefix(6).map(\.type)), "\(loopback)")
            let elsewhere = try await console.get("/console/audit?ipAddress=10.0.0.1")
            #expect(Self.auditRows(elsewhere).isEmpty && elsewhere.text(of: "audit-status") == "No events.")
            let nonsense = try await console.get("/console/audit?type=nonsense")
            #expect(nonsense.text(of: "error")?.contains("Unknown event type nonsense") == true, "\(nonsense.body)")

            // Pages by key, keeping the filter: together they are the whole filtered list.
            let all = Self.auditRows(try await console.get("/console/audit?localId=\(uid)")).map(\.id)
            #expect(all.count == 5)
            var seen: [String] = []
            var next: String? = "/console/audit?localId=\(uid)&pageSize=2"
            while let path = next {
                let older = try await console.get(path)
                let ids = Self.auditRows(older).map(\.id)
                #expect(ids.count <= 2 && !ids.isEmpty)
                seen += ids
                next = Self.olderLink(older)
                #expect(next.map { $0.contains("localId=\(uid)") && $0.contains("pageSize=2") } ?? true, "\(next ?? "")")
            }
            #expect(seen == all)
        }
    }

    @Test func aUsersPageShowsTheirActivity() async throws {
        try await withSignedInConsole { server, console, client, keyFile in
            let uid = try #require(try await client.signUp(email: "ada@example.com", password: "secret-pass-1").string("localId"))
            let other = try #require(try await client.signUp(email: "bob@example.com", password: "secret-pass-1").string("localId"))
            _ = try await client.signIn(email: "ada@example.com", password: "secret-pass-1", device: "Phone/1.0")
            _ = try await client.signIn(email: "bob@example.com", password: "secret-pass-1", device: "Phone/1.0")

            let page = try await console.get("/console/users/\(uid)")
            #expect(page.status == 200 && page.body.contains("<h2>Activity</h2>"), "\(page.body)")
            let rows = Self.auditRows(page, table: "activity")
            #expect(rows.map(\.type) == ["signIn", "signUp"], "\(rows)")
            #expect(rows.allSatisfy { $0.html.contains("href=\"/console/users/\(uid)\"") && !$0.html.contains(other) })
            #expect(page.body.contains("id=\"user-audit\" href=\"/console/audit?localId=\(uid)\""))
        }
    }

    @Test func anOpenTenantsAuditPageIsTheTenants() async throws {
        try await withSignedInConsole { server, console, client, keyFile in
            let projectUID = try #require(try await client.signUp(email: "project@example.com", password: "secret-pass-1").string("localId"))
            let token = try #require(try await console.get("/console/tenants").csrfToken)
            #expect(try await console.post("/console/tenants", [("csrf", token), ("display-name", "Acme"), ("email-password", "on")])
                .status == 303)
            let tenantID = try #require(ConsoleClient.Page.capture(#"data-tenant="([^"]*)""#, in: try await console.get("/console/tenants").body))
            let tenantUID = try #require(try await client.post("/v1/accounts:signUp", [
                "email": "tenant@example.com", "password": "secret-pass-1", "tenantId": .string(tenantID),
            ]).string("localId"))
            #expect(try await console.post("/console/tenants/open", [("csrf", token), ("tenant", tenantID)]).status == 303)

            let page = try await console.get("/console/audit")
            #expect(page.body.contains("The security events of tenant \(tenantID)"), "\(page.body)")
            let rows = Self.auditRows(page)
            #expect(rows.contains { $0.type == "signUp" && $0.html.contains(tenantUID) } && !page.body.contains(projectUID), "\(rows)")
            #expect(try await console.post("/console/tenants/close", [("csrf", token)]).status == 303)
            let project = try await console.get("/console/audit")
            #expect(project.body.contains(projectUID) && !project.body.contains(tenantUID))
        }
    }
}
