import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// A user's sessions on the console's user page: each sign-in listed with how and where it signed in (its user agent
/// escaped), and ended one at a time with the session's anti-CSRF token, as the admin API's
/// `DELETE …/accounts/{uid}/sessions/{sessionId}` ends it: that session's refresh token is refused, the others' not.
extension ConsoleTests {
    @Test func aUsersSessionsAreListedAndEndedOnTheUserPage() async throws {
        try await withConsole(emulator: false) { server, console in
            let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
            #expect(try await console.signIn(keyFile: keyFile, now: seconds(server)).location == "/console/users")
            let client = TestClient(server)
            let uid = try #require(try await client.signUp(email: "ada@example.com", password: "secret-pass-1").string("localId"))
            func signIn(_ device: String) async throws -> TestClient.DeviceSession {
                try await client.signIn(email: "ada@example.com", password: "secret-pass-1", device: device)
            }
            let phone = try await signIn("Phone/1.0")
            let laptop = try await signIn("Laptop/2.0 <script>alert(1)</script>")

            let page = try await console.get("/console/users/\(uid)")
            #expect(page.status == 200 && page.body.contains("<table id=\"sessions\""), "\(page.body)")
            #expect(page.body.contains("data-session=\"\(phone.sid)\"") && page.body.contains("data-session=\"\(laptop.sid)\""))
            #expect(page.body.contains("Phone/1.0") && page.body.contains("127.0.0.1"))
            // A client's user agent is its own to choose: shown escaped, never as markup.
            #expect(page.body.contains("Laptop/2.0 &lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(!page.body.contains("<script>alert(1)"))
            #expect(page.body.contains("End session") && page.body.contains("id=\"revoke\""))

            // Without the form token: refused, and the session lives on.
            let path = "/console/users/\(uid)/end-session"
            #expect(try await console.post(path, [("session-id", laptop.sid)]).status == 403)
            #expect(try await client.refresh(laptop.refreshToken).status == 200)

            let token = try #require(page.csrfToken)
            let ended = try await console.post(path, [("csrf", token), ("session-id", laptop.sid)])
            #expect(ended.status == 303 && ended.location == "/console/users/\(uid)?notice=sessionEnded", "\(ended.body)")
            #expect(try await client.refresh(laptop.refreshToken).errorCode == "TOKEN_EXPIRED")
            #expect(try await client.refresh(phone.refreshToken).status == 200)
            let after = try await console.get("/console/users/\(uid)")
            #expect(!after.body.contains("data-session=\"\(laptop.sid)\"") && after.body.contains("data-session=\"\(phone.sid)\""))

            // Again, or another user's: not found, shown on the page.
            let again = try await console.post(path, [("csrf", token), ("session-id", laptop.sid)])
            #expect(again.status != 303 && again.body.contains("SESSION_NOT_FOUND"), "\(again.status) \(again.body)")
            #expect(try await client.refresh(phone.refreshToken).status == 200)
        }
    }
}
