@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Every `AuditEventType` is written by a real action: `coverage` says, for each type, which group of actions makes
/// it, who acts and through which endpoint; each group's test does its actions over the HTTP API of a test server
/// (the CLI's in its scope, for what only the CLI does), reads the trail back through the admin API, and finds each of
/// its types there as the table says. A type the table lacks fails `everyTypeIsCovered`.
@Suite struct AuditCoverageTests {
    /// A group of actions, one test each, so the groups run side by side.
    enum Area { case signIns, accountChanges, adminChanges, realm, oauth, budgets, blockingFunctions }

    /// Who the table expects to have acted, made concrete by the test (`admin` is `owner` in the emulator, the
    /// service account's key in production).
    enum Actor { case user, admin, server, cli }

    struct Coverage {
        let area: Area
        let actor: Actor
        /// Whether the event names the user the group's actions are about.
        let aboutUser: Bool
        /// How the event's `operation` ends (the route after its version, or the CLI's command); nil: none.
        let operation: String?

        init(_ area: Area, by actor: Actor, aboutUser: Bool = false, _ operation: String?) {
            self.area = area
            self.actor = actor
            self.aboutUser = aboutUser
            self.operation = operation
        }
    }

    static let coverage: [AuditEventType: Coverage] = [
        .signUp: Coverage(.signIns, by: .user, aboutUser: true, "accounts:signUp"),
        .signIn: Coverage(.signIns, by: .user, aboutUser: true, "accounts/mfaSignIn:finalize"),
        .signInFailed: Coverage(.signIns, by: .user, aboutUser: true, "accounts:signInWithPassword"),
        .secondFactorRequired: Coverage(.signIns, by: .user, aboutUser: true, "accounts:signInWithPassword"),
        .refreshRefused: Coverage(.signIns, by: .user, "token"),
        .sessionEnded: Coverage(.signIns, by: .user, aboutUser: true, "accounts/sessions:revoke"),
        .secondFactorsChanged: Coverage(.signIns, by: .user, aboutUser: true, "accounts/mfaEnrollment:finalize"),

        .actionCodeSent: Coverage(.accountChanges, by: .user, aboutUser: true, "accounts:sendOobCode"),
        .emailVerified: Coverage(.accountChanges, by: .user, aboutUser: true, "accounts:update"),
        .passwordChanged: Coverage(.accountChanges, by: .user, aboutUser: true, "accounts:update"),
        .emailChanged: Coverage(.accountChanges, by: .user, aboutUser: true, "accounts:update"),
        .profileChanged: Coverage(.accountChanges, by: .user, aboutUser: true, "accounts:update"),
        .passkeysChanged: Coverage(.accountChanges, by: .user, aboutUser: true, "accounts/passkeyEnrollment:finalize"),
        .providerLinked: Coverage(.accountChanges, by: .user, aboutUser: true, "accounts:signInWithIdp"),
        .providerUnlinked: Coverage(.accountChanges, by: .user, aboutUser: true, "accounts:update"),

        .phoneChanged: Coverage(.adminChanges, by: .admin, aboutUser: true, "accounts:update"),
        .userDisabled: Coverage(.adminChanges, by: .admin, aboutUser: true, "accounts:update"),
        .userEnabled: Coverage(.adminChanges, by: .admin, aboutUser: true, "accounts:update"),
        .claimsChanged: Coverage(.adminChanges, by: .admin, aboutUser: true, "accounts:update"),
        .sessionsRevoked: Coverage(.adminChanges, by: .admin, aboutUser: true, "accounts:update"),
        .userDeleted: Coverage(.adminChanges, by: .admin, aboutUser: true, "accounts:delete"),
        .usersImported: Coverage(.adminChanges, by: .admin, "accounts:batchCreate"),

        .projectCreated: Coverage(.realm, by: .server, nil),
        .apiKeyCreated: Coverage(.realm, by: .server, nil),
        .tenantCreated: Coverage(.realm, by: .admin, "tenants"),
        .configChanged: Coverage(.realm, by: .admin, "config"),
        .tenantDeleted: Coverage(.realm, by: .admin, "tenants/{tenantId}"),
        .signingKeyAdded: Coverage(.realm, by: .cli, "flint keys rotate"),
        .signingKeyRemoved: Coverage(.realm, by: .cli, "flint keys retire"),
        .serviceAccountCreated: Coverage(.realm, by: .cli, "flint service-accounts create"),
        .serviceAccountRevoked: Coverage(.realm, by: .cli, "flint service-accounts revoke"),

        .oauthClientCreated: Coverage(.oauth, by: .admin, "oauthClients"),
        .oauthClientUpdated: Coverage(.oauth, by: .admin, "oauthClients/{clientId}"),
        .oauthClientDeleted: Coverage(.oauth, by: .admin, "oauthClients/{clientId}"),
        .oauthGrantRevoked: Coverage(.oauth, by: .user, aboutUser: true, "accounts/oauthGrants:revoke"),
        .signOut: Coverage(.oauth, by: .user, aboutUser: true, "logout"),

        // Counted per address and client, before any account is looked up: no user.
        .budgetRefused: Coverage(.budgets, by: .user, "accounts:signInWithPassword"),
        .blockingFunctionRefused: Coverage(.blockingFunctions, by: .user, "accounts:signUp"),
    ]

