import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The console's protected resources (RFC 8707): created through the form, listed escaped, refused in the registry's
/// words, deleted once confirmed; every POST needs the session's anti-CSRF token; they are the project's, so the page
/// stays the project's while a tenant is open.
extension ConsoleTests {
    private static let resourceRow = #"(?s)(<tr data-resource="[^"]*">.*?</tr>)"#

    @Test func oauthResourcesAreCreatedAndDeleted() async throws {
        try await withConsole(emulator: false) { server, console in
            let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
            #expect(try await console.signIn(keyFile: keyFile, now: seconds(server)).location == "/console/users")
            let empty = try await console.get("/console/oauth-resources")
            #expect(empty.status == 200 && empty.name == "oauth-resources" && empty.text(of: "resource-count") == "0", "\(empty.body)")
            #expect(empty.body.contains("id=\"nav-oauth-resources\" href=\"/console/oauth-resources\" aria-current=\"page\""))
            #expect(!empty.body.contains("<script") && empty.text(of: "project-wide") == nil)
            let token = try #require(empty.csrfToken)
            let fields: [(String, String)] = [
                ("csrf", token), ("resource", "https://mcp.example.com"), ("display-name", "Acme <MCP>"),
                ("scopes", " mcp:tools  mcp:resources "), ("clients", "client-a\r\n\r\n  client-b  \r\n"),
            ]

            // Refused in the registry's words, with what was typed kept.
            let refused = try await console.post("/console/oauth-resources", fields.map {
                $0.0 == "resource" ? ($0.0, "http://mcp.example.com") : $0
            })
            #expect(refused.status == 400 && refused.text(of: "error")?.contains("must be an absolute https URI") == true,
                    "\(refused.body)")
            #expect(refused.body.contains("value=\"Acme &lt;MCP&gt;\"") && refused.body.contains("value=\"http://mcp.example.com\""))
            #expect(refused.text(of: "resource-count") == "0")

            // Every action needs the session's token.
            #expect(try await console.post("/console/oauth-resources", Array(fields.dropFirst())).status == 403)
            #expect(try await console.post("/console/oauth-resources", [("csrf", "forged")] + fields.dropFirst()).status == 403)

            let created = try await console.post("/console/oauth-resources", fields)
            #expect(created.status == 303 && created.location == "/console/oauth-resources?notice=oauthResourceCreated", "\(created.body)")
            let listed = try await console.get("/console/oauth-resources?notice=oauthResourceCreated")
            #expect(listed.text(of: "notice") == "OAuth resource created." && listed.text(of: "resource-count") == "1")
            let resource = try #require(try await server.server.projects.project(server.projectID)?.settings.oauthResources.first)
            let id = resource.resourceID
            #expect(resource.resource == "https://mcp.example.com" && resource.displayName == "Acme <MCP>")
            #expect(resource.scopes == ["mcp:tools", "mcp:resources"] && resource.allowedClientIDs == ["client-a", "client-b"])
            #expect(listed.text(of: "name-\(id)") == "Acme &lt;MCP&gt;" && listed.text(of: "resource-\(id)") == "https://mcp.example.com")
            let row = try #require(ConsoleClient.Page.capture(Self.resourceRow, in: listed.body))
            #expect(row.contains("<code>mcp:tools</code> <code>mcp:resources</code>"), "\(row)")
            #expect(row.contains("<code>client-a</code><br><code>client-b</code>") && row.contains("id=\"delete-\(id)\""), "\(row)")
            #expect(try await console.post("/console/oauth-resources/delete", [("resource-id", id), ("confirm-delete", "on")]).status == 403)

            // Deleted, once confirmed.
            let unconfirmed = try await console.post("/console/oauth-resources/delete", [("csrf", token), ("resource-id", id)])
            #expect(unconfirmed.status == 400 && unconfirmed.text(of: "error")?.contains("Tick the box") == true)
            let unknown = try await console.post("/console/oauth-resources/delete", [("csrf", token), ("resource-id", "nope"),
                                                                                      ("confirm-delete", "on")])
            #expect(unknown.status == 400 && unknown.text(of: "error") == "Choose one of the listed resources.")
            let deleted = try await console.post("/console/oauth-resources/delete", [("csrf", token), ("resource-id", id),
                                                                                      ("confirm-delete", "on")])
            #expect(deleted.status == 303 && deleted.location == "/console/oauth-resources?notice=oauthResourceDeleted")
            let remaining = try await console.get("/console/oauth-resources?notice=oauthResourceDeleted")
            #expect(remaining.text(of: "resource-count") == "0" && remaining.text(of: "notice")?.hasPrefix("The OAuth resource was deleted") == true)
            #expect(try await server.server.projects.project(server.projectID)?.settings.oauthResources.isEmpty == true)
        }
    }

    @Test func oauthResourcesAreTheProjectsWhileATenantIsOpen() async throws {
        try await withConsole(emulator: true) { server, console in
            #expect(try await console.signIn().location == "/console/users")
            let token = try #require(try await console.get("/console/tenants").csrfToken)
            #expect(try await console.post("/console/tenants", [("csrf", token), ("display-name", "Acme")]).status == 303)
            let tenantID = try #require(ConsoleClient.Page.capture(#"data-tenant="([^"]*)""#, in: try await console.get("/console/tenants").body))
            #expect(try await console.post("/console/tenants/open", [("csrf", token), ("tenant", tenantID)]).status == 303)

            let page = try await console.get("/console/oauth-resources")
            #expect(page.text(of: "project-wide") != nil && page.text(of: "tenant-id") == tenantID, "\(page.body)")
            #expect(try await console.post("/console/oauth-resources", [
                ("csrf", token), ("resource", "https://api.example.com"), ("display-name", "API"),
            ]).status == 303)
            #expect(try await server.server.projects.project(server.projectID)?.settings.oauthResources.map(\.resource) == ["https://api.example.com"])
            #expect(try await console.post("/console/tenants/close", [("csrf", token)]).status == 303)
            #expect(try await console.get("/console/oauth-resources").text(of: "resource-count") == "1")
        }
    }
}
