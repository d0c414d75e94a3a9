import _CryptoExtras
import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The web console over HTTP: who may sign in, what protects its forms, and what its forms change.
@Suite struct ConsoleTests {
    /// A server with a console client; the client is shut down and the server stopped afterwards.
    func withConsole(emulator: Bool, database: TestDatabase = .sqlite,
                             _ body: (TestServer, ConsoleClient) async throws -> Void) async throws {
        try await withServer(emulator: emulator, database: database) { server, _ in
            let console = ConsoleClient(server)
            do {
                try await body(server, console)
            } catch {
                try? await console.shutdown()
                throw error
            }
            try await console.shutdown()
        }
    }

    func seconds(_ server: TestServer) -> Int64 { Int64(server.clock.now().timeIntervalSince1970) }

    @Test(arguments: TestDatabase.allCases)
    func aServiceAccountKeySignsIn(database: TestDatabase) async throws {
        try await withConsole(emulator: false, database: database) { server, console in
            let entry = try await console.get("/console")
            #expect(entry.status == 303 && entry.location == "/console/users")
            let unauthenticated = try await console.get("/console/users")
            #expect(unauthenticated.status == 303 && unauthenticated.location == "/console/login")

            let login = try await console.get("/console/login")
            #expect(login.status == 200 && login.name == "login")
            let policy = try #require(login.headers.first(name: "content-security-policy"))
            #expect(policy.contains("default-src 'none'") && policy.contains("form-action 'self'")
                    && policy.contains("frame-ancestors 'none'") && policy.contains("script-src 'sha256-"))
            #expect(login.headers.first(name: "x-frame-options") == "DENY")
            #expect(login.headers.first(name: "cache-control") == "no-store")
            #expect(login.body.contains("id=\"key-file\"") && !login.body.contains("name=\"key-file\""),
                    "the key file input must not be a form field")

            let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
            let signedIn = try await console.signIn(keyFile: keyFile, now: seconds(server))
            #expect(signedIn.status == 303 && signedIn.location == "/console/users", "\(signedIn.body)")
            let setCookie = signedIn.headers[canonicalForm: "set-cookie"].joined(separator: "\n")
            #expect(setCookie.contains("flint_console=") && setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
            let users = try await console.get("/console/users")
            #expect(users.status == 200 && users.name == "users")
            #expect(users.text(of: "project-id") == server.projectID)

