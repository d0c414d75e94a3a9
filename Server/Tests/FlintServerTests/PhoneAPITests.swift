import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Phone sign-in over HTTP: codes, fictional numbers, linking, app verification and limits.
@Suite struct PhoneAPITests {
    static let number = "+15551230001"

    @Test(arguments: TestDatabase.allCases)
    func realNumberSignsInAndLaterReturnsTheSameUser(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let first = try await client.signInWithPhone(Self.number, server: server)
            #expect(first["isNewUser"] == .bool(true))
            #expect(first.string("phoneNumber") == Self.number)
            #expect(claims(of: first.string("idToken"))["firebase"]?.objectValue?["sign_in_provider"] == .string("phone"))
            #expect(claims(of: first.string("idToken"))["phone_number"] == .string(Self.number))

            server.clock.advance(seconds: 60)
            let second = try await client.signInWithPhone(Self.number, server: server)
            #expect(second["isNewUser"] == .bool(false))
            #expect(second.string("localId") == first.string("localId"))
            let user = try await client.lookup(idToken: second.string("idToken")).firstUser
            #expect(user?["phoneNumber"] == .string(Self.number))
            #expect(user?["providerUserInfo"]?.arrayValue?.first?.objectValue?["providerId"] == .string("phone"))
        }
    }

    @Test func emulatorListsCodesAndTheV3NamesWork() async throws {
        try await withServer { server, client in
            let sent = try await client.post(
                "/www.googleapis.com/identitytoolkit/v3/relyingparty/sendVerificationCode", ["phoneNumber": "+1 (555) 123-0001"])
            #expect(sent.status == 200)
            let sessionInfo = try #require(sent.string("sessionInfo"))
            let listed = try await client.send(
                "GET", "/emulator/v1/projects/\(server.projectID)/verificationCodes", includeKey: false)
            let entry = try #require(listed["verificationCodes"]?.arrayValue?.first?.objectValue)
            #expect(entry["phoneNumber"] == .string(Self.number))
            #expect(entry["sessionInfo"] == .string(sessionInfo))
            let code = try #require(entry["code"]?.stringValue)
            #expect(code.count == 6 && code.allSatisfy(\.isNumber))
            #expect(server.log.smsCodes(to: Self.number) == [code])

            let verified = try await client.post(
                "/www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPhoneNumber",
                ["sessionInfo": .string(sessionInfo), "code": .string(code)])
            #expect(verified.status == 200)
            #expect(verified.string("idToken") != nil)
            // A used code is gone from the listing.
            let after = try await client.send("GET", "/emulator/v1/projects/\(server.projectID)/verificationCodes", includeKey: false)
            #expect(after["verificationCodes"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func codeErrors(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let cases: [([String: JSONValue], String)] = [
                ([:], "INVALID_PHONE_NUMBER"),
                (["phoneNumber": "5551230001"], "INVALID_PHONE_NUMBER"),
                (["phoneNumber": "+1555abc0001"], "INVALID_PHONE_NUMBER"),
                (["phoneNumber": "+123"], "INVALID_PHONE_NUMBER"),
            ]
            for (body, code) in cases {
                let reply = try await client.post("/v1/accounts:sendVerificationCode", body)
                #expect(reply.status == 400)
                #expect(reply.errorCode == code, "\(body)")
            }

            let sessionInfo = try await client.sendCode(Self.number)
            let code = try #require(server.log.smsCodes(to: Self.number).last)
            let wrong = code == "000000" ? "111111" : "000000"
            #expect(try await client.verify(sessionInfo, wrong).errorCode == "INVALID_CODE")
            #expect(try await client.verify(sessionInfo, nil).errorCode == "MISSING_CODE")
            #expect(try await client.verify(nil, code).errorCode == "MISSING_SESSION_INFO")
            #expect(try await client.verify("bogus", code).errorCode == "INVALID_SESSION_INFO")
            // A wrong try does not kill the session; the right code then works once.
            #expect(try await client.verify(sessionInfo, code).status == 200)
            #expect(try await client.verify(sessionInfo, code).errorCode == "INVALID_SESSION_INFO")

            // Expiry.
            let expiring = try await client.sendCode(Self.number)
            let expiringCode = try #require(server.log.smsCodes(to: Self.number).last)
            server.clock.advance(seconds: 301)
            #expect(try await client.verify(expiring, expiringCode).errorCode == "SESSION_EXPIRED")

            // Too many wrong tries kill the session, even for the right code afterwards.
            let guarded = try await client.sendCode(Self.number)
            let guardedCode = try #require(server.log.smsCodes(to: Self.number).last)
            let wrongCode = guardedCode == "000000" ? "111111" : "000000"
            let attempts = PhoneLimits().maxAttemptsPerCode
            for attempt in 1...attempts {
                let reply = try await client.verify(guarded, wrongCode)
                #expect(reply.errorCode == (attempt < attempts ? "INVALID_CODE" : "TOO_MANY_ATTEMPTS_TRY_LATER"))
            }
            #expect(try await client.verify(guarded, guardedCode).errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func fictionalNumbersUseTheirFixedCodeAndSendNothing(database: TestDatabase) async throws {
        try await withServer(emulator: false, database: database) { server, client in
            let admin = try await AdminClient(server)
            let set = try await admin.patchConfig(
                ["signIn": ["phoneNumber": ["testPhoneNumbers": ["+1 555-555-0100": "123456"]]]],
                mask: "signIn.phoneNumber.testPhoneNumbers")
            #expect(set.status == 200, "\(set.body)")
            #expect(set["signIn"]?.objectValue?["phoneNumber"]?.objectValue?["testPhoneNumbers"]
                == .object(["+15555550100": "123456"]))

            // Production mode, no app credential, the same number again and again: no SMS, same user.
            var uids: Set<String> = []
            for _ in 0..<3 {
                let sessionInfo = try await client.sendCode("+15555550100")
                #expect(try await client.verify(sessionInfo, "654321").errorCode == "INVALID_CODE")
                let reply = try await client.verify(sessionInfo, "123456")
                #expect(reply.status == 200)
                uids.insert(try #require(reply.string("localId")))
            }
            #expect(uids.count == 1)
            #expect(server.log.smsCodes(to: "+15555550100").isEmpty)
            // Real numbers still need an app credential.
            let real = try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": .string(Self.number)])
            #expect(real.errorCode == "MISSING_APP_CREDENTIAL")
        }
    }

    @Test func fictionalNumberRules() async throws {
        try await withServer(emulator: false) { server, client in
            let admin = try await AdminClient(server)
            // A number a real user holds cannot become fictional.
            _ = try await client.signInWithPhone(Self.number, server: server, configureVerification: admin)
            let taken = try await admin.patchConfig(
                ["signIn": ["phoneNumber": ["testPhoneNumbers": .object([Self.number: "123456"])]]],
                mask: "signIn.phoneNumber.testPhoneNumbers")
            #expect(taken.errorCode == "INVALID_ARGUMENT")
            let badCode = try await admin.patchConfig(
                ["signIn": ["phoneNumber": ["testPhoneNumbers": ["+15555550100": "12345"]]]],
                mask: "signIn.phoneNumber.testPhoneNumbers")
            #expect(badCode.errorCode == "INVALID_ARGUMENT")
            var eleven: [String: JSONValue] = [:]
            for index in 0..<11 { eleven["+1555555\(String(format: "%04d", index))"] = "123456" }
            let tooMany = try await admin.patchConfig(
                ["signIn": ["phoneNumber": ["testPhoneNumbers": .object(eleven)]]], mask: "signIn.phoneNumber.testPhoneNumbers")
            #expect(tooMany.errorCode == "INVALID_ARGUMENT")
            // Without admin credentials the config is out of reach.
            let anonymous = try await client.send("GET", "/v2/projects/\(server.projectID)/config")
            #expect(anonymous.status == 403)
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func linkingConflictAndReauthentication(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let owner = try await client.signInWithPhone(Self.number, server: server)
            let other = try await client.signUp(email: "other@example.com", password: "secret123")

            // Linking a number someone else holds: 200 with a temporary proof and no tokens.
            server.clock.advance(seconds: 60)
            let sessionInfo = try await client.sendCode(Self.number)
            let code = try #require(server.log.smsCodes(to: Self.number).last)
            let conflict = try await client.post("/v1/accounts:signInWithPhoneNumber", [
                "sessionInfo": .string(sessionInfo), "code": .string(code), "idToken": other["idToken"]!, "operation": "LINK",
            ])
            #expect(conflict.status == 200)
            #expect(conflict["idToken"] == nil)
            #expect(conflict.string("phoneNumber") == Self.number)
            #expect(conflict.string("temporaryProofExpiresIn") == "3600")
            let proof = try #require(conflict.string("temporaryProof"))

            // The proof cannot be linked elsewhere, but signs in as the owner, once.
            let linkProof = try await client.post("/v1/accounts:signInWithPhoneNumber", [
                "temporaryProof": .string(proof), "phoneNumber": .string(Self.number), "idToken": other["idToken"]!,
            ])
            #expect(linkProof.errorCode == "PHONE_NUMBER_EXISTS")
            let wrongNumber = try await client.post("/v1/accounts:signInWithPhoneNumber", [
                "temporaryProof": .string(proof), "phoneNumber": "+15551230002",
            ])
            #expect(wrongNumber.errorCode == "INVALID_TEMPORARY_PROOF")
            let asOwner = try await client.post("/v1/accounts:signInWithPhoneNumber", [
                "temporaryProof": .string(proof), "phoneNumber": .string(Self.number),
            ])
            #expect(asOwner.status == 200, "\(asOwner.body)")
            #expect(asOwner.string("localId") == owner.string("localId"))

            // Linking a free number works; the email user now has both providers.
            server.clock.advance(seconds: 60)
            let free = "+15551230002"
            let linkSession = try await client.sendCode(free)
            let linked = try await client.post("/v1/accounts:signInWithPhoneNumber", [
                "sessionInfo": .string(linkSession), "code": .string(server.log.smsCodes(to: free).last ?? ""),
                "idToken": other["idToken"]!, "operation": "LINK",
            ])
            #expect(linked.string("localId") == other.string("localId"))
            let providers = try await client.lookup(idToken: linked.string("idToken")).firstUser?["providerUserInfo"]?.arrayValue
            #expect(Set(providers?.compactMap { $0.objectValue?["providerId"]?.stringValue } ?? []) == ["password", "phone"])

            // Re-authentication: a known number signs in; an unknown one is USER_NOT_FOUND and creates nobody.
            server.clock.advance(seconds: 60)
            let reauth = try await client.post("/v1/accounts:signInWithPhoneNumber", [
                "sessionInfo": .string(try await client.sendCode(free)), "code": .string(server.log.smsCodes(to: free).last ?? ""),
                "operation": "REAUTH",
            ])
            #expect(reauth.string("localId") == other.string("localId"))
            let stranger = "+15551230003"
            let unknown = try await client.post("/v1/accounts:signInWithPhoneNumber", [
                "sessionInfo": .string(try await client.sendCode(stranger)),
                "code": .string(server.log.smsCodes(to: stranger).last ?? ""), "operation": "REAUTH",
            ])
            #expect(unknown.errorCode == "USER_NOT_FOUND")
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, phoneNumber: stranger) == nil)
        }
    }

    @Test func productionRefusesMissingAndForgedAppCredentials() async throws {
        try await withServer(emulator: false) { _, client in
            let cases: [([String: JSONValue], String)] = [
                ([:], "MISSING_APP_CREDENTIAL"),
                (["iosReceipt": "made-up", "iosSecret": "made-up"], "INVALID_APP_CREDENTIAL"),
                (["iosReceipt": "made-up"], "MISSING_APP_CREDENTIAL"),
                (["recaptchaToken": "made-up"], "INVALID_APP_CREDENTIAL"),
                (["recaptchaToken": "flint-pow.made-up"], "INVALID_APP_CREDENTIAL"),
            ]
            for (extra, code) in cases {
                var body = extra
                body["phoneNumber"] = .string(Self.number)
                let reply = try await client.post("/v1/accounts:sendVerificationCode", body)
                #expect(reply.errorCode == code, "\(extra)")
            }
            // verifyClient without APNs configured is refused, not silently accepted.
            let verify = try await client.post("/v1/accounts:verifyClient", ["appToken": "abcd", "isSandbox": true])
            #expect(verify.errorCode == "INVALID_APP_CREDENTIAL")
        }
    }

    @Test func regionPolicyAndLocalisedText() async throws {
        try await withServer(emulator: false) { server, client in
            let admin = try await AdminClient(server)
            try await admin.allowUnverifiedApps()
            let policy = try await admin.patchConfig(
                ["smsRegionConfig": ["allowlistOnly": ["allowedRegions": ["FR", "de"]]]], mask: "smsRegionConfig")
            #expect(policy.status == 200, "\(policy.body)")
            let refused = try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": .string(Self.number)])
            #expect(refused.errorCode == "OPERATION_NOT_ALLOWED")
            let french = "+33612345678"
            let sent = try await client.post(
                "/v1/accounts:sendVerificationCode", ["phoneNumber": .string(french)], headers: ["X-Firebase-Locale": "fr-FR"])
            #expect(sent.status == 200)
            let entry = try #require(server.log.all.last { $0.metadata["phoneNumber"] == french })
            #expect(entry.metadata["locale"] == "fr")
            let unknownRegion = try await admin.patchConfig(
                ["smsRegionConfig": ["allowByDefault": ["disallowedRegions": ["XX"]]]], mask: "smsRegionConfig")
            #expect(unknownRegion.errorCode == "INVALID_ARGUMENT")
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func expiredCodesAndOldCountersAreSwept(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let store = server.server.store
            let live = try await client.sendCode(Self.number)
            server.clock.advance(seconds: 200)
            let fresh = try await client.sendCode("+15551230002")
            server.clock.advance(seconds: 200)
            // Only the first code has expired.
            #expect(try await store.codes.deleteExpiredVerificationCodes(before: server.clock.milliseconds) == 1)
            #expect(try await client.verify(live, server.log.smsCodes(to: Self.number).last).errorCode == "INVALID_SESSION_INFO")
            #expect(try await client.verify(fresh, server.log.smsCodes(to: "+15551230002").last).status == 200)

            let now = server.clock.seconds
            try await store.counters.incrementCounter("old", windowStart: now - 2 * 86_400)
            try await store.counters.incrementCounter("recent", windowStart: now - 60)
            #expect(try await store.counters.deleteCounters(windowStartedBefore: now - 86_400) == 1)
            #expect(try await store.counters.counter("recent", windowStart: now - 60) == 1)
        }
    }

    @Test func sendLimits() async throws {
        var limits = PhoneLimits()
        limits.perNumberPerHour = 3
        limits.perIPPerMinute = 5
        limits.perProjectPerMinute = 8
        // Ten minutes past a whole hour, so the steps below stay inside one hourly window whenever the test runs.
        let start = Date(timeIntervalSince1970: 1_800_000_600)
        try await withServer(emulator: false, clock: TestClock(start), configure: { $0.phoneLimits = limits }) { server, client in
            let admin = try await AdminClient(server)
            try await admin.allowUnverifiedApps()
            // The resend interval.
            #expect(try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": .string(Self.number)]).status == 200)
            let again = try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": .string(Self.number)])
            #expect(again.errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
            // Per number per hour (3): two more after the interval, then refused.
            for expected in ["", "", "TOO_MANY_ATTEMPTS_TRY_LATER"] {
                server.clock.advance(seconds: 31)
                let reply = try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": .string(Self.number)])
                #expect((reply.errorCode ?? "") == expected)
            }
            #expect(server.log.smsCodes(to: Self.number).count == 3)
            // Per IP per minute (5) and per project per minute (8), in a fresh minute.
            server.clock.advance(seconds: 60)
            var codes: [String] = []
            for index in 0..<6 {
                let reply = try await client.post(
                    "/v1/accounts:sendVerificationCode", ["phoneNumber": .string("+1555123100\(index)")])
                codes.append(reply.errorCode ?? "")
            }
            #expect(codes == ["", "", "", "", "", "TOO_MANY_ATTEMPTS_TRY_LATER"])
        }
    }

    /// A fictional number's fixed code cannot be guessed by sharing tries out over many clients: the number itself
    /// starts at most `sessionsPerTestNumberPerHour` sessions an hour, whoever asks; the next hour it starts again.
    @Test func aFictionalNumberStartsFewSessionsAnHourFromAllClients() async throws {
        var limits = PhoneLimits()
        limits.sessionsPerTestNumberPerHour = 3
        let start = Date(timeIntervalSince1970: 1_800_000_600)   // ten minutes past a whole hour
        let proxies = try TrustedProxies("127.0.0.1/32")   // so each request names its own client
        try await withServer(emulator: false, clock: TestClock(start), configure: {
            $0.phoneLimits = limits
            $0.trustedProxies = proxies
        }) { server, client in
            let admin = try await AdminClient(server)
            #expect(try await admin.patchConfig(
                ["signIn": ["phoneNumber": ["testPhoneNumbers": ["+15555550100": "123456"]]]],
                mask: "signIn.phoneNumber.testPhoneNumbers").status == 200)
            func send(from address: String) async throws -> TestClient.Reply {
                try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+15555550100"],
                                      headers: ["X-Forwarded-For": address])
            }
            var answers: [String] = []
            for index in 1...4 { answers.append(try await send(from: "203.0.113.\(index)").errorCode ?? "") }
            #expect(answers == ["", "", "", "TOO_MANY_ATTEMPTS_TRY_LATER"])
            #expect(try await send(from: "203.0.113.9").errorMessage
                == "TOO_MANY_ATTEMPTS_TRY_LATER : Too many codes requested for this fictional number.")
            server.clock.advance(seconds: 3600)
            #expect(try await send(from: "203.0.113.10").status == 200)
        }
    }

    @Test func projectQuotaHoldsAcrossTwoNodesSharingPostgres() async throws {
        var limits = PhoneLimits()
        limits.perProjectPerMinute = 4
        limits.perIPPerMinute = 100
        try await withServer(emulator: false, database: .postgres, configure: { $0.phoneLimits = limits }) { first, _ in
            try await AdminClient(first).allowUnverifiedApps()
            try await withServer(emulator: false, sharing: first.database, clock: first.clock,
                                 configure: { $0.phoneLimits = limits }) { second, _ in
                var replies: [String] = []
                for index in 0..<6 {
                    let node = index.isMultiple(of: 2) ? first : second
                    let reply = try await TestClient(node).post(
                        "/v1/accounts:sendVerificationCode", ["phoneNumber": .string("+1555123200\(index)")])
                    replies.append(reply.errorCode ?? "")
                }
                #expect(replies == ["", "", "", "", "QUOTA_EXCEEDED", "QUOTA_EXCEEDED"])
                // A code sent through one node signs in through the other, once.
                first.clock.advance(seconds: 60)
                let sessionInfo = try await TestClient(first).sendCode("+15551232000")
                let code = first.log.smsCodes(to: "+15551232000").last
                #expect(try await TestClient(second).verify(sessionInfo, code).status == 200)
                #expect(try await TestClient(first).verify(sessionInfo, code).errorCode == "INVALID_SESSION_INFO")
            }
        }
    }
}

