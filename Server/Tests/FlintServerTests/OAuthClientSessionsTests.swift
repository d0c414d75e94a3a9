import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The OpenID provider's sessions among the user's: a client's token family is listed with the sign-ins (its
/// `clientId`, no address of its own, where its last refresh puts it), and ending it, by the user, by "all but current" or
/// by an admin, revokes the family at once.
@Suite struct OAuthClientSessionsTests {
    @Test(arguments: TestDatabase.allCases)
    func aClientsSessionIsListedAndEndedWithTheSignIns(database: TestDatabase) async throws {
        try await ProviderFixture.with(database: database) { fixture in
            let (clientID, _) = try await fixture.register([
                "displayName": "CLI", "type": "PUBLIC", "redirectUris": ["http://127.0.0.1/callback"], "firstParty": true,
            ])
            let browser = CookieBrowser()
            let redirectURI = "http://127.0.0.1:50123/callback"
            func authorize() async throws -> String {
                let start = try await browser.send("GET", fixture.authorizeURL(clientID: clientID, redirectURI: redirectURI))
                var next = try #require(start.headers["location"], "\(start.body)")
                // Signed in already on the provider's page, the browser comes straight back with a code.
                if !next.hasPrefix(redirectURI) {
                    next = try await fixture.signInOnPage(browser, signInPage: next, email: "cli@example.com")
                }
                let code = try #require(URLComponents(string: next)?.queryItems?.first { $0.name == "code" }?.value, "\(next)")
                let tokens = try await fixture.exchange(code, clientID: clientID, secret: nil, redirectURI: redirectURI)
                return try #require(tokens.json["refresh_token"]?.stringValue, "\(tokens.body)")
            }
            func refresh(_ token: String) async throws -> CookieBrowser.Answer {
                try await fixture.tokenCall([("grant_type", "refresh_token"), ("refresh_token", token)], clientID: clientID, secret: nil)
            }
            let firstToken = try await authorize()
            let device = try await fixture.client.post("/v1/accounts:signInWithPassword", [
                "email": "cli@example.com", "password": "secret-pass-1", "returnSecureToken": true,
            ])
            let idToken = try #require(device.string("idToken"))
            let uid = try #require(device.string("localId"))
            func listed() async throws -> [UserSession] {
                let reply = try await fixture.client.post("/v2/accounts/sessions:list", ["idToken": .string(idToken)])
                #expect(reply.status == 200, "\(reply.body)")
                return try JSONDecoder().decode(ListUserSessionsResponse.self, from: reply.data).sessions
            }

            // Two minutes on, the client refreshes: its session is the most recently used.
            fixture.server.clock.advance(seconds: 120)
            let rotated = try #require(try await refresh(firstToken).json["refresh_token"]?.stringValue)
            let sessions = try await listed()
            let clients = sessions.filter { $0.clientId != nil }
            #expect(clients.count == 1 && sessions.first?.clientId == clientID, "\(sessions)")
            let family = try #require(clients.first)
            #expect(family.signInProvider == "password" && family.current == false && family.createIpAddress == nil
                        && family.createTime < family.lastRefreshTime, "\(family)")
            #expect(sessions.filter { $0.clientId == nil }.allSatisfy { $0.createIpAddress == "127.0.0.1" })
            let adminList = try await fixture.client.send("GET", "/v2/projects/\(fixture.server.projectID)/accounts/\(uid)/sessions",
                                                          headers: fixture.admin)
            #expect(try JSONDecoder().decode(ListUserSessionsResponse.self, from: adminList.data).sessions.map(\.sessionId)
                        == sessions.map(\.sessionId))

            // The user ends it: the client's refresh token is refused at once; the trail names the client.
            let ended = try await fixture.client.post("/v2/accounts/sessions:revoke", [
                "idToken": .string(idToken), "sessionId": .string(family.sessionId),
            ])
            #expect(ended.status == 200 && ended["revokedSessionIds"] == [.string(family.sessionId)], "\(ended.body)")
            #expect(try await refresh(rotated).json["error"] == "invalid_grant")
            #expect(try await listed().allSatisfy { $0.clientId == nil })
            let events = try await fixture.server.server.store.audit.events(
                realm: fixture.server.projectID, AuditFilter(localID: uid, types: [.sessionEnded]), before: nil, limit: 10)
            #expect(events.map(\.entry.sessionID) == [family.sessionId] && events.first?.entry.detail == ["clientId": clientID])
            let again = try await fixture.client.post("/v2/accounts/sessions:revoke", [
                "idToken": .string(idToken), "sessionId": .string(family.sessionId),
            ])
            #expect(again.errorMessage == "SESSION_NOT_FOUND")

            // A new grant; "all but current" ends it with the other sign-ins, and leaves the one asking.
            let secondToken = try await authorize()
            #expect(try await listed().contains { $0.clientId == clientID })
            let others = try await fixture.client.post("/v2/accounts/sessions:revoke", [
                "idToken": .string(idToken), "allButCurrent": true,
            ])
            #expect(others.status == 200, "\(others.body)")
            #expect(try await refresh(secondToken).json["error"] == "invalid_grant")
            #expect(try await listed().map(\.current) == [true])

            // An admin ends a third grant's session by its ID.
            let thirdToken = try await authorize()
            let third = try #require(try await listed().first { $0.clientId == clientID })
            let deleted = try await fixture.client.send(
                "DELETE", "/v2/projects/\(fixture.server.projectID)/accounts/\(uid)/sessions/\(third.sessionId)", headers: fixture.admin)
            #expect(deleted.status == 200, "\(deleted.body)")
            #expect(try await refresh(thirdToken).json["error"] == "invalid_grant")
        }
    }
}
