@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Limits that hold under parallel guessing: every try is taken in one atomic increment-and-compare
/// before the secret is compared, so many requests at once get no more comparisons than the limit.
/// One test at a time: each floods its server, and together they would starve the rest of the suite.
@Suite(.serialized) struct HostileTrafficTests {
    static let guesses = 60

    /// Sends `count` wrong passwords for `email` at once and returns the error codes.
    static func parallelWrongPasswords(_ clients: [TestClient], email: String, count: Int = guesses) async throws -> [String] {
        let clients = clients.map { $0.flooding(connections: count) }
        return try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<count {
                group.addTask {
                    try await clients[index % clients.count].post("/v1/accounts:signInWithPassword", [
                        "email": .string(email), "password": .string("wrong-\(index)"),
                    ]).errorCode ?? "OK"
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func parallelPasswordGuessesGetNoMoreChecksThanTheLimit(database: TestDatabase) async throws {
        try await withServer(emulator: false, database: database) { server, client in
            _ = try await client.signUp(email: "target@example.com", password: "secret123")
            let answers = try await Self.parallelWrongPasswords([client], email: "target@example.com")
            #expect(answers.filter { $0 == "INVALID_LOGIN_CREDENTIALS" }.count == Int(Budget.passwordTries.fixedLimit!))
            #expect(answers.filter { $0 == "TOO_MANY_ATTEMPTS_TRY_LATER" }.count == Self.guesses - Int(Budget.passwordTries.fixedLimit!))
            // The right password is refused too until the window passes.
            let right = try await client.post("/v1/accounts:signInWithPassword", ["email": "target@example.com", "password": "secret123"])
            #expect(right.errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
            server.clock.advance(seconds: Double(Budget.passwordTries.windowSeconds))
            #expect(try await client.post("/v1/accounts:signInWithPassword", ["email": "target@example.com", "password": "secret123"])
                .status == 200)
        }
    }

    /// With enumeration protection, an address nobody has locks out in the same sequence as one that an
    /// account has: the answers tell nothing.
    @Test func unknownAndKnownAddressesLockOutAlike() async throws {
        try await withServer(emulator: false) { (_: TestServer, client: TestClient) async throws in
            _ = try await client.signUp(email: "known@example.com", password: "secret123")
            var sequences: [[String]] = []
            for email in ["known@example.com", "unknown@example.com"] {
                var answers: [String] = []
                for index in 0..<12 {
                    let reply = try await client.post("/v1/accounts:signInWithPassword", [
                        "email": .string(email), "password": .string("wrong-\(index)"),
                    ])
                    answers.append(reply.errorMessage ?? "OK")
                }
                sequences.append(answers)
            }
            #expect(sequences[0] == sequences[1])
            #expect(sequences[0].last?.hasPrefix("TOO_MANY_ATTEMPTS_TRY_LATER") == true)
        }
    }

    /// Two nodes on one PostgreSQL share the tries.
    @Test func parallelGuessesAcrossTwoNodesShareTheLimit() async throws {
        try await withTwoNodes(emulator: false) { _, clients in
            _ = try await clients[0].signUp(email: "shared@example.com", password: "secret123")
            let answers = try await Self.parallelWrongPasswords(clients, email: "shared@example.com")
            #expect(answers.filter { $0 == "INVALID_LOGIN_CREDENTIALS" }.count == Int(Budget.passwordTries.fixedLimit!))
        }
    }

    /// The store's primitive behind phone and second-factor codes: however many take a try at once,
    /// exactly the allowed number get one, numbered once each.
    @Test(arguments: TestDatabase.allCases)
    func codeTriesAreTakenAtomically(database: TestDatabase) async throws {
        try await withServer(database: database) { server, _ in
            let store = server.server.store
            let id = "code-under-attack"
            try await store.codes.insertVerificationCode(VerificationCodeRecord(
                id: id, projectID: server.projectID, phoneNumber: "+15555550100", purpose: CodePurpose.signIn.rawValue,
                codeHash: "hash", attempts: 0, createdAt: 0, expiresAt: Int64.max))
            let maxAttempts: Int64 = 5
            let taken = try await withThrowingTaskGroup(of: Int64?.self) { group in
                for _ in 0..<Self.guesses {
                    group.addTask {
                        try await store.codes.takeCodeAttempt(
                            id: id, projectID: server.projectID, purpose: CodePurpose.signIn.rawValue, now: 0, maxAttempts: maxAttempts
                        )?.attempts
                    }
                }
                return try await group.reduce(into: [Int64]()) { if let number = $1 { $0.append(number) } }
            }
            #expect(taken.sorted() == Array(1...maxAttempts))
        }
    }

    /// Over HTTP: after many parallel wrong guesses the right code is refused.
    @Test(arguments: TestDatabase.allCases)
    func parallelCodeGuessesExhaustTheCode(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let number = "+15555550123"
            let sessionInfo = try await client.sendCode(number)
            let code = try #require(server.log.smsCodes(to: number).last)
            let wrong = code == "000000" ? "111111" : "000000"
            let flooding = client.flooding(connections: Self.guesses)
            let answers = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<Self.guesses {
                    group.addTask { try await flooding.verify(sessionInfo, wrong).errorCode ?? "OK" }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(answers.filter { $0 == "INVALID_CODE" }.count < PhoneLimits().maxAttemptsPerCode)
            #expect(!answers.contains("OK"))
            #expect(try await client.verify(sessionInfo, code).errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
        }
    }

    // MARK: Budgets per client

    @Test func signUpsPerClientAreLimited() async throws {
        try await withServer(emulator: false, configure: { $0.signUpLimits.perIPPerHour = 3 }) { server, client in
            for index in 0..<3 { _ = try await client.signUp(email: "u\(index)@example.com", password: "secret123") }
            let refused = try await client.post("/v1/accounts:signUp", ["email": "u3@example.com", "password": "secret123"])
            #expect(refused.errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
            #expect(try await client.post("/v1/accounts:signUp", [:]).errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
            server.clock.advance(seconds: 3600)
            _ = try await client.signUp(email: "u3@example.com", password: "secret123")
        }
    }

    /// Fictional numbers send nothing, but their codes cannot be asked for without bound.
    @Test func fictionalNumbersAreHeldToTheClientsBudget() async throws {
        try await withServer(emulator: false, configure: { $0.phoneLimits.perIPPerMinute = 2 }) { server, client in
            _ = try await server.server.updateProjectConfig(server.projectID, ProjectConfig(
                signIn: .init(phoneNumber: .init(testPhoneNumbers: ["+15555550144": "123456"]))), updateMask: "signIn.phoneNumber.testPhoneNumbers")
            for _ in 0..<2 { _ = try await client.sendCode("+15555550144") }
            let refused = try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+15555550144"])
            #expect(refused.errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
        }
    }

    /// A send the client's budget refuses takes none of the project's quota.
    @Test func refusedSendsTakeNoProjectQuota() async throws {
        try await withServer(emulator: false, configure: { $0.phoneLimits.perIPPerMinute = 1 }) { server, client in
            _ = try await server.server.updateProjectConfig(
                server.projectID, ProjectConfig(appVerification: .init(required: false)), updateMask: "appVerification.required")
            _ = try await client.sendCode("+14155550100")
            let minute = server.clock.seconds - server.clock.seconds % 60
            #expect(try await server.server.store.counters.counter("sms:project:\(server.projectID)", windowStart: minute) == 1)
            for index in 0..<5 {
                let refused = try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": .string("+1415555011\(index)")])
                #expect(refused.errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
            }
            #expect(try await server.server.store.counters.counter("sms:project:\(server.projectID)", windowStart: minute) == 1)
        }
    }

    @Test func ipv6ClientsAreCountedByTheirSlash64() {
        #expect(ClientAddress.limitKey("203.0.113.9") == "203.0.113.9")
        #expect(ClientAddress.limitKey("2001:db8:1:2::5") == "2001:db8:1:2::/64")
        #expect(ClientAddress.limitKey("2001:0db8:0001:0002:ffff:1:2:3") == "2001:db8:1:2::/64")
        #expect(ClientAddress.limitKey("::ffff:198.51.100.7") == "198.51.100.7")
        #expect(ClientAddress.limitKey("not an address") == "not an address")
    }

    /// Behind trusted proxies the client is the right-most hop that is not one of them; from anyone else,
    /// `X-Forwarded-For` is ignored.
    @Test func clientsBehindTrustedProxies() throws {
        let proxies = try TrustedProxies("10.0.0.0/8, 2001:db8::/32,192.0.2.1")
        #expect(proxies.client(peer: "10.1.2.3", forwardedFor: "198.51.100.1, 203.0.113.5, 10.9.9.9") == "203.0.113.5")
        #expect(proxies.client(peer: "192.0.2.1", forwardedFor: "203.0.113.5") == "203.0.113.5")
        #expect(proxies.client(peer: "2001:db8::7", forwardedFor: "2001:db9::1") == "2001:db9::1")
        #expect(proxies.client(peer: "203.0.113.9", forwardedFor: "198.51.100.1") == "203.0.113.9")
        #expect(proxies.client(peer: "10.1.2.3", forwardedFor: nil) == "10.1.2.3")
        #expect(TrustedProxies.none.client(peer: "127.0.0.1", forwardedFor: "198.51.100.1") == "127.0.0.1")
        #expect(throws: TrustedProxies.InvalidEntry.self) { try TrustedProxies("10.0.0.0/33") }
        #expect(throws: TrustedProxies.InvalidEntry.self) { try TrustedProxies("proxy.example.com") }
    }

    /// Over HTTP: a spoofed `X-Forwarded-For` does not move a client out of its budget.
    @Test func spoofedForwardedForDoesNotEscapeTheBudget() async throws {
        try await withServer(emulator: false, configure: { $0.signUpLimits.perIPPerHour = 1 }) { _, client in
            _ = try await client.signUp(email: "first@example.com", password: "secret123")
            let spoofed = try await client.post("/v1/accounts:signUp", ["email": "second@example.com", "password": "secret123"],
                                                headers: ["X-Forwarded-For": "198.51.100.77"])
            #expect(spoofed.errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
        }
        let loopbackProxy = try TrustedProxies("127.0.0.1")
        try await withServer(emulator: false, configure: {
            $0.signUpLimits.perIPPerHour = 1
            $0.trustedProxies = loopbackProxy
        }) { _, client in
            for address in ["198.51.100.77", "198.51.100.78"] {
                let reply = try await client.post("/v1/accounts:signUp", ["email": .string("u\(address)@example.com"), "password": "secret123"],
                                                  headers: ["X-Forwarded-For": address])
                #expect(reply.status == 200, "\(reply.body)")
            }
        }
    }

    /// Made-up refresh tokens, a known user id with a made-up secret or tag among them, all get the same
    /// answer as random text; only a token Flint made, for a user that is gone, says USER_NOT_FOUND.
    @Test func madeUpRefreshTokensTellNothing() async throws {
        try await withServer(emulator: false) { (server: TestServer, client: TestClient) async throws in
            let user = try await client.signUp(email: "known@example.com", password: "secret123")
            let localID = try #require(user.string("localId"))
            let genuine = try #require(user.string("refreshToken"))
            let parts = genuine.split(separator: ".").map(String.init)
            #expect(parts.count == 3 && parts[0] == localID)
            for madeUp in ["random", "\(localID).garbage", "nobody.garbage", "\(localID).\(parts[1]).garbage",
                           "nobody.\(parts[1]).\(parts[2])", "\(localID).AAAAAAAAAAAAAAAAAAAAAA.\(parts[2])"] {
                #expect(try await client.refresh(madeUp).errorMessage == "INVALID_REFRESH_TOKEN", "\(madeUp)")
            }
            _ = try await server.server.store.accounts.deleteUser(projectID: server.projectID, localID: localID)
            #expect(try await client.refresh(genuine).errorMessage == "USER_NOT_FOUND")
        }
    }

    /// Odd `Cache-Control` values from a JWKS host are read as absent, never trapped on.
    @Test func oddCacheControlValues() {
        for value in ["=", "max-age=", "max-age", "=,=", " , ", "max-age=-5", "max-age=99999999999999999999"] {
            #expect(CacheControl.maxAge(value) == nil, "\(value)")
        }
        #expect(CacheControl.maxAge("public, max-age=\"600\"") == 600)
        #expect(CacheControl.maxAge("no-store") == 0)
    }

    /// A stranger's guesses lock the stranger out, not the owner signing in from elsewhere.
    @Test func lockoutIsPerAddressAndClient() async throws {
        let loopbackProxy = try TrustedProxies("127.0.0.1")
        try await withServer(emulator: false, configure: { $0.trustedProxies = loopbackProxy }) { _, client in
            _ = try await client.signUp(email: "owner@example.com", password: "secret123")
            let guesser = ["X-Forwarded-For": "198.51.100.1"]
            for index in 0..<Int(Budget.passwordTries.fixedLimit!) {
                _ = try await client.post("/v1/accounts:signInWithPassword", [
                    "email": "owner@example.com", "password": .string("wrong-\(index)"),
                ], headers: guesser)
            }
            #expect(try await client.post("/v1/accounts:signInWithPassword", ["email": "owner@example.com", "password": "secret123"],
                                          headers: guesser).errorCode == "TOO_MANY_ATTEMPTS_TRY_LATER")
            #expect(try await client.post("/v1/accounts:signInWithPassword", ["email": "owner@example.com", "password": "secret123"],
                                          headers: ["X-Forwarded-For": "203.0.113.8"]).status == 200)
        }
    }

    // MARK: Secrets at rest

    /// The master key file is made once (mode 0600) and then only read; one that cannot be read stops the
    /// server instead of being replaced, which would lock every sealed secret away.
    @Test func theMasterKeyFileIsNeverReplaced() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flint-key-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try SecretBox.loadMasterKey(environment: [:], dataDirectory: directory, random: SystemRandomSource())
        let again = try SecretBox.loadMasterKey(environment: [:], dataDirectory: directory, random: SystemRandomSource())
        #expect(first.withUnsafeBytes { Data($0) } == again.withUnsafeBytes { Data($0) })
        let file = directory.appendingPathComponent("master.key")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        try FileManager.default.removeItem(at: file)
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
        #expect(throws: SecretBoxError.self) {
            try SecretBox.loadMasterKey(environment: [:], dataDirectory: directory, random: SystemRandomSource())
        }
        #expect(FileManager.default.fileExists(atPath: file.path))
    }

    // MARK: Enumeration

    /// With enumeration protection (new production projects), whether an account has an address changes
    /// nothing in the answers of password sign-in, password reset and sign-in methods: byte for byte.
    @Test func answersAreTheSameForKnownAndUnknownAddresses() async throws {
        try await withServer(emulator: false) { (_: TestServer, client: TestClient) async throws in
            _ = try await client.signUp(email: "known@example.com", password: "secret123")
            func answers(_ email: String) async throws -> [String] {
                let requests: [(String, [String: JSONValue])] = [
                    ("/v1/accounts:signInWithPassword", ["email": .string(email), "password": "wrong-password"]),
                    ("/v1/accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": .string(email)]),
                    ("/v1/accounts:createAuthUri", ["identifier": .string(email), "continueUri": "http://localhost", "sessionId": "s"]),
                ]
                var bodies: [String] = []
                for (path, body) in requests {
                    let reply = try await client.post(path, body)
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = .sortedKeys
                    bodies.append("\(reply.status) " + String(decoding: try encoder.encode(reply.body), as: UTF8.self))
                }
                return bodies
            }
            let known = try await answers("known@example.com")
            let unknown = try await answers("unknown@example.com")
            #expect(known.map { $0.replacingOccurrences(of: "known@", with: "X@") }
                == unknown.map { $0.replacingOccurrences(of: "unknown@", with: "X@") })
        }
    }

    // MARK: SMS defences

    /// A project can refuse number ranges fraudsters rent, and cap the codes a day to one country calling
    /// code; both are part of the v2 config.
    @Test func smsDefencesRefuseDeniedPrefixesAndCapRegions() async throws {
        try await withServer(emulator: false) { server, client in
            _ = try await server.server.updateProjectConfig(server.projectID, ProjectConfig(
                appVerification: .init(required: false),
                smsDefenseConfig: .init(regionDailyCap: 2, deniedPrefixes: ["+88213"])),
                updateMask: "appVerification.required,smsDefenseConfig")
            let shown = try await server.server.updateProjectConfig(server.projectID, ProjectConfig(), updateMask: "")
            #expect(shown.smsDefenseConfig == .init(regionDailyCap: 2, deniedPrefixes: ["+88213"]))

            let denied = try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+882130000001"])
            #expect(denied.errorCode == "OPERATION_NOT_ALLOWED")
            _ = try await client.sendCode("+14155550101")
            _ = try await client.sendCode("+14155550102")
            let capped = try await client.post("/v1/accounts:sendVerificationCode", ["phoneNumber": "+14155550103"])
            #expect(capped.errorCode == "QUOTA_EXCEEDED")
            // Another calling code has its own cap.
            _ = try await client.sendCode("+447700900123")
            server.clock.advance(seconds: 86_400)
            _ = try await client.sendCode("+14155550104")

            let invalid = try await client.admin("/v1/projects/\(server.projectID)/config?updateMask=smsDefenseConfig.deniedPrefixes", [
                "smsDefenseConfig": ["deniedPrefixes": ["88213"]],
            ])
            #expect(invalid.status != 200)
        }
    }

    // MARK: Sessions

    /// Refresh tokens unused longer than the configured idle time stop working; used ones go on.
    @Test func idleRefreshTokensExpire() async throws {
        try await withServer(emulator: false, configure: { $0.refreshTokenIdleSeconds = 2 * 86_400 }) { server, client in
            let used = try await client.signUp(email: "used@example.com", password: "secret123")
            let idle = try await client.signUp(email: "idle@example.com", password: "secret123")
            server.clock.advance(seconds: 86_400)
            #expect(try await client.refresh(used.string("refreshToken")).status == 200)
            server.clock.advance(seconds: 2 * 86_400)
            #expect(try await client.refresh(used.string("refreshToken")).status == 200)
            #expect(try await client.refresh(idle.string("refreshToken")).errorMessage == "TOKEN_EXPIRED")
        }
    }

    /// The janitor deletes refresh tokens no one can use again: revoked ones, and idle ones when configured.
    @Test(arguments: TestDatabase.allCases)
    func deadRefreshTokensArePruned(database: TestDatabase) async throws {
        try await withServer(database: database) { server, client in
            let first = try await client.signUp(email: "ada@example.com", password: "secret123")
            _ = try await client.post("/v1/accounts:signInWithPassword", ["email": "ada@example.com", "password": "secret123"])
            let changed = try await client.post("/v1/accounts:update", [
                "idToken": first["idToken"] ?? .null, "password": "secret456", "returnSecureToken": true,
            ])
            #expect(changed.status == 200)
            let store = server.server.store
            func sessions() async throws -> Int64 {
                try await store.database.query("SELECT COUNT(*) AS n FROM refresh_tokens", []).first?.int("n") ?? -1
            }
            #expect(try await sessions() == 3)
            // Revoked sessions are kept a while after their last use, answered TOKEN_EXPIRED; then they go.
            try await server.server.janitor.sweep()
            #expect(try await sessions() == 3)
            server.clock.advance(seconds: Double(SessionStore.endedRetentionSeconds + 1))
            #expect(try await client.refresh(changed.string("refreshToken")).status == 200)
            try await server.server.janitor.sweep()
            #expect(try await sessions() == 1)

            server.clock.advance(seconds: 10 * 86_400)
            var janitor = server.server.janitor
            janitor.refreshTokenIdleSeconds = 86_400
            try await janitor.sweep()
            #expect(try await sessions() == 0)
        }
    }
}