/// Admin calls in either mode: `Bearer owner` in emulator mode; production admin credentials do not
/// exist yet, so production tests change settings through the project directory directly.
struct AdminClient {
    let server: TestServer
    let client: TestClient

    init(_ server: TestServer) async throws {
        self.server = server
        client = TestClient(baseURL: server.baseURL, apiKey: nil)
    }

    /// PATCHes the v2 config over HTTP (emulator mode), or applies the same change in process.
    func patchConfig(_ body: JSONValue, mask: String) async throws -> ConfigReply {
        if server.server.configuration.emulator {
            let reply = try await client.send(
                "PATCH", "/v2/projects/\(server.projectID)/config?updateMask=\(mask)",
                body: JSONEncoder().encode(body), headers: ["Authorization": "Bearer owner"], includeKey: false)
            return ConfigReply(status: reply.status, body: reply.body, errorCode: reply.errorCode)
        }
        let change = try JSONDecoder().decode(ProjectConfig.self, from: JSONEncoder().encode(body))
        do {
            let config = try await server.server.updateProjectConfig(server.projectID, change, updateMask: mask)
            return ConfigReply(status: 200, body: try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(config)))
        } catch let error as FlintError {
            let code = error.message.split(separator: " ").first.map(String.init)
            return ConfigReply(status: Int(error.status.code), body: .null, errorCode: code)
        }
    }

    struct ConfigReply {
        var status: Int
        var body: JSONValue
        var errorCode: String? = nil

        subscript(key: String) -> JSONValue? { body.objectValue?[key] }
    }

    /// Lets real numbers through without an app credential (limits still apply).
    func allowUnverifiedApps() async throws {
        let reply = try await patchConfig(["appVerification": ["required": false]], mask: "appVerification.required")
        #expect(reply.status == 200, "\(reply.body)")
    }
}