    @Test func everyTypeIsCovered() {
        #expect(Set(Self.coverage.keys) == Set(AuditEventType.allCases))
    }

    // MARK: Reading and checking

    /// Who acted, and the user the actions were about, as the trail names them.
    struct Subjects {
        var admin: String
        var user: String?

        func principal(_ actor: Actor) -> String {
            switch actor {
            case .user: "user"
            case .admin: admin
            case .server: "server"
            case .cli: "flint"
            }
        }
    }

    /// The project's whole trail (its tenants' events are their own), through the admin API.
    static func trail(_ client: TestClient, _ project: String, headers: [String: String]) async throws -> [AuditEvent] {
        let page = try await client.send("GET", "/v2/projects/\(project)/auditEvents?pageSize=1000", headers: headers)
        #expect(page.status == 200 && page["nextPageToken"] == nil, "\(page.body)")
        return try JSONDecoder().decode(ListAuditEventsResponse.self, from: page.data).events
    }

    /// Expects each type of `area` in `events` at least once as the table says.
    static func expectCovered(_ area: Area, in events: [AuditEvent], _ subjects: Subjects,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        for (type, coverage) in coverage where coverage.area == area {
            let written = events.filter { $0.type == type }
            let matching = written.filter { event in
                event.principal == subjects.principal(coverage.actor)
                    && (!coverage.aboutUser || event.localId == subjects.user)
                    && (coverage.operation.map { event.operation?.hasSuffix($0) == true } ?? (event.operation == nil))
            }
            #expect(!matching.isEmpty, "\(type) as \(coverage): \(written.isEmpty ? "never written" : "\(written)")",
                    sourceLocation: sourceLocation)
        }
    }

    static let owner = ["Authorization": "Bearer owner"]
    static let password = "secret-pass-1"

    // MARK: The groups

    @Test(arguments: TestDatabase.allCases)
    func signInsAndSessions(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let project = server.projectID
            let localID = try #require(try await client.signUp(email: "ada@example.com", password: Self.password).string("localId"))
            let wrong = try await client.post("/v1/accounts:signInWithPassword", [
                "email": "ada@example.com", "password": "not-the-password", "returnSecureToken": true,
            ])
            #expect(wrong.errorCode == "INVALID_PASSWORD", "\(wrong.body)")
            #expect(try await client.refresh("not-a-refresh-token").status == 400)
            let phone = try await client.signIn(email: "ada@example.com", password: Self.password, device: "Phone/1.0")
            let laptop = try await client.signIn(email: "ada@example.com", password: Self.password, device: "Laptop/1.0")
            let ended = try await client.post("/v2/accounts/sessions:revoke", [
                "idToken": .string(phone.idToken), "sessionId": .string(laptop.sid),
            ])
            #expect(ended.status == 200, "\(ended.body)")

            // A second factor: enrolled, then asked for, then passed.
            #expect(try await client.admin("/v1/accounts:update", ["localId": .string(localID), "emailVerified": true]).status == 200)
            let enrolled = try await MultiFactorAPITests.enrollPhone(client, server, idToken: phone.idToken, number: "+15555550111")
            #expect(enrolled.status == 200, "\(enrolled.body)")
            let first = try await client.post("/v1/accounts:signInWithPassword", [
                "email": "ada@example.com", "password": .string(Self.password), "returnSecureToken": true,
            ])
            let pending = try #require(first.string("mfaPendingCredential"), "\(first.body)")
            let enrollmentID = try #require(first["mfaInfo"]?.arrayValue?.first?["mfaEnrollmentId"], "\(first.body)")
            let start = try await client.post("/v2/accounts/mfaSignIn:start", [
                "mfaPendingCredential": .string(pending), "mfaEnrollmentId": enrollmentID,
                "phoneSignInInfo": ["phoneNumber": "+*******0111"],
            ])
            let sessionInfo = try #require(start["phoneResponseInfo"]?["sessionInfo"], "\(start.body)")
            let code = try #require(server.log.smsCodes(to: "+15555550111").last)
            let done = try await client.post("/v2/accounts/mfaSignIn:finalize", [
                "mfaPendingCredential": .string(pending), "phoneVerificationInfo": ["sessionInfo": sessionInfo, "code": .string(code)],
            ])
            #expect(done.status == 200, "\(done.body)")

            let events = try await Self.trail(client, project, headers: Self.owner)
            Self.expectCovered(.signIns, in: events, Subjects(admin: "owner", user: localID))
            #expect(events.first { $0.type == .signIn && $0.operation?.hasSuffix("mfaSignIn:finalize") == true }?.detail?["secondFactor"]
                        == "phone")
            #expect(events.first { $0.type == .sessionEnded }?.sessionId == laptop.sid)
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func theUsersOwnAccountChanges(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let signedUp = try await client.signUp(email: "ada@example.com", password: Self.password)
            let localID = try #require(signedUp.string("localId"))
            var idToken = try #require(signedUp.string("idToken"))
            func update(_ fields: [String: JSONValue]) async throws {
                var body = fields
                body["idToken"] = .string(idToken)
                body["returnSecureToken"] = true
                let updated = try await client.post("/v1/accounts:update", body)
                #expect(updated.status == 200, "\(fields.keys): \(updated.body)")
                if let fresh = updated.string("idToken") { idToken = fresh }
            }

            // The verification email, and its code applied.
            let sent = try await client.post("/v1/accounts:sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": .string(idToken)])
            #expect(sent.status == 200, "\(sent.body)")
            let oobCode = try #require(try await client.oobCodes(server).last?["oobCode"])
            let applied = try await client.post("/v1/accounts:update", ["oobCode": oobCode])
            #expect(applied.status == 200, "\(applied.body)")

            try await update(["displayName": "Ada"])
            try await update(["password": "another-pass-2"])
            try await update(["email": "ada@example.org"])
            let passkey = try await client.post("/v2/accounts/passkeyEnrollment:finalize", [
                "idToken": .string(idToken), "authenticatorRegistrationResponse": ["id": "cred_A"],
            ])
            #expect(passkey.status == 200, "\(passkey.body)")
            let linked = try await client.signInWithFakeClaims(
                "google.com", ["sub": "123467", "email": "ada@gmail.com"], idToken: .string(idToken))
            #expect(linked["localId"] == .string(localID), "\(linked.body)")
            idToken = try #require(linked.string("idToken"))
            try await update(["deleteProvider": ["google.com"]])

            let events = try await Self.trail(client, server.projectID, headers: Self.owner)
            Self.expectCovered(.accountChanges, in: events, Subjects(admin: "owner", user: localID))
            // The email change sent its recovery notice too.
            #expect(events.filter { $0.type == .actionCodeSent }.compactMap { $0.detail?["kind"] } == ["RECOVER_EMAIL", "VERIFY_EMAIL"])
            #expect(events.first { $0.type == .providerLinked }?.detail?["provider"] == "google.com")
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func adminsChangesToUsers(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let project = server.projectID
            let localID = try #require(try await client.signUp(email: "ada@example.com", password: Self.password).string("localId"))
            let accounts = "/v1/projects/\(project)/accounts"
            for change: [String: JSONValue] in [
                ["phoneNumber": "+15555550122", "customAttributes": "{\"role\":\"admin\"}"], ["disableUser": true], ["disableUser": false],
            ] {
                var body = change
                body["localId"] = .string(localID)
                let updated = try await client.admin("\(accounts):update", body)
                #expect(updated.status == 200, "\(change): \(updated.body)")
            }
            let imported = try await client.admin("\(accounts):batchCreate", [
                "users": [["localId": "imported-1", "email": "one@example.com"], ["localId": "imported-2", "email": "two@example.com"]],
            ])
            #expect(imported.status == 200 && imported["error"] == nil, "\(imported.body)")
            #expect(try await client.admin("\(accounts):delete", ["localId": .string(localID)]).status == 200)

            let events = try await Self.trail(client, project, headers: Self.owner)
            Self.expectCovered(.adminChanges, in: events, Subjects(admin: "owner", user: localID))
            #expect(events.first { $0.type == .usersImported }?.detail?["count"] == "2")
        }
    }

    /// Production: the emulator makes no API keys.
    @Test(arguments: TestDatabase.allCases)
    func changesToTheRealm(database: TestDatabase) async throws {
        try await ProviderFixture.with(database: database) { fixture in
            let (server, client) = (fixture.server, fixture.client)
            let project = server.projectID
            let tenants = "/v2/projects/\(project)/tenants"
            let tenant = try await client.post(tenants, ["displayName": "Staff"], headers: fixture.admin)
            let tenantID = try #require(tenant.string("tenantId"), "\(tenant.body)")
            let patched = try await client.send("PATCH", "/v2/projects/\(project)/config?updateMask=signIn.email",
                                                body: Data(#"{"signIn":{"email":{"enabled":false}}}"#.utf8), headers: fixture.admin)
            #expect(patched.status == 200, "\(patched.body)")
            #expect(try await client.send("DELETE", "\(tenants)/\(tenantID)", headers: fixture.admin).status == 200)

            // What only the CLI does, as its commands do it.
            func asCLI<T>(_ command: String, _ body: () async throws -> T) async throws -> T {
                let scope = AuditScope(time: server.clock.milliseconds, principal: .cli, operation: command)
                return try await AuditScope.$current.withValue(scope) { try await body() }
            }
            let keyring = server.server.keyring
            let first = try #require(try await keyring.keys().first)
            let second = try await asCLI("flint keys rotate") { try await keyring.rotate() }
            try await asCLI("flint keys retire") { try await keyring.retire(first.kid, force: true) }
            let key = try await asCLI("flint service-accounts create") { try await server.server.serviceAccounts.create(projectID: project) }
            #expect(try await asCLI("flint service-accounts revoke") {
                try await server.server.store.serviceAccounts.revokeServiceAccount(keyID: key.private_key_id, at: server.clock.seconds)
            })

            let events = try await Self.trail(client, project, headers: fixture.admin)
            let admin = try #require(events.first { $0.type == .tenantCreated }?.principal)
            #expect(admin.hasPrefix("serviceAccount:"))
            Self.expectCovered(.realm, in: events, Subjects(admin: admin))
            #expect(events.first { $0.type == .tenantCreated }?.detail?["tenantId"] == tenantID)
            #expect(events.first { $0.type == .tenantDeleted }?.detail?["tenantId"] == tenantID)
            // The stored settings' names: the v2 config's email switch is both of them.
            #expect(events.first { $0.type == .configChanged && $0.principal == admin }?.fields
                        == ["signIn.emailLinkEnabled", "signIn.emailPasswordEnabled"])
            #expect(events.first { $0.type == .signingKeyAdded && $0.principal == "flint" }?.detail?["kid"] == second)
            #expect(events.first { $0.type == .signingKeyRemoved }?.detail?["kid"] == first.kid)
            #expect(events.first { $0.type == .serviceAccountRevoked }?.detail?["keyId"] == key.private_key_id)
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func oauthClientsGrantsAndSignOut(database: TestDatabase) async throws {
        try await ProviderFixture.with(database: database) { fixture in
            let project = fixture.server.projectID
            let collection = "/v2/projects/\(project)/oauthClients"
            let (clientID, _) = try await fixture.register(["displayName": "Dashboard", "redirectUris": ["http://127.0.0.1:4567/callback"]])
            let patched = try await fixture.client.send("PATCH", "\(collection)/\(clientID)?updateMask=displayName",
                                                        body: Data(#"{"displayName":"Dashboard Two"}"#.utf8), headers: fixture.admin)
            #expect(patched.status == 200, "\(patched.body)")

            // A user signs in on Flint's page and consents: a provider session and a grant.
            let browser = CookieBrowser()
            let start = try await browser.send("GET", fixture.authorizeURL(clientID: clientID))
            let next = try await fixture.signInOnPage(browser, signInPage: try #require(start.headers["location"]), email: "ada@example.com")
            let consent = try await browser.send("GET", fixture.server.baseURL.absoluteString + next)
            let allowed = try await browser.send("POST", fixture.server.baseURL.absoluteString + "/__/oauth/consent", form: [
                ("authorization_id", try #require(URLComponents(string: next)?.queryItems?.first?.value)),
                ("form_token", try ProviderFixture.formToken(in: consent.body)), ("consent", "allow"),
            ])
            #expect(allowed.status == 303 && allowed.query("code") != nil, "\(allowed.headers)")
            let loggedOut = try await browser.send("GET", fixture.issuer + "/logout")
            #expect(loggedOut.status < 400, "\(loggedOut.body)")

            let signedIn = try await fixture.client.post("/v1/accounts:signInWithPassword", [
                "email": "ada@example.com", "password": .string(Self.password), "returnSecureToken": true,
            ])
            let localID = try #require(signedIn.string("localId"), "\(signedIn.body)")
            let revoked = try await fixture.client.post("/v2/accounts/oauthGrants:revoke", [
                "idToken": signedIn["idToken"] ?? .null, "clientId": .string(clientID),
            ])
            #expect(revoked.status == 200, "\(revoked.body)")
            #expect(try await fixture.client.send("DELETE", "\(collection)/\(clientID)", headers: fixture.admin).status == 200)

            let events = try await Self.trail(fixture.client, project, headers: fixture.admin)
            let admin = try #require(events.first { $0.type == .oauthClientCreated }?.principal)
            #expect(admin.hasPrefix("serviceAccount:"))
            Self.expectCovered(.oauth, in: events, Subjects(admin: admin, user: localID))
            #expect(events.filter { [.oauthClientCreated, .oauthClientUpdated, .oauthClientDeleted, .oauthGrantRevoked].contains($0.type) }
                .allSatisfy { $0.detail?["clientId"] == clientID })
            #expect(events.first { $0.type == .oauthClientUpdated }?.fields == ["displayName"])
        }
    }

    /// Production: the emulator locks no account out.
    @Test(arguments: TestDatabase.allCases)
    func aSpentBudget(database: TestDatabase) async throws {
        try await ProviderFixture.with(database: database) { fixture in
            _ = try await fixture.client.signUp(email: "ada@example.com", password: Self.password)
            for _ in 0...Budget.passwordTries.fixedLimit! {
                _ = try await fixture.client.post("/v1/accounts:signInWithPassword", ["email": "ada@example.com", "password": "guess-it"])
            }
            let locked = try await fixture.client.post("/v1/accounts:signInWithPassword", [
                "email": "ada@example.com", "password": .string(Self.password),
            ])
            #expect(locked.errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER", "\(locked.body)")

            let events = try await Self.trail(fixture.client, fixture.server.projectID, headers: fixture.admin)
            Self.expectCovered(.budgets, in: events, Subjects(admin: ""))
            #expect(events.first { $0.type == .budgetRefused }?.detail?["budget"] == Budget.passwordTries.name)
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func aBlockingFunctionsRefusal(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let function = try await FakeBlockingFunction.start(
                jwksURL: server.baseURL.absoluteString + "/.well-known/jwks.json",
                issuer: server.server.tokens.issuer(projectID: server.projectID), clock: server.clock)
            do {
                let triggers: JSONValue = ["blockingFunctions": ["triggers": ["beforeCreate": ["functionUri": .string(function.url("beforeCreate"))]]]]
                let set = try await client.send("PATCH", "/v2/projects/\(server.projectID)/config?updateMask=blockingFunctions",
                                                body: try JSONEncoder().encode(triggers), headers: Self.owner, includeKey: false)
                #expect(set.status == 200, "\(set.body)")
                function.answers.withLockedValue { $0["beforeCreate"] = .refuse(message: "Only example.org may sign up") }
                let refused = try await client.post("/v1/accounts:signUp", [
                    "email": "intruder@example.com", "password": .string(Self.password), "returnSecureToken": true,
                ])
                #expect(refused.errorCode == "BLOCKING_FUNCTION_ERROR_RESPONSE", "\(refused.body)")

                let events = try await Self.trail(client, server.projectID, headers: Self.owner)
                Self.expectCovered(.blockingFunctions, in: events, Subjects(admin: "owner"))
            } catch {
                Issue.record(error)
            }
            await function.stop()
        }
    }
}
