import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The console's OAuth clients: created through the form (the secret shown once, on the answer only), listed, refused in
/// the registry's words, their secrets rotated (the old one stops working) and deleted; every POST needs the session's
/// anti-CSRF token; inside an open tenant they are the tenant's.
extension ConsoleTests {
    /// The answer of the provider's introspection endpoint to `clientID` with `secret`: 200 when the secret is the
    /// client's (the token itself is no token, so it is inactive), 401 when it is not.
    private func introspectionStatus(_ console: ConsoleClient, _ server: TestServer, clientID: String, secret: String) async throws -> Int {
        let basic = "Basic " + Data("\(clientID):\(secret)".utf8).base64EncodedString()
        return try await console.post("/\(server.projectID)/introspect", [("token", "not-a-token")], origin: nil,
                                      headers: ["authorization": basic]).status
    }

    private static let clientRow = #"(?s)(<tr data-client="[^"]*">.*?</tr>)"#

    @Test func oauthClientsAreCreatedRotatedAndDeleted() async throws {
        try await withConsole(emulator: false) { server, console in
            let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
            #expect(try await console.signIn(keyFile: keyFile, now: seconds(server)).location == "/console/users")
            let empty = try await console.get("/console/oauth-clients")
            #expect(empty.status == 200 && empty.name == "oauth-clients" && empty.text(of: "client-count") == "0", "\(empty.body)")
            #expect(empty.body.contains("id=\"nav-oauth-clients\" href=\"/console/oauth-clients\" aria-current=\"page\""))
            #expect(empty.text(of: "issuer") == server.baseURL.absoluteString + "/" + server.projectID)
            #expect(!empty.body.contains("<script"))
            let token = try #require(empty.csrfToken)
            let fields: [(String, String)] = [
                ("csrf", token), ("display-name", "Acme <dashboard>"), ("type", "CONFIDENTIAL"),
                ("redirect-uris", "https://app.example.com/callback\r\n\r\n  https://app.example.com/other  \r\n"),
                ("post-logout-uris", "https://app.example.com/bye"), ("first-party", "on"), ("owner-name", "Acme Corp"),
            ]

            // Refused in the registry's words, with what was typed kept.
            let refused = try await console.post("/console/oauth-clients", fields.map {
                $0.0 == "redirect-uris" ? ($0.0, "http://app.example.com/callback") : $0
            })
            #expect(refused.status == 400 && refused.text(of: "error")
                == "redirectUris: http://app.example.com/callback must use https (http is for loopback addresses only).", "\(refused.body)")
            #expect(refused.body.contains("value=\"Acme &lt;dashboard&gt;\"") && refused.body.contains(">http://app.example.com/callback</textarea>"))
            #expect(refused.body.contains("id=\"client-first-party\" name=\"first-party\" value=\"on\" checked"))
            #expect(refused.text(of: "client-count") == "0")

            // Made: the answer shows the secret, once.
            let created = try await console.post("/console/oauth-clients", fields)
            #expect(created.status == 200 && created.name == "oauth-clients" && created.text(of: "notice") == "OAuth client created.",
                    "\(created.body)")
            #expect(created.headers.first(name: "cache-control") == "no-store")
            let clientID = try #require(created.text(of: "revealed-client-id"))
            let secret = try #require(created.text(of: "revealed-client-secret"))
            #expect(secret.count >= 40 && created.body.contains("Copy the secret now: it is not shown again."))
            #expect(!created.body.contains("value=\"Acme &lt;dashboard&gt;\""), "the new-client form is empty again")
            #expect(try await introspectionStatus(console, server, clientID: clientID, secret: secret) == 200)

            // Listed, escaped, without the secret.
            let listed = try await console.get("/console/oauth-clients")
            #expect(!listed.body.contains(secret) && listed.text(of: "revealed-client-secret") == nil)
            #expect(listed.text(of: "client-count") == "1" && listed.text(of: "name-\(clientID)") == "Acme &lt;dashboard&gt;")
            #expect(listed.text(of: "type-\(clientID)") == "Confidential" && listed.text(of: "first-party-\(clientID)") == "Yes")
            let row = try #require(ConsoleClient.Page.capture(Self.clientRow, in: listed.body))
            #expect(row.contains("<code>\(clientID)</code>") && row.contains("by Acme Corp"))
            #expect(row.contains("<code>https://app.example.com/callback</code><br><code>https://app.example.com/other</code>"), "\(row)")
            #expect(row.contains("<code>https://app.example.com/bye</code>") && row.contains("id=\"rotate-\(clientID)\""))

