import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Sessions one by one over REST: two devices sign in; each sees both (its own marked), with where each signed in and
/// last refreshed from; one ends the other, whose refresh is refused at once on the other node and whose ID token
/// stops working, while its own keeps working; "all but current" leaves the current one; an admin lists and ends
/// them too; `revokeRefreshTokens` still ends them all.
@Suite struct SessionsAPITests {
    static func signIn(_ client: TestClient, device: String) async throws -> TestClient.DeviceSession {
        try await client.signIn(email: "two@example.com", password: "secret-pass-1", device: device)
    }

    static func sid(_ idToken: String) -> String? {
        let parts = idToken.split(separator: ".")
        guard parts.count == 3, let data = Base64URL.decode(parts[1]),
              let claims = try? JSONDecoder().decode(JSONValue.self, from: data) else { return nil }
        return claims["sid"]?.stringValue
    }

    @Test(arguments: TestDatabase.allCases)
    func aUserEndsOneDeviceAndKeepsTheOther(database: TestDatabase) async throws {
        try await withTwoNodes(database: database) { server, clients in
            let (nodeA, nodeB) = (clients[0], clients[1])
            let localID = try #require(try await nodeA.signUp(email: "two@example.com", password: "secret-pass-1").string("localId"))
            let phone = try await Self.signIn(nodeA, device: "Phone/1.0")
            let laptop = try await Self.signIn(nodeB, device: "Laptop/2.0")
            let phoneSID = try #require(Self.sid(phone.idToken)), laptopSID = try #require(Self.sid(laptop.idToken))
            #expect(phoneSID != laptopSID)

            let listed = try await nodeA.post("/v2/accounts/sessions:list", ["idToken": .string(phone.idToken)])
            let sessions = listed["sessions"]?.arrayValue ?? []
            // The sign-up's own session, and the two devices'.
            #expect(listed.status == 200 && sessions.count == 3, "\(listed.body)")
            let mine = try #require(sessions.first { $0["sessionId"]?.stringValue == phoneSID })
            #expect(mine["current"] == true && mine["createUserAgent"] == "Phone/1.0" && mine["signInProvider"] == "password"
                        && mine["createIpAddress"] == "127.0.0.1", "\(mine)")
            #expect(sessions.first { $0["sessionId"]?.stringValue == laptopSID }?["current"] == false)

            // A refresh from elsewhere is written down at once.
            #expect(try await nodeA.post("/securetoken.googleapis.com/v1/token", [
                "grant_type": "refresh_token", "refresh_token": .string(laptop.refreshToken),
            ], headers: ["User-Agent": "Laptop/2.1"]).status == 200)
            let relisted = try await nodeB.post("/v2/accounts/sessions:list", ["idToken": .string(laptop.idToken)])
            #expect(relisted["sessions"]?.arrayValue?.first { $0["sessionId"]?.stringValue == laptopSID }?["lastRefreshUserAgent"]
                        == "Laptop/2.1", "\(relisted.body)")

            // The phone ends the laptop's session: refused at once on the other node, its ID token too.
            let ended = try await nodeA.post("/v2/accounts/sessions:revoke", [
                "idToken": .string(phone.idToken), "sessionId": .string(laptopSID),
            ])
            #expect(ended.status == 200 && ended["revokedSessionIds"] == [.string(laptopSID)], "\(ended.body)")
            #expect(try await nodeB.refresh(laptop.refreshToken).errorCode == "TOKEN_EXPIRED")
            #expect(try await nodeB.lookup(idToken: laptop.idToken).errorCode == "TOKEN_EXPIRED")
            #expect(try await nodeB.refresh(phone.refreshToken).status == 200)
            #expect(try await nodeA.lookup(idToken: phone.idToken).status == 200)
            // Again, or someone else's: not found.
            let again = try await nodeA.post("/v2/accounts/sessions:revoke", [
                "idToken": .string(phone.idToken), "sessionId": .string(laptopSID),
            ])
            #expect(again.errorCode == "SESSION_NOT_FOUND", "\(again.body)")

            // All but current: only the phone's is left.
            let tablet = try await Self.signIn(nodeA, device: "Tablet/3.0")
            let others = try await nodeA.post("/v2/accounts/sessions:revoke", [
                "idToken": .string(phone.idToken), "allButCurrent": true,
            ])
            #expect(others["revokedSessionIds"]?.arrayValue?.count == 2, "\(others.body)")
            #expect(try await nodeB.refresh(tablet.refreshToken).errorCode == "TOKEN_EXPIRED")
            let left = try await nodeA.post("/v2/accounts/sessions:list", ["idToken": .string(phone.idToken)])
            #expect(left["sessions"]?.arrayValue?.compactMap { $0["sessionId"]?.stringValue } == [phoneSID], "\(left.body)")

            // An admin sees and ends sessions too.
            let project = server.projectID
            let owner = ["Authorization": "Bearer owner"]
            let tv = try await Self.signIn(nodeB, device: "TV/4.0")
            let adminList = try await nodeA.send("GET", "/v2/projects/\(project)/accounts/\(localID)/sessions", headers: owner)
            #expect(adminList["sessions"]?.arrayValue?.count == 2 && adminList["sessions"]?.arrayValue?.allSatisfy { $0["current"] == nil } == true,
                    "\(adminList.body)")
            let tvSID = try #require(Self.sid(tv.idToken))
            let adminEnd = try await nodeA.send("DELETE", "/v2/projects/\(project)/accounts/\(localID)/sessions/\(tvSID)", headers: owner)
            #expect(adminEnd.status == 200, "\(adminEnd.body)")
            #expect(try await nodeB.refresh(tv.refreshToken).errorCode == "TOKEN_EXPIRED")
            let unknown = try await nodeA.send("DELETE", "/v2/projects/\(project)/accounts/\(localID)/sessions/nope", headers: owner)
            #expect(unknown.errorCode == "SESSION_NOT_FOUND", "\(unknown.body)")
            // Without a token, or with neither a session nor allButCurrent: refused.
            #expect(try await nodeA.post("/v2/accounts/sessions:list", [:]).status == 400)
            #expect(try await nodeA.post("/v2/accounts/sessions:revoke", ["idToken": .string(phone.idToken)]).status == 400)

            // revokeRefreshTokens still ends them all.
            server.clock.advance(seconds: 1)
            let revoked = try await nodeA.admin("/v1/projects/\(project)/accounts:update", [
                "localId": .string(localID), "validSince": .string(String(server.clock.seconds)),
            ])
            #expect(revoked.status == 200, "\(revoked.body)")
            #expect(try await nodeB.refresh(phone.refreshToken).errorCode == "TOKEN_EXPIRED")
            let none = try await nodeA.send("GET", "/v2/projects/\(project)/accounts/\(localID)/sessions", headers: owner)
            #expect(none["sessions"] == [], "\(none.body)")
        }
    }

    /// A project's sessions end after going unused for its idle time, or past its lifetime; none by default.
    @Test func sessionsEndByThemselvesWhereTheProjectSaysSo() async throws {
        try await withServer { server, client in
            let project = server.projectID
            _ = try await client.signUp(email: "two@example.com", password: "secret-pass-1")
            let owner = ["Authorization": "Bearer owner"]
            func configure(_ policy: String) async throws -> TestClient.Reply {
                try await client.send("PATCH", "/v2/projects/\(project)/config?updateMask=sessionPolicy",
                                      body: Data(#"{"sessionPolicy":\#(policy)}"#.utf8), headers: owner)
            }
            // None by default: a session a week old and unused still refreshes.
            let old = try await Self.signIn(client, device: "Old/1.0")
            server.clock.advance(seconds: 7 * 86_400)
            #expect(try await client.refresh(old.refreshToken).status == 200)

            #expect(try await configure(#"{"idleTimeoutSeconds":60}"#).status == 400, "an idle time under an hour")
            let idle = try await configure(#"{"idleTimeoutSeconds":7200}"#)
            #expect(idle.status == 200 && idle["sessionPolicy"]?["idleTimeoutSeconds"] == 7200, "\(idle.body)")
            let used = try await Self.signIn(client, device: "Used/1.0")
            server.clock.advance(seconds: 2 * 3600)
            #expect(try await client.refresh(used.refreshToken).status == 200, "used within its idle time")
            server.clock.advance(seconds: 3 * 3600 + 1)
            #expect(try await client.refresh(used.refreshToken).errorCode == "TOKEN_EXPIRED", "unused past its idle time")

            let lifetime = try await configure(#"{"maximumLifetimeSeconds":600}"#)
            #expect(lifetime["sessionPolicy"]?["idleTimeoutSeconds"] == nil, "\(lifetime.body)")
            let short = try await Self.signIn(client, device: "Short/1.0")
            server.clock.advance(seconds: 300)
            #expect(try await client.refresh(short.refreshToken).status == 200)
            let listed = try await client.post("/v2/accounts/sessions:list", ["idToken": .string(short.idToken)])
            #expect(listed["sessions"]?.arrayValue?.count == 1, "only the live one: \(listed.body)")
            server.clock.advance(seconds: 301)
            #expect(try await client.refresh(short.refreshToken).errorCode == "TOKEN_EXPIRED", "past its lifetime")
        }
    }
}

extension TestClient {
    /// A password sign-in from a device (its `User-Agent`): the session's tokens and its ID.
    struct DeviceSession {
        var idToken: String
        var refreshToken: String
        var sid: String
    }

    func signIn(email: String, password: String, device: String) async throws -> DeviceSession {
        let reply = try await post("/v1/accounts:signInWithPassword", [
            "email": .string(email), "password": .string(password), "returnSecureToken": true,
        ], headers: ["User-Agent": device])
        #expect(reply.status == 200, "\(reply.body)")
        let idToken = try #require(reply.string("idToken"))
        return DeviceSession(idToken: idToken, refreshToken: try #require(reply.string("refreshToken")),
                             sid: try #require(SessionsAPITests.sid(idToken)))
    }
}
