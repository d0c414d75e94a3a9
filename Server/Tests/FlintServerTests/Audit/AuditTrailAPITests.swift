import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The audit trail over REST: real actions write their events (the user's, a refused sign-in, an admin's change, who
/// made it and from where), and the admin API reads them back with filters and keyset pages.
@Suite struct AuditTrailAPITests {
    static let owner = ["Authorization": "Bearer owner"]

    static func events(_ client: TestClient, _ project: String, _ query: String = "") async throws -> [JSONValue] {
        let page = try await client.send("GET", "/v2/projects/\(project)/auditEvents?pageSize=1000\(query)", headers: owner)
        #expect(page.status == 200, "\(page.body)")
        return page["events"]?.arrayValue ?? []
    }

    @Test(arguments: TestDatabase.allCases)
    func userActionsAndAdminChangesAreRecorded(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let project = server.projectID
            let localID = try #require(try await client.signUp(email: "audit@example.com", password: "secret-pass-1").string("localId"))
            let wrong = try await client.post("/v1/accounts:signInWithPassword", [
                "email": "audit@example.com", "password": "not-the-password", "returnSecureToken": true,
            ], headers: ["User-Agent": "Attacker/1.0"])
            #expect(wrong.status == 400)
            let device = try await client.signIn(email: "audit@example.com", password: "secret-pass-1", device: "Phone/1.0")
            let update = try await client.post("/v1/projects/\(project)/accounts:update", [
                "localId": .string(localID), "disableUser": true, "customAttributes": "{\"role\":\"admin\"}",
            ], headers: Self.owner)
            #expect(update.status == 200, "\(update.body)")

            let events = try await Self.events(client, project, "&localId=\(localID)")
            let types = events.compactMap { $0["type"]?.stringValue }
            // Newest first; disabling the account ended its sessions, as in Firebase.
            #expect(types == ["sessionsRevoked", "claimsChanged", "userDisabled", "signIn", "signInFailed", "signUp"], "\(types)")
            let failed = try #require(events.first { $0["type"] == "signInFailed" })
            #expect(failed["detail"]?["method"] == "password" && failed["detail"]?["reason"] == "INVALID_PASSWORD"
                        && failed["userAgent"] == "Attacker/1.0" && failed["ipAddress"] == "127.0.0.1" && failed["principal"] == "user",
                    "\(failed)")
            let signIn = try #require(events.first { $0["type"] == "signIn" })
            #expect(signIn["sessionId"]?.stringValue == SessionsAPITests.sid(device.idToken) && signIn["userAgent"] == "Phone/1.0")
            // RFC 3339 in UTC to the millisecond, and read back by the time filters as the same instant.
            let time = try #require(signIn["time"]?.stringValue)
            #expect(time.count == 24 && time.hasSuffix("Z"), "\(time)")
            #expect(try await Self.events(client, project, "&type=signIn&startTime=\(time)&endTime=\(time)").isEmpty)
            let atThatTime = try await Self.events(client, project, "&type=signIn&startTime=\(time)")
            #expect(atThatTime.compactMap { $0["time"]?.stringValue }.min() == time, "\(atThatTime)")
            #expect(events.first { $0["type"] == "userDisabled" }?["principal"] == "owner")
            #expect(events.first { $0["type"] == "claimsChanged" }?["operation"]?.stringValue?.hasSuffix("accounts:update") == true)

            // Filters: by type, by address, by time; pages by key.
            #expect(try await Self.events(client, project, "&type=signInFailed").count == 1)
            #expect(try await Self.events(client, project, "&ipAddress=10.0.0.1").isEmpty)
            #expect(try await Self.events(client, project, "&endTime=2000-01-01T00:00:00Z").isEmpty)
            var seen: [String] = []
            var token = ""
            repeat {
                let page = try await client.send(
                    "GET", "/v2/projects/\(project)/auditEvents?localId=\(localID)&pageSize=2\(token.isEmpty ? "" : "&pageToken=\(token)")",
                    headers: Self.owner)
                seen += page["events"]?.arrayValue?.compactMap { $0["eventId"]?.stringValue } ?? []
                token = page["nextPageToken"]?.stringValue ?? ""
            } while !token.isEmpty
            #expect(seen == events.compactMap { $0["eventId"]?.stringValue })

            // Not for users; bad filters are INVALID_ARGUMENT.
            let anonymous = try await client.send("GET", "/v2/projects/\(project)/auditEvents")
            #expect([401, 403].contains(anonymous.status), "\(anonymous.body)")
            #expect(try await client.send("GET", "/v2/projects/\(project)/auditEvents?type=nonsense", headers: Self.owner)
                .errorCode == "INVALID_ARGUMENT")
        }
    }

    @Test func aChangeThatFailsRecordsNothing() async throws {
        try await withServer { server, client in
            _ = try await client.signUp(email: "one@example.com", password: "secret-pass-1")
            let other = try #require(try await client.signUp(email: "two@example.com", password: "secret-pass-1").string("localId"))
            let before = try await Self.events(client, server.projectID).count
            // The email is taken: the transaction rolls back, and with it its event.
            let taken = try await client.post("/v1/projects/\(server.projectID)/accounts:update", [
                "localId": .string(other), "email": "one@example.com",
            ], headers: Self.owner)
            #expect(taken.errorCode == "EMAIL_EXISTS", "\(taken.body)")
            #expect(try await Self.events(client, server.projectID).count == before)
        }
    }

    @Test func configChangesNameTheirFieldsNotTheirValues() async throws {
        try await withServer(emulator: false) { server, client in
            let project = server.projectID
            let serviceAccount = try await server.server.serviceAccounts.create(projectID: project)
            let admin = ["Authorization": "Bearer " + (try serviceAccount.signedJWT(
                audience: "https://identitytoolkit.googleapis.com/", now: server.clock.seconds)), "Content-Type": "application/json"]
            let body: JSONValue = ["auditTrail": ["retentionDays": 30, "webhookUrl": "https://siem.example.com/in",
                                                  "webhookSecret": "a-webhook-secret-of-32-bytes!!!!"]]
            let patched = try await client.send("PATCH", "/v2/projects/\(project)/config?updateMask=auditTrail",
                                                body: try JSONEncoder().encode(body), headers: admin)
            #expect(patched.status == 200, "\(patched.body)")
            #expect(patched["auditTrail"]?["webhookSecret"] == nil && patched["auditTrail"]?["webhookSecretSet"] == true)
            let events = try await client.send("GET", "/v2/projects/\(project)/auditEvents?type=configChanged", headers: admin)
            let change = try #require(events["events"]?.arrayValue?.first, "\(events.body)")
            #expect(change["fields"]?.arrayValue?.contains("auditTrail") == true
                        && change["principal"] == .string("serviceAccount:" + serviceAccount.private_key_id), "\(change)")
            #expect(!String(decoding: events.data, as: UTF8.self).contains("a-webhook-secret"))
        }
    }
}
