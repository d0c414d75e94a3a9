import FlintAdmin
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// FlintAdmin's reading of the audit trail against a live server (`v2/projects/{p}[/tenants/{t}]/auditEvents`, a
/// Flint extension): filters that combine, pages followed by hand and by `allAuditEvents`, a tenant's own trail, and
/// the arguments checked before anything is sent.
@Suite struct AuditEventsAdminTests {
    /// Real changes, read back with each filter and in pages of two, the same events whichever way they are read.
    @Test(arguments: TestDatabase.allCases)
    func filtersCombineAndPagesFollowOn(database: TestDatabase) async throws {
        try await LiveFlintTests.withProduction(database) { auth, server, client in
            let ada = try await auth.createUser(NewUser(email: "ada@example.com", password: "correct horse"))
            let wrong = try await client.post("/v1/accounts:signInWithPassword", [
                "email": "ada@example.com", "password": "not the password", "returnSecureToken": true,
            ])
            #expect(wrong.status == 400, "\(wrong.body)")
            _ = try await LiveFlintTests.signIn(client, email: "ada@example.com", password: "correct horse")
            try await auth.updateUser(uid: ada.uid, UserUpdate(disabled: true))
            // A minute later, another user.
            server.clock.advance(seconds: 60)
            let later = server.clock.now()
            let bob = try await auth.createUser(NewUser(email: "bob@example.com", password: "battery staple"))

            // Ada's events, the newest first; the admin's carry its service account, the user's own `user`.
            let adas = try await auth.auditEvents(AuditEventQuery(uid: ada.uid)).events
            #expect(adas.map(\.type) == [.sessionsRevoked, .userDisabled, .signIn, .signInFailed, .signUp], "\(adas.map(\.type))")
            #expect(adas.allSatisfy { $0.localId == ada.uid && $0.tenantId == nil && $0.ipAddress == "127.0.0.1" })
            #expect(adas.first { $0.type == .userDisabled }?.principal.hasPrefix("serviceAccount:") == true, "\(adas)")
            #expect(adas.first { $0.type == .signInFailed }?.principal == "user")

            // Filters combine: types, times, the address.
            let signIns = try await auth.auditEvents(AuditEventQuery(uid: ada.uid, types: [.signIn, .signInFailed])).events
            #expect(signIns.map(\.type) == [.signIn, .signInFailed], "\(signIns)")
            #expect(try await auth.auditEvents(AuditEventQuery(types: [.signUp], start: later)).events.map(\.localId) == [bob.uid])
            #expect(try await auth.auditEvents(AuditEventQuery(uid: bob.uid, end: later)).events.isEmpty)
            #expect(try await auth.auditEvents(AuditEventQuery(uid: ada.uid, ipAddress: "127.0.0.1")).events == adas)
            #expect(try await auth.auditEvents(AuditEventQuery(ipAddress: "203.0.113.7")).events.isEmpty)

            // Pages of two, by hand and as a sequence: every event of the project once, in the order one page has them.
            let everything = try await auth.auditEvents(AuditEventQuery(pageSize: AuditEventQuery.maximumPageSize))
            #expect(everything.nextPageToken == nil && everything.events.count >= adas.count + 1)
            var byHand: [AuditEvent] = []
            var pageToken: String?
            repeat {
                let page = try await auth.auditEvents(AuditEventQuery(pageSize: 2), pageToken: pageToken)
                #expect(page.events.count <= 2)
                byHand += page.events
                pageToken = page.nextPageToken
            } while pageToken != nil
            #expect(byHand == everything.events)
            var streamed: [AuditEvent] = []
            for try await event in auth.allAuditEvents(AuditEventQuery(pageSize: 2)) { streamed.append(event) }
            #expect(streamed == everything.events)
            var filtered: [AuditEventType] = []
            for try await event in auth.allAuditEvents(AuditEventQuery(uid: ada.uid, pageSize: 1)) { filtered.append(event.type) }
            #expect(filtered == adas.map(\.type))

            // A deleted user's trail is still read by its uid.
            try await auth.deleteUser(uid: bob.uid)
            #expect(try await auth.auditEvents(AuditEventQuery(uid: bob.uid)).events.map(\.type) == [.userDeleted, .signUp])

            // Checked before sending; a page token the server did not give.
            await expectAdminError(.invalidArgument) { try await auth.auditEvents(AuditEventQuery(pageSize: 0)) }
            await expectAdminError(.invalidArgument) { try await auth.auditEvents(AuditEventQuery(pageSize: 1001)) }
            await expectAdminError(.invalidUID) { try await auth.auditEvents(AuditEventQuery(uid: "")) }
            await expectAdminError(.invalidArgument) {
                try await auth.auditEvents(AuditEventQuery(start: Date(timeIntervalSince1970: -1)))
            }
            await expectAdminError(.invalidPageToken) { try await auth.auditEvents(pageToken: "not-a-token") }
            await expectAdminError(.invalidArgument) {
                for try await _ in auth.allAuditEvents(AuditEventQuery(pageSize: 0)) {}
            }
        }
    }

    /// A tenant's client reads its tenant's trail, and the project's client the project's: neither sees the other's.
    @Test func aTenantsTrailIsItsOwn() async throws {
        try await LiveFlintTests.withProduction(.sqlite) { auth, _, _ in
            let tenantID = try #require(try await auth.createTenant(Tenant(displayName: "Acme", allowPasswordSignup: true)).tenantId)
            let acme = auth.tenant(tenantID)
            let member = try await acme.createUser(NewUser(email: "t@example.com", password: "tenant pass"))
            let own = try await auth.createUser(NewUser(email: "p@example.com", password: "project pass"))

            let tenants = try await acme.auditEvents().events
            #expect(tenants.map(\.type) == [.signUp] && tenants.first?.localId == member.uid && tenants.first?.tenantId == tenantID,
                    "\(tenants)")
            let projects = try await auth.auditEvents(AuditEventQuery(types: [.signUp])).events
            #expect(projects.map(\.localId) == [own.uid], "\(projects)")
            #expect(try await auth.auditEvents().events.contains { $0.type == .tenantCreated })
        }
    }
}