extension TestClient {
    /// Sends a code and returns its sessionInfo.
    func sendCode(_ phoneNumber: String, expectSuccess: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let reply = try await post("/v1/accounts:sendVerificationCode", ["phoneNumber": .string(phoneNumber)])
        if expectSuccess { #expect(reply.status == 200, "send failed: \(reply.body)", sourceLocation: sourceLocation) }
        return reply.string("sessionInfo") ?? ""
    }

    func verify(_ sessionInfo: String?, _ code: String?) async throws -> Reply {
        var body: [String: JSONValue] = [:]
        if let sessionInfo { body["sessionInfo"] = .string(sessionInfo) }
        if let code { body["code"] = .string(code) }
        return try await post("/v1/accounts:signInWithPhoneNumber", body)
    }

    /// Sends a code to `phoneNumber`, reads it from the server's log and signs in with it.
    func signInWithPhone(_ phoneNumber: String, server: TestServer, configureVerification admin: AdminClient? = nil,
                         sourceLocation: SourceLocation = #_sourceLocation) async throws -> Reply {
        if let admin { try await admin.allowUnverifiedApps() }
        let sessionInfo = try await sendCode(phoneNumber, sourceLocation: sourceLocation)
        let code = server.log.smsCodes(to: phoneNumber).last
        let reply = try await verify(sessionInfo, code)
        #expect(reply.status == 200, "phone sign-in failed: \(reply.body)", sourceLocation: sourceLocation)
        return reply
    }
}
