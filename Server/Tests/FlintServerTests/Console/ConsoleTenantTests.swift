import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The console's tenants: listed, created, opened (the users and sign-in pages then act inside the tenant), left
/// and deleted; and a service account reaches its own project's tenants only.
extension ConsoleTests {
    /// The console signed in as the emulator owner, or (production) with a key of the server's project.
    private func signIn(_ console: ConsoleClient, _ server: TestServer, emulator: Bool) async throws {
        let keyFile = emulator ? nil : try await server.server.serviceAccounts.create(projectID: server.projectID)
        #expect(try await console.signIn(keyFile: keyFile, now: seconds(server)).location == "/console/users")
    }

    @Test(arguments: [false, true])
    func tenantsAreCreatedOpenedAndDeleted(emulator: Bool) async throws {
        try await withConsole(emulator: emulator) { server, console in
            let client = TestClient(server)
            let projectUID = try #require(try await client.signUp(email: "project@example.com", password: "secret-pass").string("localId"))
            try await signIn(console, server, emulator: emulator)

            let empty = try await console.get("/console/tenants")
            #expect(empty.status == 200 && empty.name == "tenants" && empty.text(of: "tenant-count") == "0 tenants")
            let token = try #require(empty.csrfToken)
            let unnamed = try await console.post("/console/tenants", [("csrf", token), ("display-name", " "), ("anonymous", "on")])
            #expect(unnamed.status == 400 && unnamed.text(of: "error")?.contains("display name") == true)
            #expect(unnamed.body.contains("id=\"anonymous\" name=\"anonymous\" value=\"on\" checked"), "what was ticked stays ticked")
            let created = try await console.post("/console/tenants", [("csrf", token), ("display-name", "Acme Corp"), ("email-password", "on")])
            #expect(created.status == 303 && created.location == "/console/tenants?notice=tenantCreated")

            // Listed with its name, its sign-in methods and its users.
            let listed = try await console.get("/console/tenants")
            let tenantID = try #require(ConsoleClient.Page.capture(#"data-tenant="([^"]*)""#, in: listed.body))
            #expect(tenantID.hasPrefix("acme-corp-") && listed.text(of: "tenant-count") == "1 tenants")
            let key = Realm(projectID: server.projectID, tenantID: tenantID).key
            let row = try #require(ConsoleClient.Page.capture(#"(?s)(<tr data-tenant="[^"]*">.*?</tr>)"#, in: listed.body))
            #expect(row.contains("<td>Acme Corp</td>") && row.contains("Email/password") && !row.contains("Anonymous")
                    && row.contains("<td>Enabled</td><td>0</td>"), "\(row)")
            let tenantUID = try #require(try await client.post("/v1/accounts:signUp", [
                "email": "tenant@example.com", "password": "secret-pass", "tenantId": .string(tenantID),
            ]).string("localId"))
            #expect(try await console.get("/console/tenants").body.contains("<td>Enabled</td><td>1</td>"))

            // Opened: the users page is the tenant's, and the header says so.
            let opened = try await console.post("/console/tenants/open", [("csrf", token), ("tenant", tenantID)])
            #expect(opened.status == 303 && opened.location == "/console/users?notice=tenantOpened")
            let tenantUsers = try await console.get("/console/users")
            #expect(tenantUsers.text(of: "tenant-id") == tenantID && Self.uids(tenantUsers) == [tenantUID])
            #expect(tenantUsers.body.contains("data-uid=\"\(tenantUID)\"") && !tenantUsers.body.contains("data-uid=\"\(projectUID)\""))
            #expect(try await console.get("/console/users/\(projectUID)").status == 404)
            #expect(try await console.post("/console/users/\(tenantUID)/disable", [("csrf", token)]).status == 303)
            #expect(try await server.server.store.accounts.user(projectID: key, localID: tenantUID)?.disabled == true)

            // Its sign-in methods and providers change, the project's do not.
            #expect(try await console.post("/console/sign-in/methods", [("csrf", token), ("anonymous", "on")]).status == 303)
            #expect(try await console.post("/console/sign-in/github", [
                ("csrf", token), ("github-enabled", "on"), ("github-client-id", "Iv1.tenant"), ("github-client-secret", "gh-secret"),
            ]).status == 303)
            let tenant = try #require(try await server.server.projects.project(key)).settings
            let project = try #require(try await server.server.projects.project(server.projectID)).settings
            #expect(tenant.signIn.anonymousEnabled && !tenant.signIn.emailPasswordEnabled)
            #expect(tenant.identityProviders["github.com"]?.clientID == "Iv1.tenant")
            #expect(project.signIn.emailPasswordEnabled && project.identityProviders["github.com"] == nil)
            #expect(try await console.get("/console/sign-in").body.contains("value=\"Iv1.tenant\""))
            #expect(try await client.post("/v1/accounts:signUp", [
                "email": "second@example.com", "password": "secret-pass", "tenantId": .string(tenantID),
            ]).errorCode == "OPERATION_NOT_ALLOWED")

            // The settings page stays the project's, and says so.
            let settings = try await console.get("/console/settings")
            #expect(settings.text(of: "tenant-id") == tenantID && settings.body.contains("id=\"project-wide\""))
            #expect(try await console.post("/console/settings/domains", [("csrf", token), ("domains", "app.example.com")]).status == 303)
            #expect(try await server.server.projects.project(server.projectID)?.settings.authorizedDomains == ["app.example.com"])

            // Back to the project: its users again, and no tenant in the header.
            let closed = try await console.post("/console/tenants/close", [("csrf", token)])
            #expect(closed.status == 303 && closed.location == "/console/users?notice=tenantClosed")
            let projectUsers = try await console.get("/console/users")
            #expect(projectUsers.text(of: "tenant-id") == nil)
            #expect(projectUsers.body.contains("data-uid=\"\(projectUID)\"") && !projectUsers.body.contains("data-uid=\"\(tenantUID)\""))

            // Deleting needs the box ticked; deleting the open tenant takes the session back to the project.
            #expect(try await console.post("/console/tenants/open", [("csrf", token), ("tenant", tenantID)]).status == 303)
            let unconfirmed = try await console.post("/console/tenants/delete", [("csrf", token), ("tenant", tenantID)])
            #expect(unconfirmed.status == 400 && unconfirmed.name == "tenants" && unconfirmed.text(of: "error")?.contains("Tick") == true)
            let deleted = try await console.post("/console/tenants/delete", [("csrf", token), ("tenant", tenantID), ("confirm-delete", "on")])
            #expect(deleted.status == 303 && deleted.location == "/console/tenants?notice=tenantDeleted")
            #expect(try await server.server.projects.project(key) == nil)
            #expect(try await server.server.store.accounts.user(projectID: key, localID: tenantUID) == nil)
            let afterDeletion = try await console.get("/console/users")
            #expect(afterDeletion.text(of: "tenant-id") == nil && afterDeletion.body.contains("data-uid=\"\(projectUID)\""))
            #expect(try await console.post("/console/tenants/open", [("csrf", token), ("tenant", tenantID)]).status == 400)
        }
    }

    @Test func aServiceAccountOpensOnlyItsOwnProjectsTenants() async throws {
        try await withConsole(emulator: false) { server, console in
            let victim = Realm(projectID: server.projectID, tenantID: "victim-abcde")
            #expect(try await server.server.projects.createTenant(victim) { _ in } != nil)
            try await server.server.projects.ensureProject("other-app")
            let keyFile = try await server.server.serviceAccounts.create(projectID: "other-app")
            try await console.signIn(keyFile: keyFile, now: seconds(server))

            let tenants = try await console.get("/console/tenants")
            #expect(tenants.text(of: "tenant-count") == "0 tenants" && !tenants.body.contains("victim"))
            let token = try #require(tenants.csrfToken)
            for named in ["victim-abcde", victim.key] {
                let refused = try await console.post("/console/tenants/open", [("csrf", token), ("tenant", named)])
                #expect(refused.status == 400 && refused.text(of: "error")?.contains("listed tenants") == true, "\(named)")
                let kept = try await console.post("/console/tenants/delete", [("csrf", token), ("tenant", named), ("confirm-delete", "on")])
                #expect(kept.status == 400, "\(named)")
            }
            #expect(try await server.server.projects.project(victim.key) != nil)
            let users = try await console.get("/console/users")
            #expect(users.text(of: "project-id") == "other-app" && users.text(of: "tenant-id") == nil)
        }
    }
}
