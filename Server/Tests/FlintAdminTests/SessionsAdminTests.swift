import FlintAdmin
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// FlintAdmin's calls of a user's sessions against a live server (`v2/projects/{p}[/tenants/{t}]/accounts/{uid}/sessions`,
/// a Flint extension): two sign-ins are two sessions, ending one leaves the other, and `checkRevoked` refuses the ended
/// one's ID tokens and session cookies. Then firebase-admin, which knows nothing of sessions, against the same server.
@Suite struct SessionsAdminTests {
    /// A sign-in's ID token and refresh token.
    struct SignIn {
        let idToken: String
        let refreshToken: String
        var sid: String? { OAuthClientAdminTests.claims(idToken)["sid"]?.stringValue }
    }

    static func signIn(_ client: TestClient, email: String, password: String, tenantID: String? = nil,
                       device: String) async throws -> SignIn {
        var body: [String: JSONValue] = ["email": .string(email), "password": .string(password), "returnSecureToken": true]
        if let tenantID { body["tenantId"] = .string(tenantID) }
        let reply = try await client.post("/v1/accounts:signInWithPassword", body, headers: ["User-Agent": device])
        return SignIn(idToken: try #require(reply.string("idToken"), "\(reply.body)"),
                      refreshToken: try #require(reply.string("refreshToken"), "\(reply.body)"))
    }

    /// A refresh at securetoken's path, form-encoded as the JS SDK sends it.
    static func refresh(_ client: TestClient, _ refreshToken: String) async throws -> TestClient.Reply {
        try await client.send("POST", "/securetoken.googleapis.com/v1/token",
                              body: Data("grant_type=refresh_token&refresh_token=\(refreshToken)".utf8),
                              headers: ["Content-Type": "application/x-www-form-urlencoded"])
    }

    /// Two sign-ins of one user are two sessions; ending one refuses its refresh and, with `checkRevoked`, its ID
    /// token and session cookie, while the other goes on; unknown sessions are `sessionNotFound`.
    @Test(arguments: TestDatabase.allCases)
    func endingOneSessionLeavesTheOther(database: TestDatabase) async throws {
        try await LiveFlintTests.withProduction(database) { auth, server, client in
            let ada = try await auth.createUser(NewUser(email: "ada@example.com", password: "correct horse"))
            let laptop = try await Self.signIn(client, email: "ada@example.com", password: "correct horse", device: "Laptop/1.0")
            server.clock.advance(seconds: 2)
            let phone = try await Self.signIn(client, email: "ada@example.com", password: "correct horse", device: "Phone/2.0")
            let laptopSID = try #require(laptop.sid, "\(OAuthClientAdminTests.claims(laptop.idToken))")
            let phoneSID = try #require(phone.sid)
            #expect(laptopSID != phoneSID)

            // Listed, the most recently refreshed first, their ids the tokens' sid.
            let sessions = try await auth.sessions(uid: ada.uid)
            #expect(sessions.map(\.sessionId) == [phoneSID, laptopSID], "\(sessions)")
            #expect(sessions.allSatisfy { $0.signInProvider == "password" && $0.tenantId == nil && !$0.createTime.isEmpty })
            #expect(sessions.map(\.createUserAgent) == ["Phone/2.0", "Laptop/1.0"], "\(sessions)")

            #expect(try await auth.verifyIDToken(laptop.idToken, checkRevoked: true).sessionID == laptopSID)
            #expect(try await auth.verifyIDToken(phone.idToken, checkRevoked: true).sessionID == phoneSID)
            let laptopCookie = try await auth.createSessionCookie(idToken: laptop.idToken, expiresIn: 3600)
            #expect(try await auth.verifySessionCookie(laptopCookie, checkRevoked: true).sessionID == laptopSID)

            // The laptop's session ends: its tokens are refused where revocation is checked, the phone's are not.
            try await auth.revokeSession(uid: ada.uid, sessionID: laptopSID)
            #expect(try await auth.sessions(uid: ada.uid).map(\.sessionId) == [phoneSID])
            await expectAdminError(.idTokenRevoked) { try await auth.verifyIDToken(laptop.idToken, checkRevoked: true) }
            await expectAdminError(.sessionCookieRevoked) { try await auth.verifySessionCookie(laptopCookie, checkRevoked: true) }
            // Without checkRevoked, a token is good for its hour, as ever.
            #expect(try await auth.verifyIDToken(laptop.idToken).uid == ada.uid)
            #expect(try await auth.verifyIDToken(phone.idToken, checkRevoked: true).uid == ada.uid)

            let refused = try await Self.refresh(client, laptop.refreshToken)
            #expect(refused.status == 400 && refused.errorMessage?.hasPrefix("TOKEN_EXPIRED") == true, "\(refused.body)")
            let refreshed = try await Self.refresh(client, phone.refreshToken)
            #expect(refreshed.status == 200, "\(refreshed.body)")
            let phoneAgain = try #require(refreshed.string("id_token"))
            #expect(try await auth.verifyIDToken(phoneAgain, checkRevoked: true).sessionID == phoneSID)

            // Unknown, already ended, another user's: not found. Arguments are checked before sending.
            await expectAdminError(.sessionNotFound) { try await auth.revokeSession(uid: ada.uid, sessionID: laptopSID) }
            await expectAdminError(.sessionNotFound) { try await auth.revokeSession(uid: ada.uid, sessionID: "no-such-session") }
            let bob = try await auth.createUser(NewUser(email: "bob@example.com", password: "battery staple"))
            await expectAdminError(.sessionNotFound) { try await auth.revokeSession(uid: bob.uid, sessionID: phoneSID) }
            #expect(try await auth.sessions(uid: bob.uid).isEmpty)
            await expectAdminError(.invalidUID) { try await auth.sessions(uid: "") }
            await expectAdminError(.invalidArgument) { try await auth.revokeSession(uid: ada.uid, sessionID: "") }

            // Revoking the refresh tokens still ends every session (a second later: revocation counts whole seconds).
            server.clock.advance(seconds: 2)
            try await auth.revokeRefreshTokens(uid: ada.uid)
            #expect(try await auth.sessions(uid: ada.uid).isEmpty)
            #expect(try await Self.refresh(client, phone.refreshToken).status == 400)
        }
    }

    /// A tenant's user: its sessions are the tenant's client's to list and end, and the project's client, verifying
    /// the tenant's token with `checkRevoked`, asks the tenant's sessions.
    @Test func aTenantUsersSessions() async throws {
        try await LiveFlintTests.withProduction(.sqlite) { auth, server, client in
            let tenantID = try #require(try await auth.createTenant(Tenant(displayName: "Acme", allowPasswordSignup: true)).tenantId)
            let acme = auth.tenant(tenantID)
            let user = try await acme.createUser(NewUser(email: "t@example.com", password: "tenant pass"))
            let first = try await Self.signIn(client, email: "t@example.com", password: "tenant pass", tenantID: tenantID,
                                              device: "One/1")
            server.clock.advance(seconds: 2)
            let second = try await Self.signIn(client, email: "t@example.com", password: "tenant pass", tenantID: tenantID,
                                               device: "Two/1")
            let firstSID = try #require(first.sid)
            let sessions = try await acme.sessions(uid: user.uid)
            #expect(sessions.map(\.sessionId) == [try #require(second.sid), firstSID], "\(sessions)")
            #expect(sessions.allSatisfy { $0.tenantId == tenantID })

            try await acme.revokeSession(uid: user.uid, sessionID: firstSID)
            await expectAdminError(.idTokenRevoked) { try await acme.verifyIDToken(first.idToken, checkRevoked: true) }
            await expectAdminError(.idTokenRevoked) { try await auth.verifyIDToken(first.idToken, checkRevoked: true) }
            #expect(try await auth.verifyIDToken(second.idToken, checkRevoked: true).tenantID == tenantID)
            #expect(try await Self.refresh(client, first.refreshToken).status == 400)
            #expect(try await Self.refresh(client, second.refreshToken).status == 200)
        }
    }

    /// Flint's emulator mode has the sessions too, and FlintAdmin's emulator client (which cannot tell it from the
    /// official emulator) checks them.
    @Test func anEmulatorOfFlintsChecksSessionsToo() async throws {
        try await LiveFlintTests.withEmulator(.sqlite) { auth, _, client in
            let ada = try await auth.createUser(NewUser(email: "ada@example.com", password: "correct horse"))
            let one = try await Self.signIn(client, email: "ada@example.com", password: "correct horse", device: "One/1")
            let two = try await Self.signIn(client, email: "ada@example.com", password: "correct horse", device: "Two/1")
            let oneSID = try #require(one.sid)
            #expect(Set(try await auth.sessions(uid: ada.uid).map(\.sessionId)) == [oneSID, try #require(two.sid)])
            try await auth.revokeSession(uid: ada.uid, sessionID: oneSID)
            await expectAdminError(.idTokenRevoked) { try await auth.verifyIDToken(one.idToken, checkRevoked: true) }
            #expect(try await auth.verifyIDToken(two.idToken, checkRevoked: true).uid == ada.uid)
        }
    }

    /// firebase-admin (PyPI), which knows nothing of sessions: ending one session (with the admin REST call) does not
    /// revoke the user's other tokens for its `check_revoked`, and `revoke_refresh_tokens` still ends every session.
    /// In emulator mode: firebase-admin verifies Flint's production tokens nowhere, since it trusts Google's issuer only.
    @Test func firebaseAdminSeesOtherSessionsLiveOn() async throws {
        try await withServer { server, _ in
            // `revoke_refresh_tokens` dates the revocation by the script's clock: keep the server's behind it.
            server.clock.advance(seconds: -5)
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("python/sessions_firebase_admin.py")
            let process = try ChildProcess.launch(
                "python3", [script.path],
                environment: ChildProcess.environment.merging([
                    "FIREBASE_AUTH_EMULATOR_HOST": "127.0.0.1:\(server.port)", "FLINT_PROJECT": server.projectID,
                ]) { $1 },
                errors: .standardOutput)
            let result = await process.finish()
            #expect(result.status == 0, "\(result.output)")
        }
    }
}

// The sessions snippet of FlintAdminCore.docc/ManagingUsers.md, as the page shows it; that it compiles is the test.
enum SessionsDocsSnippets {
    static func endTheLostPhone(auth: AdminAuth) async throws {
        let ada = try await auth.user(email: "ada@example.com")
        let sessions = try await auth.sessions(uid: ada.uid)
        if let lost = sessions.first(where: { $0.lastRefreshUserAgent?.contains("iPhone") == true }) {
            try await auth.revokeSession(uid: ada.uid, sessionID: lost.sessionId)
        }
    }
}
