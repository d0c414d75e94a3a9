import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Email action codes over HTTP: sign-in links, password reset, verification, change and recovery,
/// enumeration protection and limits.
@Suite struct EmailLinkAPITests {
    static let continueURL = "http://localhost:8080/finish"

    @Test(arguments: TestDatabase.allCases)
    func signInLinkCreatesTheUserThenSignsItIn(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let email = "ada@example.com"
            let first = try await client.signInWithLink(email, server: server)
            #expect(first["isNewUser"] == .bool(true))
            #expect(first.string("email") == email)
            let user = try await client.lookup(idToken: first.string("idToken")).firstUser
            #expect(user?["emailVerified"] == .bool(true))
            #expect(user?["emailLinkSignin"] == .bool(true))
            #expect(claims(of: first.string("idToken"))["firebase"]?.objectValue?["sign_in_provider"] == .string("password"))

            let second = try await client.signInWithLink(email, server: server, legacy: true)
            #expect(second["isNewUser"] == .bool(false))
            #expect(second.string("localId") == first.string("localId"))
        }
    }

    @Test func emulatorListsCodesWithItsOwnActionLinks() async throws {
        try await withServer { server, client in
            let sent = try await client.sendSignInLink("ada@example.com")
            #expect(sent.status == 200)
            #expect(sent.string("email") == "ada@example.com")
            let entry = try #require(try await client.oobCodes(server).last)
            #expect(entry["requestType"] == .string("EMAIL_SIGNIN"))
            let link = try #require(entry["oobLink"]?.stringValue)
            #expect(link.hasPrefix(server.baseURL.absoluteString + "/emulator/action?"))
            #expect(link.contains("mode=signIn") && link.contains("continueUrl=http%3A%2F%2Flocalhost%3A8080%2Ffinish"))

            // The emulator's action page checks the code (and would send a browser on to continueUrl).
            var components = try #require(URLComponents(string: link))
            components.queryItems = components.queryItems?.filter { $0.name != "continueUrl" }
            let page = try await client.send("GET", "/emulator/action?" + (components.percentEncodedQuery ?? ""), includeKey: false)
            #expect(page["authEmulator"]?["success"] != nil, "\(page.body)")
            let bogus = try await client.send("GET", "/emulator/action?mode=signIn&oobCode=nope", includeKey: false)
            #expect(bogus.status == 400)
            #expect(bogus["authEmulator"]?["error"]?.stringValue == "INVALID_OOB_CODE")
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func linkErrors(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let cases: [([String: JSONValue], String)] = [
                (["email": "a@example.com"], "MISSING_REQ_TYPE"),
                (["requestType": "EMAIL_SIGNIN", "email": "a@example.com", "canHandleCodeInApp": true,
                  "continueUrl": "javascript:alert(1)"], "INVALID_CONTINUE_URI"),
                (["requestType": "EMAIL_SIGNIN", "email": "nope", "canHandleCodeInApp": true,
                  "continueUrl": .string(Self.continueURL)], "INVALID_EMAIL"),
                (["requestType": "EMAIL_SIGNIN", "email": "a@example.com", "canHandleCodeInApp": true,
                  "continueUrl": .string(Self.continueURL), "linkDomain": "links.evil.example"], "INVALID_HOSTING_LINK_DOMAIN"),
            ]
            for (body, code) in cases {
                let reply = try await client.post("/v1/accounts:sendOobCode", body)
                #expect(reply.errorCode == code, "\(body)")
            }
            // The SDKs show the text after the code to apps: Firebase's own explanation.
            #expect(try await client.post("/v1/accounts:sendOobCode", cases[3].0).errorMessage == "INVALID_HOSTING_LINK_DOMAIN : "
                + "The provided hosting link domain is not configured in Firebase Hosting or is not owned by the current project. "
                + "This cannot be a default hosting domain (web.app or firebaseapp.com).")

            _ = try await client.sendSignInLink("ada@example.com")
            let code = try #require(try await client.oobCodes(server).last?["oobCode"]?.stringValue)
            let wrongEmail = try await client.post(
                "/v1/accounts:signInWithEmailLink", ["email": "eve@example.com", "oobCode": .string(code)])
            #expect(wrongEmail.errorCode == "INVALID_EMAIL")
            let missing = try await client.post("/v1/accounts:signInWithEmailLink", ["email": "ada@example.com"])
            #expect(missing.errorCode == "MISSING_OOB_CODE")
            #expect(try await client.post(
                "/v1/accounts:signInWithEmailLink", ["email": "ada@example.com", "oobCode": .string(code)]).status == 200)
            let reused = try await client.post(
                "/v1/accounts:signInWithEmailLink", ["email": "ada@example.com", "oobCode": .string(code)])
            #expect(reused.errorCode == "INVALID_OOB_CODE")

            _ = try await client.sendSignInLink("ada@example.com")
            let late = try #require(try await client.oobCodes(server).last?["oobCode"]?.stringValue)
            server.clock.advance(seconds: 6 * 3600 + 1)
            let expired = try await client.post(
                "/v1/accounts:signInWithEmailLink", ["email": "ada@example.com", "oobCode": .string(late)])
            #expect(expired.errorCode == "EXPIRED_OOB_CODE")
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func theOwnersLinkLocksAPreRegisteredImpostorOut(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let email = "owner@example.com"
            let impostor = try await client.signUp(email: email, password: "impostor1")
            // Revocation works in whole seconds (validSince), so the owner arrives a second later.
            server.clock.advance(seconds: 1)
            let owner = try await client.signInWithLink(email, server: server)
            #expect(owner.string("localId") == impostor.string("localId"))
            #expect(owner["isNewUser"] == .bool(false))

            let password = try await client.post(
                "/v1/accounts:signInWithPassword", ["email": .string(email), "password": "impostor1"])
            #expect(password.errorCode == "INVALID_PASSWORD")
            let refreshed = try await client.refresh(impostor.string("refreshToken"))
            #expect(refreshed.errorCode == "TOKEN_EXPIRED")
            let user = try await client.lookup(idToken: owner.string("idToken")).firstUser
            #expect(user?["passwordHash"] == nil)
            #expect(user?["emailVerified"] == .bool(true))
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func passwordReset(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let email = "reset@example.com"
            let account = try await client.signUp(email: email, password: "old-secret")
            let sent = try await client.post("/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": .string(email)])
            #expect(sent.status == 200)
            let code = try #require(try await client.oobCodes(server).last?["oobCode"]?.stringValue)

            let check = try await client.post("/v1/accounts:resetPassword", ["oobCode": .string(code)])
            #expect(check.string("requestType") == "PASSWORD_RESET")
            #expect(check.string("email") == email)
            server.clock.advance(seconds: 1)
            let weak = try await client.post("/v1/accounts:resetPassword", ["oobCode": .string(code), "newPassword": "123"])
            #expect(weak.errorCode == "WEAK_PASSWORD")
            let reset = try await client.post("/v1/accounts:resetPassword", ["oobCode": .string(code), "newPassword": "new-secret"])
            #expect(reset.status == 200)
            #expect(try await client.post("/v1/accounts:resetPassword", ["oobCode": .string(code), "newPassword": "x-secret"])
                .errorCode == "INVALID_OOB_CODE")

            #expect(try await client.post(
                "/v1/accounts:signInWithPassword", ["email": .string(email), "password": "new-secret"]).status == 200)
            #expect(try await client.refresh(account.string("refreshToken")).errorCode == "TOKEN_EXPIRED")
            // Unknown address: the emulator (no enumeration protection) says so.
            let unknown = try await client.post(
                "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "nobody@example.com"])
            #expect(unknown.errorCode == "EMAIL_NOT_FOUND")
        }
    }

    @Test func verifyChangeAndRecoverAnEmailAddress() async throws {
        try await withServer { server, client in
            let account = try await client.signUp(email: "first@example.com", password: "secret123")
            let verify = try await client.post(
                "/v1/accounts:sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": account["idToken"]!])
            #expect(verify.status == 200)
            let verifyCode = try #require(try await client.oobCodes(server).last?["oobCode"]?.stringValue)
            let applied = try await client.post("/v1/accounts:update", ["oobCode": .string(verifyCode)])
            #expect(applied["emailVerified"] == .bool(true))

            let change = try await client.post("/v1/accounts:sendOobCode", [
                "requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": account["idToken"]!, "newEmail": "second@example.com",
            ])
            #expect(change.status == 200)
            let changeEntry = try #require(try await client.oobCodes(server).last?.objectValue)
            #expect(changeEntry["email"] == .string("first@example.com"))
            #expect(changeEntry["newEmail"] == .string("second@example.com"))
            let checked = try await client.post("/v1/accounts:resetPassword", ["oobCode": changeEntry["oobCode"]!])
            #expect(checked.string("requestType") == "VERIFY_AND_CHANGE_EMAIL")
            #expect(checked.string("email") == "first@example.com" && checked.string("newEmail") == "second@example.com")
            let changed = try await client.post("/v1/accounts:update", ["oobCode": changeEntry["oobCode"]!])
            #expect(changed.string("email") == "second@example.com")

            // The old address received a recovery link, which undoes the change.
            let recovery = try #require(try await client.oobCodes(server).last?.objectValue)
            #expect(recovery["requestType"] == .string("RECOVER_EMAIL"))
            #expect(recovery["email"] == .string("first@example.com"))
            let recovered = try await client.post("/v1/accounts:update", ["oobCode": recovery["oobCode"]!])
            #expect(recovered.string("email") == "first@example.com")
            // A sign-in link's code is not applicable through update.
            _ = try await client.sendSignInLink("other@example.com")
            let signInCode = try #require(try await client.oobCodes(server).last?["oobCode"])
            #expect(try await client.post("/v1/accounts:update", ["oobCode": signInCode]).errorCode == "INVALID_OOB_CODE")
        }
    }

    @Test func productionLinksEnumerationProtectionAndLimits() async throws {
        var limits = EmailLimits()
        limits.perAddressPerHour = 2
        try await withServer(emulator: false, configure: { $0.emailLimits = limits }) { server, client in
            // Production links: the hosted action page, wrapped in /__/auth/links for apps.
            let sent = try await client.sendSignInLink("ada@example.com")
            #expect(sent.status == 200, "\(sent.body)")
            // The mail leaves after the answer.
            await server.waitForOutbox()
            let link = try #require(server.log.all.last { $0.metadata["email"] == "ada@example.com" }?.metadata["link"])
            let base = server.baseURL.absoluteString
            #expect(link.hasPrefix(base + "/__/auth/links?link="))
            let inner = try #require(URLComponents(string: link)?.queryItems?.first { $0.name == "link" }?.value)
            #expect(inner.hasPrefix(base + "/__/auth/action?"))
            let items = URLComponents(string: inner)?.queryItems ?? []
            #expect(items.first { $0.name == "mode" }?.value == "signIn")
            #expect(items.first { $0.name == "apiKey" }?.value == server.apiKey)
            let code = try #require(items.first { $0.name == "oobCode" }?.value)
            #expect(try await client.post(
                "/v1/accounts:signInWithEmailLink", ["email": "ada@example.com", "oobCode": .string(code)]).status == 200)

            // Enumeration protection (on for new production projects): unknown addresses succeed, nothing is sent.
            let before = server.log.all.count
            let unknown = try await client.post(
                "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "nobody@example.com"])
            #expect(unknown.status == 200)
            await server.waitForOutbox()
            #expect(server.log.all.count == before)

            // Per-address limit (2 an hour): the third request is refused.
            #expect(try await client.sendSignInLink("ada@example.com").status == 200)
            #expect(try await client.sendSignInLink("ada@example.com").errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
        }
    }

    @Test func adminGeneratesLinksWithoutSending() async throws {
        try await withServer { server, client in
            _ = try await client.signUp(email: "ada@example.com", password: "secret123")
            let before = server.log.all.count
            let reply = try await client.admin("/v1/projects/\(server.projectID)/accounts:sendOobCode", [
                "requestType": "PASSWORD_RESET", "email": "ada@example.com", "returnOobLink": true,
            ])
            #expect(reply.status == 200, "\(reply.body)")
            #expect(reply.string("oobCode") != nil)
            #expect(reply.string("oobLink")?.contains("mode=resetPassword") == true)
            await server.waitForOutbox()
            #expect(server.log.all.count == before)
            let notAdmin = try await client.post(
                "/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "ada@example.com", "returnOobLink": true])
            #expect(notAdmin.status == 403)
        }
    }
}

