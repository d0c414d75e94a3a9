@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// An account's credentials are exactly what their owner last set: concurrent sign-ins never write an
/// older state back, revocations leave no earlier session alive (not even one of the same second),
/// credential changes need a recent sign-in whatever endpoint carries them, proving an email address
/// locks out whoever set it unproven, and one-time values work once.
@Suite struct AccountIntegrityTests {

    // MARK: Races

    /// One race at a time: each already keeps both cores busy with password hashing.
    @Suite(.serialized) struct Races {
        /// Concurrent requests per round, and rounds per race: enough that a lost update shows up (each
        /// race failed on the code before the single mutation path).
        static let concurrentSignIns = 30
        static let rounds = 3
    }
}

extension AccountIntegrityTests.Races {
    @Test(arguments: TestDatabase.allCases)
    func passwordChangesDuringSignInsLeaveNoOldSession(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            try await Self.passwordRace(clients: [client], server: server)
        }
    }

    /// The same race with the requests spread over two nodes of one PostgreSQL.
    @Test func passwordChangesRaceAcrossTwoNodes() async throws {
        try await withTwoNodes { first, clients in try await Self.passwordRace(clients: clients, server: first) }
    }

    /// Rounds of many password sign-ins while the password changes: afterwards the new password holds and
    /// no session that the old password opened still works.
    static func passwordRace(clients: [TestClient], server: TestServer) async throws {
        let email = "race@example.com"
        let client = clients[0]
        _ = try await client.signUp(email: email, password: "password-0")
        for round in 0..<rounds {
            let old = "password-\(round)", new = "password-\(round + 1)"
            let fresh = try await client.post(
                "/v1/accounts:signInWithPassword", ["email": .string(email), "password": .string(old), "returnSecureToken": true])
            let changerToken = try #require(fresh.string("idToken"), "\(fresh.body)")
            let sessions = try await withThrowingTaskGroup(of: TestClient.Reply?.self) { group in
                for index in 0..<concurrentSignIns {
                    let node = clients[index % clients.count]
                    if index == concurrentSignIns / 3 {
                        group.addTask {
                            let changed = try await node.post("/v1/accounts:update", [
                                "idToken": .string(changerToken), "password": .string(new), "returnSecureToken": true,
                            ])
                            #expect(changed.status == 200, "\(changed.body)")
                            return nil
                        }
                    }
                    group.addTask {
                        try await node.post("/v1/accounts:signInWithPassword", [
                            "email": .string(email), "password": .string(old), "returnSecureToken": true,
                        ])
                    }
                }
                var sessions: [TestClient.Reply] = []
                for try await reply in group {
                    guard let reply else { continue }
                    // Wrong passwords after the change may lock the account for the throttle's window.
                    #expect(reply.status == 200 || ["INVALID_PASSWORD", "TOO_MANY_ATTEMPTS_TRY_LATER"].contains(reply.errorCode),
                            "\(reply.body)")
                    if reply.status == 200 { sessions.append(reply) }
                }
                return sessions
            }
            // Past the wrong-password throttle's window (ID tokens live an hour: the rounds stay well inside it).
            server.clock.advance(seconds: Double(Budget.passwordTries.windowSeconds))
            for session in sessions + [fresh] {
                let refreshed = try await client.refresh(session.string("refreshToken"))
                #expect(refreshed.errorCode == "TOKEN_EXPIRED", "round \(round): an old-password session survived")
                #expect(try await client.lookup(idToken: session.string("idToken")).errorCode == "TOKEN_EXPIRED")
            }
            let oldAgain = try await client.post(
                "/v1/accounts:signInWithPassword", ["email": .string(email), "password": .string(old)])
            #expect(oldAgain.errorCode == "INVALID_PASSWORD", "round \(round): the old password came back")
            let newWorks = try await client.post(
                "/v1/accounts:signInWithPassword", ["email": .string(email), "password": .string(new), "returnSecureToken": true])
            #expect(newWorks.status == 200, "round \(round): \(newWorks.body)")
            #expect(try await client.refresh(newWorks.string("refreshToken")).status == 200)
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func disablingDuringSignInsHolds(database: TestDatabase) async throws {
        try await withServer(database: database) { _, client in
            for round in 0..<Self.rounds {
                let (signedUp, localID, sessions) = try await Self.adminUpdateDuringSignIns(
                    client, email: "disable\(round)@example.com", ["disableUser": true])
                let stored = try await client.admin("/v1/accounts:lookup", ["localId": [.string(localID)]])
                #expect(stored.firstUser?["disabled"] == .bool(true), "round \(round): a sign-in re-enabled the user")
                for session in sessions + [signedUp] {
                    #expect(try await client.refresh(session.string("refreshToken")).errorCode == "USER_DISABLED")
                }
                // Enabling again does not bring the sessions of before the disable back.
                _ = try await client.admin("/v1/accounts:update", ["localId": .string(localID), "disableUser": false])
                for session in sessions + [signedUp] {
                    #expect(try await client.refresh(session.string("refreshToken")).errorCode == "TOKEN_EXPIRED")
                }
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func revocationDuringSignInsHolds(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            for round in 0..<Self.rounds {
                let email = "revoke\(round)@example.com"
                let validSince = String(server.clock.seconds)
                let (signedUp, localID, _) = try await Self.adminUpdateDuringSignIns(
                    client, email: email, ["validSince": .string(validSince)])
                let stored = try await client.admin("/v1/accounts:lookup", ["localId": [.string(localID)]])
                #expect(stored.firstUser?["validSince"] == .string(validSince), "round \(round): a sign-in wrote validSince back")
                // The session of before the revocation is dead, although it began in the same second.
                #expect(try await client.refresh(signedUp.string("refreshToken")).errorCode == "TOKEN_EXPIRED")
                #expect(try await client.lookup(idToken: signedUp.string("idToken")).errorCode == "TOKEN_EXPIRED")
                // A sign-in after it, in that same second, lives.
                let after = try await client.post("/v1/accounts:signInWithPassword", [
                    "email": .string(email), "password": "secret123", "returnSecureToken": true,
                ])
                #expect(try await client.lookup(idToken: after.string("idToken")).status == 200)
                #expect(try await client.refresh(after.string("refreshToken")).status == 200)
            }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func concurrentLinksKeepEveryProvider(database: TestDatabase) async throws {
        try await withServer(database: database) { _, client in try await Self.linkRace(clients: [client]) }
    }

    /// Several nodes on one PostgreSQL: a user itself does not sit in any node's memory.
    @Test func concurrentLinksAcrossTwoNodes() async throws {
        try await withTwoNodes { _, clients in try await Self.linkRace(clients: clients) }
    }

    /// An anonymous user links three providers at once (spread over `clients`): all three stay linked.
    static func linkRace(clients: [TestClient]) async throws {
        for round in 0..<(rounds * 3) {
            let anonymous = try await clients[0].signUp()
            let idToken = try #require(anonymous.string("idToken"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, provider) in ["apple.com", "facebook.com", "google.com"].enumerated() {
                    let node = clients[index % clients.count]
                    group.addTask {
                        let linked = try await node.post("/v1/accounts:signInWithIdp", [
                            "idToken": .string(idToken), "requestUri": "http://localhost", "returnSecureToken": true,
                            "postBody": .string(FormURLEncoding.encode([
                                ("id_token", #"{"sub":"\#(provider)-\#(round)"}"#), ("providerId", provider),
                            ])),
                        ])
                        #expect(linked.status == 200, "\(linked.body)")
                    }
                }
                try await group.waitForAll()
            }
            let user = try await clients[0].lookup(idToken: idToken).firstUser
            let providers = Set(user?["providerUserInfo"]?.arrayValue?.compactMap { $0["providerId"]?.stringValue } ?? [])
            #expect(providers == ["apple.com", "facebook.com", "google.com"], "round \(round): a link was lost")
        }
    }

    /// Signs `email` up, then runs many password sign-ins with one admin `accounts:update` of `fields` among
    /// them; the sign-up, its user id, and the sign-ins that got tokens.
    static func adminUpdateDuringSignIns(_ client: TestClient, email: String, _ fields: [String: JSONValue]) async throws
        -> (signedUp: TestClient.Reply, localID: String, sessions: [TestClient.Reply]) {
        let signedUp = try await client.signUp(email: email, password: "secret123")
        let localID = try #require(signedUp.string("localId"))
        let sessions = try await withThrowingTaskGroup(of: TestClient.Reply?.self) { group in
            for index in 0..<concurrentSignIns {
                if index == concurrentSignIns / 3 {
                    group.addTask {
                        let updated = try await client.admin("/v1/accounts:update", fields.merging(["localId": .string(localID)]) { $1 })
                        #expect(updated.status == 200, "\(updated.body)")
                        return nil
                    }
                }
                group.addTask {
                    try await client.post("/v1/accounts:signInWithPassword", [
                        "email": .string(email), "password": "secret123", "returnSecureToken": true,
                    ])
                }
            }
            var sessions: [TestClient.Reply] = []
            for try await reply in group {
                if let reply, reply.status == 200 { sessions.append(reply) }
            }
            return sessions
        }
        return (signedUp, localID, sessions)
    }
}

extension AccountIntegrityTests {
    // MARK: Recent login

    /// Every endpoint that changes a credential refuses a sign-in older than five minutes.
    @Test(arguments: TestDatabase.allCases)
    func everyCredentialChangeNeedsARecentSignIn(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let signedUp = try await client.signUp(email: "old@example.com", password: "secret123")
            server.clock.advance(seconds: 600)
            let refreshed = try await client.refresh(signedUp.string("refreshToken"))
            let idToken = try #require(refreshed["id_token"])
            let attempts: [(String, [String: JSONValue])] = [
                ("/v1/accounts:signUp", ["idToken": idToken, "email": "old@example.com", "password": "another123"]),
                ("/v1/accounts:update", ["idToken": idToken, "password": "another123"]),
                ("/v1/accounts:update", ["idToken": idToken, "email": "new@example.com"]),
                ("/v1/accounts:update", ["idToken": idToken, "deleteProvider": ["password"]]),
                ("/v1/accounts:sendOobCode", ["idToken": idToken, "requestType": "VERIFY_AND_CHANGE_EMAIL",
                                              "newEmail": "new@example.com"]),
                ("/v1/accounts:signInWithIdp", ["idToken": idToken, "requestUri": "http://localhost",
                                                "postBody": .string(FormURLEncoding.encode([
                                                    ("id_token", #"{"sub":"late-link"}"#), ("providerId", "apple.com")]))]),
                ("/v1/accounts:delete", ["idToken": idToken]),
            ]
            for (path, body) in attempts {
                let reply = try await client.post(path, body)
                #expect(reply.errorCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "\(path) \(body): \(reply.body)")
            }
            // Phone and email-link linking too.
            let sent = try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+15555550123"])
            let sessionInfo = try #require(sent["sessionInfo"], "\(sent.body)")
            let code = try #require(server.log.smsCodes(to: "+15555550123").last)
            let phoneLink = try await client.post("/v1/accounts:signInWithPhoneNumber", [
                "idToken": idToken, "sessionInfo": sessionInfo, "code": .string(code),
            ])
            #expect(phoneLink.errorCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "\(phoneLink.body)")
            _ = try await client.sendSignInLink("other@example.com")
            let linkCode = try #require(try await client.oobCodes(server).last?["oobCode"])
            let emailLink = try await client.post("/v1/accounts:signInWithEmailLink", [
                "idToken": idToken, "email": "other@example.com", "oobCode": linkCode,
            ])
            #expect(emailLink.errorCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN", "\(emailLink.body)")

            // Nothing changed, and signing in again opens the door.
            let stored = try #require(try await client.lookup(idToken: idToken.stringValue).firstUser)
            #expect(stored["email"] == "old@example.com")
            #expect(stored["providerUserInfo"]?.arrayValue?.count == 1)
            let again = try await client.post("/v1/accounts:signInWithPassword", [
                "email": "old@example.com", "password": "secret123", "returnSecureToken": true,
            ])
            let changed = try await client.post("/v1/accounts:update", [
                "idToken": try #require(again["idToken"], "\(again.body)"), "email": "new@example.com", "returnSecureToken": true,
            ])
            #expect(changed.status == 200, "\(changed.body)")
        }
    }

    /// An anonymous account has no credential to protect and cannot re-authenticate: it links at any age.
    @Test func anonymousAccountsLinkAtAnyAge() async throws {
        try await withServer { server, client in
            let anonymous = try await client.signUp()
            server.clock.advance(seconds: 3600 * 24)
            let refreshed = try await client.refresh(anonymous.string("refreshToken"))
            let upgraded = try await client.post("/v1/accounts:signUp", [
                "idToken": try #require(refreshed["id_token"], "\(refreshed.body)"), "email": "late@example.com", "password": "secret123", "returnSecureToken": true,
            ])
            #expect(upgraded.status == 200, "\(upgraded.body)")
        }
    }

    // MARK: Email changes

    @Test(arguments: TestDatabase.allCases)
    func anEmailChangeRevokesOtherSessions(database: TestDatabase) async throws {
        try await withServer(database: database) { _, client in
            let signedUp = try await client.signUp(email: "before@example.com", password: "secret123")
            let other = try await client.post("/v1/accounts:signInWithPassword", [
                "email": "before@example.com", "password": "secret123", "returnSecureToken": true,
            ])
            let changed = try await client.post("/v1/accounts:update", [
                "idToken": try #require(signedUp["idToken"], "\(signedUp.body)"), "email": "after@example.com", "returnSecureToken": true,
            ])
            #expect(changed.status == 200, "\(changed.body)")
            for session in [signedUp, other] {
                #expect(try await client.refresh(session.string("refreshToken")).errorCode == "TOKEN_EXPIRED")
                #expect(try await client.lookup(idToken: session.string("idToken")).errorCode == "TOKEN_EXPIRED")
            }
            #expect(try await client.refresh(changed.string("refreshToken")).status == 200)
            #expect(try await client.lookup(idToken: changed.string("idToken")).firstUser?["email"] == "after@example.com")
        }
    }

    // MARK: Pre-hijacking

    enum Attacker: String, CaseIterable, CustomStringConvertible {
        case anonymous, phone, facebook
        var description: String { rawValue }
    }

    /// Someone creates an account, sets the victim's address on it unverified, and waits. The owner's
    /// email-link sign-in lands in that account with every credential the stranger added gone and every
    /// session the stranger holds dead.
    @Test(arguments: Attacker.allCases, TestDatabase.allCases)
    func aPreRegisteredImpostorIsLockedOut(attacker: Attacker, database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let victim = "victim@example.com"
            let attackerSession = try await Self.attackerAccount(attacker, client: client, server: server)
            let attackerToken = try #require(attackerSession.string("idToken"), "\(attackerSession.body)")
            let claimed = try await client.post("/v1/accounts:update", [
                "idToken": .string(attackerToken), "email": .string(victim), "password": "attacker1", "returnSecureToken": true,
            ])
            #expect(claimed.status == 200, "\(claimed.body)")

            let owner = try await client.signInWithLink(victim, server: server)
            #expect(owner.status == 200)
            for session in [attackerSession, claimed] {
                #expect(try await client.refresh(session.string("refreshToken")).errorCode == "TOKEN_EXPIRED")
                #expect(try await client.lookup(idToken: session.string("idToken")).errorCode == "TOKEN_EXPIRED")
            }
            let account = try #require(try await client.lookup(idToken: owner.string("idToken")).firstUser)
            #expect(account["passwordHash"] == nil)
            #expect(account["phoneNumber"] == nil)
            #expect(account["emailVerified"] == .bool(true))
            let providers = account["providerUserInfo"]?.arrayValue?.compactMap { $0["providerId"]?.stringValue }
            #expect(providers == ["password"])

            // The stranger's credentials no longer lead into the owner's account.
            let password = try await client.post("/v1/accounts:signInWithPassword", ["email": .string(victim), "password": "attacker1"])
            #expect(password.errorCode == "INVALID_PASSWORD")
            if attacker != .anonymous {
                let again = try await Self.attackerAccount(attacker, client: client, server: server)
                #expect(again.string("localId") != owner.string("localId"))
            }
        }
    }

    /// A password reset the owner asks for ends the stranger's access the same way.
    @Test(arguments: TestDatabase.allCases)
    func aPasswordResetLocksTheImpostorOut(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let victim = "victim@example.com"
            let attackerSession = try await Self.attackerAccount(.phone, client: client, server: server)
            let claimed = try await client.post("/v1/accounts:update", [
                "idToken": try #require(attackerSession["idToken"], "\(attackerSession.body)"), "email": .string(victim),
                "password": "attacker1", "returnSecureToken": true,
            ])
            let sent = try await client.post("/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": .string(victim)])
            #expect(sent.status == 200, "\(sent.body)")
            let code = try #require(try await client.oobCodes(server).last?["oobCode"])
            let reset = try await client.post("/v1/accounts:resetPassword", ["oobCode": code, "newPassword": "owner-pass1"])
            #expect(reset.status == 200, "\(reset.body)")
            for session in [attackerSession, claimed] {
                #expect(try await client.refresh(session.string("refreshToken")).errorCode == "TOKEN_EXPIRED")
            }
            let account = try #require(try await client.admin("/v1/accounts:lookup", ["email": [.string(victim)]]).firstUser)
            #expect(account["phoneNumber"] == nil)
            #expect(account["emailVerified"] == .bool(true))
            let owner = try await client.post("/v1/accounts:signInWithPassword", ["email": .string(victim), "password": "owner-pass1"])
            #expect(owner.status == 200)
            let number = try await Self.attackerAccount(.phone, client: client, server: server)
            #expect(number.string("localId") != owner.string("localId"))
        }
    }

    /// Verifying the address one signed up with is not a takeover: the password and the session stay.
    @Test func verifyingOnesOwnAddressKeepsTheAccountAsItIs() async throws {
        try await withServer { server, client in
            let signedUp = try await client.signUp(email: "me@example.com", password: "secret123")
            let sent = try await client.post("/v1/accounts:sendOobCode", [
                "requestType": "VERIFY_EMAIL", "idToken": try #require(signedUp["idToken"]),
            ])
            #expect(sent.status == 200, "\(sent.body)")
            let code = try #require(try await client.oobCodes(server).last?["oobCode"])
            #expect(try await client.post("/v1/accounts:update", ["oobCode": code]).status == 200)
            let account = try #require(try await client.lookup(idToken: signedUp.string("idToken")).firstUser)
            #expect(account["emailVerified"] == .bool(true))
            #expect(try await client.refresh(signedUp.string("refreshToken")).status == 200)
            let again = try await client.post("/v1/accounts:signInWithPassword", ["email": "me@example.com", "password": "secret123"])
            #expect(again.status == 200)
        }
    }

    /// A fresh account of the given kind, signed in.
    static func attackerAccount(_ kind: Attacker, client: TestClient, server: TestServer) async throws -> TestClient.Reply {
        switch kind {
        case .anonymous:
            return try await client.signUp()
        case .phone:
            let number = "+15555550177"
            let sent = try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": .string(number)])
            let code = try #require(server.log.smsCodes(to: number).last)
            return try await client.post("/v1/accounts:signInWithPhoneNumber", [
                "sessionInfo": try #require(sent["sessionInfo"], "\(sent.body)"), "code": .string(code),
            ])
        case .facebook:
            return try await client.post("/v1/accounts:signInWithIdp", [
                "requestUri": "http://localhost", "returnSecureToken": true,
                "postBody": .string(FormURLEncoding.encode([("id_token", #"{"sub":"fb-attacker"}"#), ("providerId", "facebook.com")])),
            ])
        }
    }

    // MARK: One-time values

    @Test(arguments: TestDatabase.allCases)
    func aPendingTokenWorksOnce(database: TestDatabase) async throws {
        try await withServer(database: database) { _, client in
            func idp(_ extra: [String: JSONValue]) async throws -> TestClient.Reply {
                var body: [String: JSONValue] = [
                    "requestUri": "http://localhost", "returnSecureToken": true, "returnIdpCredential": true,
                    "postBody": .string(FormURLEncoding.encode([("id_token", #"{"sub":"apple-holder"}"#), ("providerId", "apple.com")])),
                ]
                body.merge(extra) { $1 }
                return try await client.post("/v1/accounts:signInWithIdp", body)
            }
            let holder = try await idp([:])
            let other = try await client.signUp()
            // Linking an Apple account another user holds: a conflict, reported in a 200 with a pending token.
            let conflict = try await idp(["idToken": try #require(other["idToken"], "\(other.body)")])
            #expect(conflict.string("errorMessage") == "FEDERATED_USER_ID_ALREADY_LINKED", "\(conflict.body)")
            let pending = try #require(conflict["pendingToken"])
            let first = try await idp(["pendingToken": pending, "postBody": .null])
            #expect(first.string("localId") == holder.string("localId"), "\(first.body)")
            for shape in [["returnIdpCredential": JSONValue.bool(true)], ["returnIdpCredential": .bool(false)]] {
                var body: [String: JSONValue] = ["pendingToken": pending, "postBody": .null]
                body.merge(shape) { $1 }
                let again = try await idp(body)
                #expect(again.errorCode == "INVALID_PENDING_TOKEN", "\(again.body)")
                #expect(again["pendingToken"] == nil && again["idToken"] == nil)
            }
        }
    }

    @Test func aSecondFactorPendingCredentialWorksOnce() async throws {
        try await withServer { server, client in
            let user = try await MultiFactorAPITests.verifiedUser(client)
            let enrolled = try await MultiFactorAPITests.enrollPhone(
                client, server, idToken: try #require(user.string("idToken")), number: "+15555550111")
            let enrollmentID = try #require(
                try await client.lookup(idToken: enrolled.string("idToken")).firstUser?["mfaInfo"]?.arrayValue?.first?["mfaEnrollmentId"])
            let first = try await client.post("/v1/accounts:signInWithPassword", [
                "email": "ada@example.com", "password": .string(MultiFactorAPITests.password), "returnSecureToken": true,
            ])
            let pending = try #require(first["mfaPendingCredential"])
            func start() async throws -> TestClient.Reply {
                try await client.post("/v2/accounts/mfaSignIn:start", ["mfaPendingCredential": pending, "mfaEnrollmentId": enrollmentID])
            }
            let started = try await start()
            let done = try await client.post("/v2/accounts/mfaSignIn:finalize", [
                "mfaPendingCredential": pending,
                "phoneVerificationInfo": ["sessionInfo": try #require(started["phoneResponseInfo"]?["sessionInfo"], "\(started.body)"),
                                          "code": .string(try #require(server.log.smsCodes(to: "+15555550111").last))],
            ])
            #expect(done.status == 200, "\(done.body)")
            #expect(try await start().errorCode == "INVALID_MFA_PENDING_CREDENTIAL")
        }
    }

    // MARK: Shape

    /// Tokens are issued in one place: no service keeps its own copy of the sign-in pipeline, and no
    /// code path writes a whole user row.
    @Test func oneSignInPipelineAndOneMutationPath() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/FlintServer").standardized
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            let name = file.lastPathComponent
            if !["SignInPipeline.swift", "TokenService.swift"].contains(name) {
                #expect(!text.contains("startSession(") && !text.contains("tokens.tokens("),
                        "\(name) issues tokens outside the sign-in pipeline")
                #expect(!text.contains(".challenge(for:"), "\(name) asks for a second factor outside the pipeline")
            }
            #expect(!text.contains("updateUser("), "\(name) writes a whole user row")
        }
    }
}