            // Revoking the key ends the session at once.
            #expect(try await server.server.store.serviceAccounts.revokeServiceAccount(keyID: keyFile.private_key_id, at: seconds(server)))
            let afterRevocation = try await console.get("/console/users")
            #expect(afterRevocation.status == 303 && afterRevocation.location == "/console/login")
        }
    }

    @Test func forgedOrReplayedSignInsAreRefused() async throws {
        try await withConsole(emulator: false) { server, console in
            let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
            let otherServerKey = try await server.server.serviceAccounts.create(projectID: server.projectID)
            _ = try await server.server.store.serviceAccounts.revokeServiceAccount(keyID: otherServerKey.private_key_id, at: seconds(server))
            let now = seconds(server)
            let audience = console.origin + "/console"

            func attempt(_ assertion: (String) throws -> String, keepChallengeCookie: Bool = true) async throws -> ConsoleClient.Page {
                let login = try await console.get("/console/login")
                let challenge = try #require(login.challenge)
                var extra: [String: String] = [:]
                if !keepChallengeCookie { extra["cookie"] = "flint_console_login=forged" }
                return try await console.post("/console/login", [("challenge", challenge), ("assertion", try assertion(challenge))],
                                              headers: extra)
            }
            var forged = keyFile
            forged.private_key = try _RSA.Signing.PrivateKey(keySize: .bits2048).pkcs8PEMRepresentation
            let refusals: [(String, (String) throws -> String)] = [
                ("foreign key", { try ConsoleClient.assertion(forged, audience: audience, nonce: $0, now: now) }),
                ("revoked key", { try ConsoleClient.assertion(otherServerKey, audience: audience, nonce: $0, now: now) }),
                ("wrong audience", { try ConsoleClient.assertion(keyFile, audience: "https://identitytoolkit.googleapis.com/", nonce: $0, now: now) }),
                ("wrong nonce", { _ in try ConsoleClient.assertion(keyFile, audience: audience, nonce: "another", now: now) }),
                ("expired", { try ConsoleClient.assertion(keyFile, audience: audience, nonce: $0, now: now - 600) }),
                ("no assertion", { _ in "" }),
            ]
            for (name, assertion) in refusals {
                let reply = try await attempt(assertion)
                #expect(reply.status == 401 && reply.name == "login", "\(name): \(reply.status)")
                #expect(reply.text(of: "error")?.contains("not accepted") == true, "\(name)")
                #expect(console.cookies["flint_console"] == nil, "\(name) made a session")
            }
            // A login form posted without the page's challenge cookie (login CSRF) is refused.
            let crossSite = try await attempt({ try ConsoleClient.assertion(keyFile, audience: audience, nonce: $0, now: now) },
                                              keepChallengeCookie: false)
            #expect(crossSite.status == 401 && console.cookies["flint_console"] == nil)

            // A challenge is good for one sign-in.
            let login = try await console.get("/console/login")
            let challenge = try #require(login.challenge)
            let fields = [("challenge", challenge),
                          ("assertion", try ConsoleClient.assertion(keyFile, audience: audience, nonce: challenge, now: now))]
            let first = try await console.post("/console/login", fields)
            #expect(first.status == 303 && console.cookies["flint_console"] != nil)
            let session = console.cookies["flint_console"]
            let replay = try await console.post("/console/login", fields, headers: ["cookie": "flint_console_login=\(challenge)"])
            #expect(replay.status == 401 && replay.text(of: "error")?.contains("already been used") == true)
            #expect(session != nil)

            // An API key or an Admin API credential is no way in.
            let outsider = ConsoleClient(server)
            let withKey = try await outsider.get("/console/users?key=\(server.apiKey)",
                                                 headers: ["authorization": "Bearer \(try ConsoleClient.assertion(keyFile, audience: "https://identitytoolkit.googleapis.com/", nonce: "", now: now))"])
            try await outsider.shutdown()
            #expect(withKey.status == 303 && withKey.location == "/console/login")
        }
    }

    @Test func formsNeedTheSessionTokenAndTheConsoleOrigin() async throws {
        try await withConsole(emulator: false) { server, console in
            let client = TestClient(server)
            let uid = try #require(try await client.signUp(email: "victim@example.com", password: "secret-pass").string("localId"))
            let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
            try await console.signIn(keyFile: keyFile, now: seconds(server))
            let page = try await console.get("/console/users/\(uid)")
            #expect(page.name == "user" && page.text(of: "user-status") == "Enabled")
            let token = try #require(page.csrfToken)

            let path = "/console/users/\(uid)/disable"
            #expect(try await console.post(path, []).status == 403)
            #expect(try await console.post(path, [("csrf", "guess")]).status == 403)
            #expect(try await console.post(path, [("csrf", token)], origin: "https://evil.example").status == 403)
            #expect(try await console.post(path, [("csrf", token)], headers: ["sec-fetch-site": "cross-site"]).status == 403)
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, localID: uid)?.disabled == false)

            let disabled = try await console.post(path, [("csrf", token)])
            #expect(disabled.status == 303 && disabled.location == "/console/users/\(uid)?notice=userDisabled")
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, localID: uid)?.disabled == true)
            let shown = try await console.get(try #require(disabled.location))
            #expect(shown.text(of: "user-status") == "Disabled" && shown.text(of: "notice")?.contains("disabled") == true)

            // Signing out needs the token too, and ends the session: a copy of the cookie is refused afterwards.
            #expect(try await console.post("/console/logout", [("csrf", "guess")]).status == 403)
            let copied = try #require(console.cookies["flint_console"])
            let out = try await console.post("/console/logout", [("csrf", token)])
            #expect(out.status == 303 && out.location == "/console/login" && console.cookies["flint_console"] == nil)
            #expect(try await console.get("/console/users").location == "/console/login")
            let replayed = try await console.get("/console/users", headers: ["cookie": "flint_console=\(copied)"])
            #expect(replayed.status == 303 && replayed.location == "/console/login")
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func theOwnerManagesUsersAndSettingsInEmulatorMode(database: TestDatabase) async throws {
        try await withConsole(emulator: true, database: database) { server, console in
            let client = TestClient(server)
            let signedIn = try await console.signIn()
            #expect(signedIn.status == 303 && signedIn.location == "/console/users")

            // Users: search by email, phone and uid; revoke; delete only when confirmed.
            let uid = try #require(try await client.signUp(email: "ada@example.com", password: "secret-pass").string("localId"))
            let refreshToken = try #require(try await client.post("/v1/accounts:signInWithPassword", [
                "email": "ada@example.com", "password": "secret-pass", "returnSecureToken": true,
            ]).string("refreshToken"))
            let found = try await console.get("/console/users?q=ADA%40example.com")
            #expect(found.body.contains("data-uid=\"\(uid)\""))
            let missing = try await console.get("/console/users?q=nobody%40example.com")
            #expect(!missing.body.contains("data-uid=") && missing.text(of: "list-status")?.hasPrefix("No user") == true)
            let listed = try await console.get("/console/users")
            #expect(Self.uids(listed) == [uid])
            let token = try #require(listed.csrfToken)

            server.clock.advance(seconds: 2)
            #expect(try await console.post("/console/users/\(uid)/revoke", [("csrf", token)]).status == 303)
            #expect(try await client.refresh(refreshToken).errorCode == "TOKEN_EXPIRED")
            let unconfirmed = try await console.post("/console/users/\(uid)/delete", [("csrf", token)])
            #expect(unconfirmed.status == 400 && unconfirmed.name == "user" && unconfirmed.text(of: "error")?.contains("confirm") == true)
            let deleted = try await console.post("/console/users/\(uid)/delete", [("csrf", token), ("confirm-delete", "on")])
            #expect(deleted.status == 303 && deleted.location == "/console/users?notice=userDeleted")
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, localID: uid) == nil)
            #expect(try await console.get("/console/users/\(uid)").status == 404)

            // Sign-in methods: turning email/password off reaches the API.
            #expect(try await console.post("/console/sign-in/methods", [("csrf", token), ("phone", "on"), ("anonymous", "on")]).status == 303)
            #expect(try await client.post("/v1/accounts:signUp", ["email": "b@example.com", "password": "secret-pass"]).errorCode
                    == "OPERATION_NOT_ALLOWED")
            // Apple: bundle IDs, team and key; an empty key field keeps the stored key.
            #expect(try await console.post("/console/sign-in/apple", [
                ("csrf", token), ("apple-enabled", "on"), ("apple-bundle-ids", "com.example.app, com.example.other"),
                ("apple-team-id", "TEAM123456"), ("apple-key-id", "KEY1234567"), ("apple-private-key", "-----BEGIN PRIVATE KEY-----x"),
            ]).status == 303)
            #expect(try await console.post("/console/sign-in/apple", [
                ("csrf", token), ("apple-enabled", "on"), ("apple-bundle-ids", "com.example.app"), ("apple-team-id", "TEAM123456"),
                ("apple-key-id", "KEY1234567"), ("apple-private-key", ""),
            ]).status == 303)
            let apple = try #require(try await server.server.projects.project(server.projectID)?.settings.identityProviders["apple.com"])
            #expect(apple.enabled && apple.bundleIDs == ["com.example.app"] && apple.teamID == "TEAM123456" && apple.sealedPrivateKey != nil)
            // Facebook needs its app ID.
            let noAppID = try await console.post("/console/sign-in/facebook", [("csrf", token), ("facebook-enabled", "on")])
            #expect(noAppID.status == 400 && noAppID.text(of: "error")?.contains("clientId") == true)
            // GitHub (as Google and Microsoft): a client ID and a sealed secret, which an empty field keeps.
            #expect(try await console.post("/console/sign-in/github", [
                ("csrf", token), ("github-enabled", "on"), ("github-client-id", "Iv1.console"), ("github-client-secret", "gh-secret"),
            ]).status == 303)
            #expect(try await console.post("/console/sign-in/github", [
                ("csrf", token), ("github-enabled", "on"), ("github-client-id", "Iv1.console2"), ("github-client-secret", ""),
            ]).status == 303)
            let gitHub = try #require(try await server.server.projects.project(server.projectID)?.settings.identityProviders["github.com"])
            #expect(gitHub.enabled && gitHub.clientID == "Iv1.console2" && gitHub.sealedClientSecret != nil)

            // Settings: domains, enumeration protection, regions (checked), MFA.
            #expect(try await console.post("/console/settings/domains", [("csrf", token), ("domains", "localhost\napp.example.com\n")])
                .status == 303)
            #expect(try await console.post("/console/settings/privacy", [("csrf", token), ("enumeration-protection", "on")]).status == 303)
            let badRegion = try await console.post("/console/settings/sms-regions", [("csrf", token), ("mode", "allowlist-only"), ("regions", "US, XX")])
            #expect(badRegion.status == 400 && badRegion.text(of: "error")?.contains("XX") == true)
            #expect(try await console.post("/console/settings/sms-regions", [
                ("csrf", token), ("mode", "allowlist-only"), ("regions", "us ca"), ("daily-cap", "500"), ("denied-prefixes", "+88213, +99"),
            ]).status == 303)
            #expect(try await console.post("/console/settings/mfa", [("csrf", token), ("mfa-enabled", "on"), ("mfa-totp", "on"),
                                                                     ("totp-intervals", "3")]).status == 303)
            // Apps: the ones the hosted pages answer; a bad client ID is refused as the admin API refuses it.
            let badApp = try await console.post("/console/settings/apps", [("csrf", token), ("ios-apps", "com.example.app, ABCDE12345, no..dots")])
            #expect(badApp.status == 400 && badApp.text(of: "error")?.contains("clientId") == true)
            #expect(try await console.post("/console/settings/apps", [
                ("csrf", token), ("ios-apps", "com.example.app, ABCDE12345, 123-abc.apps.googleusercontent.com, 1:123:ios:abc\ncom.example.two, ABCDE12345\n"),
                ("android-apps", "com.example.android, AA:BB:CC"),
            ]).status == 303)
            let config = try #require(try await server.server.projectConfig(server.projectID))
            #expect(config.apps?.ios == [
                .init(bundleId: "com.example.app", teamId: "ABCDE12345", clientId: "123-abc.apps.googleusercontent.com", appId: "1:123:ios:abc"),
                .init(bundleId: "com.example.two", teamId: "ABCDE12345"),
            ])
            #expect(config.apps?.android == [.init(packageName: "com.example.android", sha256CertFingerprints: ["AA:BB:CC"])])
            #expect(config.authorizedDomains == ["localhost", "app.example.com"])
            #expect(config.emailPrivacyConfig?.enableImprovedEmailPrivacy == true)
            #expect(config.smsRegionConfig?.allowlistOnly?.allowedRegions == ["US", "CA"])
            #expect(config.smsDefenseConfig == .init(regionDailyCap: 500, deniedPrefixes: ["+88213", "+99"]))
            #expect(config.mfa?.state == "ENABLED" && config.mfa?.enabledProviders == []
                    && config.mfa?.providerConfigs?.first?.totpProviderConfig?.adjacentIntervals == 3)
            let settingsPage = try await console.get("/console/settings")
            #expect(settingsPage.body.contains("app.example.com") && settingsPage.body.contains("id=\"regions-allowlist\" value=\"allowlist-only\" checked"))
            #expect(settingsPage.body.contains("com.example.app, ABCDE12345, 123-abc.apps.googleusercontent.com, 1:123:ios:abc"))

            // Email templates: a custom one needs %LINK%; empty fields go back to the built-in wording.
            let noLink = try await console.post("/console/templates", [("csrf", token), ("type", "PASSWORD_RESET"),
                                                                       ("subject", "Reset"), ("body", "No link here")])
            #expect(noLink.status == 400 && noLink.text(of: "error")?.contains("%LINK%") == true)
            #expect(try await console.post("/console/templates", [("csrf", token), ("type", "PASSWORD_RESET"), ("sender", "Support"),
                                                                  ("subject", "Reset for %APP_NAME%"), ("body", "Open %LINK%")]).status == 303)
            var templates = try #require(try await server.server.projects.project(server.projectID)).settings.emailTemplates
            #expect(templates["PASSWORD_RESET"] == .init(subject: "Reset for %APP_NAME%", body: "Open %LINK%",
                                                         senderDisplayName: "Support"))
            #expect(try await console.post("/console/templates", [("csrf", token), ("type", "PASSWORD_RESET"), ("subject", ""), ("body", "")])
                .status == 303)
            templates = try #require(try await server.server.projects.project(server.projectID)).settings.emailTemplates
            #expect(templates["PASSWORD_RESET"] == nil)
        }
    }

    @Test func aUsersIdentitiesAndFactorsAreShown() async throws {
        try await withConsole(emulator: true) { server, console in
            let client = TestClient(server)
            // And a uid that looks like an email address: its page is found by uid.
            let users: [JSONValue] = (7..<9).map { index in
                ["localId": .string(String(format: "user-%02d", index)), "email": .string("u\(index)@example.com")]
            } + [["localId": "someone@example.com"]]
            #expect(try await client.admin("/v1/projects/\(server.projectID)/accounts:batchCreate", ["users": .array(users)]).status == 200)
            #expect(try await client.admin("/v1/projects/\(server.projectID)/accounts:update", [
                "localId": "user-07", "mfa": ["enrollments": [["mfaEnrollmentId": "desk", "phoneInfo": "+16505550107", "displayName": "Desk phone"]]],
                "linkProviderUserInfo": ["providerId": "apple.com", "rawId": "apple-007", "email": "u7@example.com"],
            ]).status == 200)
            try await console.signIn()

            let odd = try await console.get("/console/users/someone%40example.com")
            #expect(odd.text(of: "user-uid") == "someone@example.com")
            #expect(try await console.post("/console/users/someone%40example.com/disable", [("csrf", try #require(odd.csrfToken))])
                .status == 303)
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, localID: "someone@example.com")?.disabled == true)
            let detail = try await console.get("/console/users/user-07")
            #expect(detail.body.contains("data-provider=\"apple.com\"") && detail.body.contains("apple-007"))
            #expect(detail.body.contains("Desk phone") && detail.body.contains("+16505550107"))
            // What a user typed is shown as text, never as markup.
            #expect(try await client.admin("/v1/projects/\(server.projectID)/accounts:update", [
                "localId": "user-08", "displayName": "<script>alert(1)</script>",
            ]).status == 200)
            let escaped = try await console.get("/console/users/user-08")
            #expect(escaped.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !escaped.body.contains("<script>alert"))
        }
    }

    @Test func theOwnerSwitchesProjectsAndAServiceAccountCannot() async throws {
        try await withConsole(emulator: true) { server, console in
            let client = TestClient(server)
            #expect(try await client.admin("/v1/projects/other-app/accounts", ["localId": "other-user"]).status == 200)
            try await console.signIn()
            let users = try await console.get("/console/users")
            #expect(users.body.contains("<option>other-app</option>") && !users.body.contains("data-uid=\"other-user\""))
            let switched = try await console.post("/console/project", [("csrf", try #require(users.csrfToken)), ("project", "other-app")])
            #expect(switched.status == 303)
            let other = try await console.get("/console/users")
            #expect(other.body.contains("data-uid=\"other-user\"") && other.body.contains("<option selected>other-app</option>"))
            let unknown = try await console.post("/console/project", [("csrf", try #require(other.csrfToken)), ("project", "nope")])
            #expect(unknown.status == 400)
        }
        try await withConsole(emulator: false) { server, console in
            try await server.server.projects.ensureProject("other-app")
            let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
            try await console.signIn(keyFile: keyFile, now: seconds(server))
            let users = try await console.get("/console/users")
            #expect(!users.body.contains("id=\"project-form\""))
            let refused = try await console.post("/console/project", [("csrf", try #require(users.csrfToken)), ("project", "other-app")])
            #expect(refused.status == 400)
            #expect(try await console.get("/console/users").text(of: "project-id") == server.projectID)
        }
    }

    @Test func testNumbersStopAtTheLimit() async throws {
        try await withConsole(emulator: true) { server, console in
            try await console.signIn()
            let token = try #require(try await console.get("/console/test-numbers").csrfToken)
            for index in 0..<10 {
                let added = try await console.post("/console/test-numbers/add", [
                    ("csrf", token), ("number", "+1 650-555-\(String(format: "%04d", 1000 + index))"), ("code", "12345\(index)"),
                ])
                #expect(added.status == 303, "number \(index): \(added.body)")
            }
            let eleventh = try await console.post("/console/test-numbers/add", [("csrf", token), ("number", "+16505552000"), ("code", "123456")])
            #expect(eleventh.status == 400 && eleventh.name == "test-numbers" && eleventh.text(of: "error")?.contains("At most 10") == true)
            #expect(eleventh.body.contains("value=\"+16505552000\""), "the refused number stays in the form")
            let badCode = try await console.post("/console/test-numbers/remove", [("csrf", token), ("number", "+16505551000")])
            #expect(badCode.status == 303)
            let shortCode = try await console.post("/console/test-numbers/add", [("csrf", token), ("number", "+16505552000"), ("code", "12")])
            #expect(shortCode.status == 400 && shortCode.text(of: "error")?.contains("6 digits") == true)
            let numbers = try #require(try await server.server.projectConfig(server.projectID)?.signIn?.phoneNumber?.testPhoneNumbers)
            #expect(numbers.count == 9 && numbers["+16505551000"] == nil && numbers["+16505551001"] == "123451")
        }
    }

    @Test func theDashboardChartsSignInsMessagesRefusalsAndErrorsPerDay() async throws {
        try await withConsole(emulator: false) { server, console in
            let client = TestClient(server)
            let admin = try await AdminClient(server)
            try await admin.allowUnverifiedApps()
            #expect(try await admin.patchConfig(
                ["smsRegionConfig": ["allowlistOnly": ["allowedRegions": ["FR"]]]], mask: "smsRegionConfig").status == 200)
            _ = try await client.signUp(email: "count@example.com", password: "secret-pass")
            #expect(try await client.post("/v1/accounts:signInWithPassword", [
                "email": "count@example.com", "password": "secret-pass", "returnSecureToken": true,
            ]).status == 200)
            let wrongPassword = try await client.post("/v1/accounts:signInWithPassword", [
                "email": "count@example.com", "password": "not-the-password", "returnSecureToken": true,
            ])
            let wrongPasswordCode = try #require(wrongPassword.errorCode)
            // One code to France (allowed), one to the US (refused by the region policy).
            #expect(try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+33612345678"]).status == 200)
            #expect(try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+15555550123"])
                .errorCode == "OPERATION_NOT_ALLOWED")
            // Resets until the per-address limit refuses one.
            let limit = server.server.configuration.emailLimits.perAddressPerHour
            for _ in 0..<limit {
                #expect(try await client.post("/v1/accounts:sendOobCode", [
                    "requestType": "PASSWORD_RESET", "email": "count@example.com"]).status == 200)
            }
            #expect(try await client.post("/v1/accounts:sendOobCode", [
                "requestType": "PASSWORD_RESET", "email": "count@example.com"]).errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
            // Emails are counted when they are sent, after the answer: on this day.
            await server.waitForOutbox()
            server.clock.advance(seconds: 86_400)
            _ = try await client.signUp()

            let days = try await server.server.usage.daily(projectID: server.projectID, days: 2)
            #expect(days.map { $0.byLabel(.signIns) } == [["anonymous": 1], ["password": 2]])
            #expect(days.map { $0.total(.emailsSent) } == [0, limit])
            #expect(days.map { $0.byLabel(.emailsRefused) } == [[:], ["rate_limit": 1]])
            #expect(days.map { $0.total(.smsSent) } == [0, 1])
            #expect(days.map { $0.byLabel(.smsRefused) } == [[:], ["region_policy": 1]])
            #expect(days[1].byLabel(.errors) == [wrongPasswordCode: 1, "OPERATION_NOT_ALLOWED": 1, "TOO_MANY_ATTEMPTS_TRY_LATER": 1])

            let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
            try await console.signIn(keyFile: keyFile, now: seconds(server))
            let dashboard = try await console.get("/console/dashboard")
            #expect(dashboard.name == "dashboard")
            #expect(dashboard.text(of: "usage-totals") == "30-day totals: 3 sign-ins, 1 SMS, \(limit) emails.")
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd"
            let yesterday = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(days[1].day * 86_400)))
            let bars = Self.bars(in: dashboard.body)
            #expect(bars.contains(.init(chart: "chart-sign-ins", series: "password", day: yesterday, count: 2)))
            #expect(bars.contains { $0.chart == "chart-sign-ins" && $0.series == "anonymous" && $0.count == 1 && $0.day != yesterday })
            #expect(bars.contains(.init(chart: "chart-sms", series: "refused: region_policy", day: yesterday, count: 1)))
            #expect(bars.contains(.init(chart: "chart-emails", series: "sent", day: yesterday, count: Int(limit))))
            #expect(bars.contains(.init(chart: "chart-emails", series: "refused: rate_limit", day: yesterday, count: 1)))
            #expect(bars.contains(.init(chart: "chart-errors", series: wrongPasswordCode, day: nil, count: 1)))
            #expect(!dashboard.body.contains("<script"), "the charts are drawn on the server")
        }
    }

    /// A bar of a dashboard chart, as its `data-` attributes tell.
    struct Bar: Equatable {
        var chart: String
        var series: String
        var day: String?
        var count: Int
    }

    /// Every bar of every chart on `page`.
    static func bars(in page: String) -> [Bar] {
        page.components(separatedBy: "<figure class=\"chart\" id=\"").dropFirst().flatMap { figure -> [Bar] in
            let chart = String(figure.prefix { $0 != "\"" })
            let drawing = figure.components(separatedBy: "</figure>")[0]
            return drawing.components(separatedBy: "<rect ").dropFirst().compactMap { rect in
                func attribute(_ name: String) -> String? { ConsoleClient.Page.capture(#" \#(name)="([^"]*)""#, in: rect) }
                guard let series = attribute("data-series"), let count = attribute("data-count").flatMap({ Int($0) }) else { return nil }
                return Bar(chart: chart, series: series, day: attribute("data-day"), count: count)
            }
        }
    }
}