extension TestClient {
    func sendSignInLink(_ email: String) async throws -> Reply {
        try await post("/v1/accounts:sendOobCode", [
            "requestType": "EMAIL_SIGNIN", "email": .string(email), "canHandleCodeInApp": true,
            "continueUrl": .string(EmailLinkAPITests.continueURL),
        ])
    }

    /// The emulator's oob-code listing.
    func oobCodes(_ server: TestServer) async throws -> [JSONValue] {
        try await send("GET", "/emulator/v1/projects/\(server.projectID)/oobCodes", includeKey: false)["oobCodes"]?.arrayValue ?? []
    }

    /// Sends a sign-in link (emulator mode), reads its code from the listing and signs in with it.
    func signInWithLink(_ email: String, server: TestServer, legacy: Bool = false,
                        sourceLocation: SourceLocation = #_sourceLocation) async throws -> Reply {
        let sent = try await sendSignInLink(email)
        #expect(sent.status == 200, "send failed: \(sent.body)", sourceLocation: sourceLocation)
        let code = try #require(try await oobCodes(server).last?["oobCode"], sourceLocation: sourceLocation)
        let path = legacy ? "/www.googleapis.com/identitytoolkit/v3/relyingparty/emailLinkSignin" : "/v1/accounts:signInWithEmailLink"
        let reply = try await post(path, ["email": .string(email), "oobCode": code])
        #expect(reply.status == 200, "link sign-in failed: \(reply.body)", sourceLocation: sourceLocation)
        return reply
    }
}