            // Every action needs the session's token.
            let beforeRotation = try await console.post("/console/oauth-clients/rotate-secret", [("client-id", clientID)])
            #expect(beforeRotation.status == 403)
            #expect(try await console.post("/console/oauth-clients/delete", [("csrf", "forged"), ("client-id", clientID),
                                                                            ("confirm-delete", "on")]).status == 403)
            #expect(try await console.post("/console/oauth-clients", Array(fields.dropFirst())).status == 403)
            #expect(try await console.get("/console/oauth-clients").text(of: "client-count") == "1")
            #expect(try await introspectionStatus(console, server, clientID: clientID, secret: secret) == 200)

            // Rotated: the new secret shown once, the old one refused.
            let rotated = try await console.post("/console/oauth-clients/rotate-secret", [("csrf", token), ("client-id", clientID)])
            #expect(rotated.status == 200 && rotated.text(of: "notice") == "New secret made: the old one no longer works.")
            let newSecret = try #require(rotated.text(of: "revealed-client-secret"))
            #expect(newSecret != secret && rotated.text(of: "revealed-client-id") == clientID)
            #expect(try await introspectionStatus(console, server, clientID: clientID, secret: secret) == 401)
            #expect(try await introspectionStatus(console, server, clientID: clientID, secret: newSecret) == 200)
            let unknown = try await console.post("/console/oauth-clients/rotate-secret", [("csrf", token), ("client-id", "nope")])
            #expect(unknown.status == 400 && unknown.text(of: "error") == "Choose one of the listed clients.")

            // A public client has no secret to show or rotate.
            let publicClient = try await console.post("/console/oauth-clients", [
                ("csrf", token), ("display-name", "Acme app"), ("type", "PUBLIC"), ("redirect-uris", "com.example.app:/callback"),
            ])
            #expect(publicClient.status == 200 && publicClient.text(of: "revealed-client-secret") == nil, "\(publicClient.body)")
            let publicID = try #require(publicClient.text(of: "revealed-client-id"))
            #expect(publicClient.text(of: "type-\(publicID)") == "Public" && publicClient.text(of: "first-party-\(publicID)") == "No")
            #expect(!publicClient.body.contains("id=\"rotate-\(publicID)\""))

            // Deleted, once confirmed.
            let unconfirmed = try await console.post("/console/oauth-clients/delete", [("csrf", token), ("client-id", clientID)])
            #expect(unconfirmed.status == 400 && unconfirmed.text(of: "error")?.contains("Tick the box") == true)
            let deleted = try await console.post("/console/oauth-clients/delete", [("csrf", token), ("client-id", clientID),
                                                                                   ("confirm-delete", "on")])
            #expect(deleted.status == 303 && deleted.location == "/console/oauth-clients?notice=oauthClientDeleted")
            let remaining = try await console.get("/console/oauth-clients?notice=oauthClientDeleted")
            #expect(remaining.text(of: "client-count") == "1" && !remaining.body.contains("data-client=\"\(clientID)\""))
            #expect(remaining.text(of: "notice")?.hasPrefix("The OAuth client was deleted") == true)
            #expect(try await introspectionStatus(console, server, clientID: clientID, secret: newSecret) == 401)
        }
    }

    @Test func anOpenTenantHasItsOwnOAuthClients() async throws {
        try await withConsole(emulator: true) { server, console in
            #expect(try await console.signIn().location == "/console/users")
            let token = try #require(try await console.get("/console/tenants").csrfToken)
            #expect(try await console.post("/console/tenants", [("csrf", token), ("display-name", "Acme")]).status == 303)
            let tenantID = try #require(ConsoleClient.Page.capture(#"data-tenant="([^"]*)""#, in: try await console.get("/console/tenants").body))
            #expect(try await console.post("/console/tenants/open", [("csrf", token), ("tenant", tenantID)]).status == 303)

            let page = try await console.get("/console/oauth-clients")
            #expect(page.text(of: "provider-off") != nil, "the emulator serves no provider endpoints")
            let created = try await console.post("/console/oauth-clients", [
                ("csrf", token), ("display-name", "Tenant app"), ("redirect-uris", "https://tenant.example.com/callback"),
            ])
            #expect(created.status == 200 && created.text(of: "revealed-client-secret") != nil, "\(created.body)")
            #expect(created.text(of: "client-count") == "1" && created.text(of: "tenant-id") == tenantID)

            #expect(try await console.post("/console/tenants/close", [("csrf", token)]).status == 303)
            #expect(try await console.get("/console/oauth-clients").text(of: "client-count") == "0")
        }
    }
}
