import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Production-mode passkeys move with their accounts: `flint users export` writes their keys and counters (an admin's
/// listing gives them), `flint users import` (`accounts:batchCreate`) takes them, and the same authenticator signs in
/// on the new server. A credential ID another account holds fails that user alone; non-admin lookups still show only
/// Firebase's `{credentialId, name}`.
@Suite struct PasskeyMigrationTests {
    static let origin = "https://app.example.com"

    /// A production server on `database`, its clock the wall clock's (the CLI signs its key file's JWTs by it), whose
    /// project's relying party is `example.com`.
    private static func withRelyingParty(database: TestDatabase, _ body: (TestServer, TestClient) async throws -> Void)
        async throws {
        try await withServer(emulator: false, database: database, clock: .running()) { server, client in
            _ = try await server.server.configurePasskeys(
                server.projectID, PasskeyConfig(rpId: PasskeyProductionTests.relyingParty, expectedOrigins: [origin]))
            try await body(server, client)
        }
    }

    /// Signs up `email` and enrols a passkey of `authenticator` on the account; returns its uid.
    private static func enrolledAccount(_ client: TestClient, _ email: String, _ authenticator: SoftwareAuthenticator)
        async throws -> String {
        let signedUp = try await client.signUp(email: email, password: "password123")
        let enrolled = try await PasskeyProductionTests.enroll(client, try #require(signedUp.string("idToken")), authenticator)
        #expect(enrolled.status == 200, "\(enrolled.body)")
        return try #require(signedUp.string("localId"))
    }

    /// The options `flint users …` takes to act on `server` with a new service-account key of its project.
    private static func remoteOptions(_ server: TestServer, _ cli: FlintCLI) async throws -> [String] {
        let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
        let keyPath = cli.dataDirectory.appendingPathComponent("key-\(UUID().uuidString).json")
        try JSONEncoder().encode(keyFile).write(to: keyPath)
        return ["--server", server.baseURL.absoluteString, "--key-file", keyPath.path]
    }

    @Test(arguments: TestDatabase.allCases)
    func passkeysSurviveUsersExportAndImport(database: TestDatabase) async throws {
        let cli = try FlintCLI()
        defer { cli.removeDataDirectory() }
        let authenticator = SoftwareAuthenticator(origin: Self.origin)
        let file = cli.dataDirectory.appendingPathComponent("users.json")
        var uid = ""
        var hashFlags: [String] = []
        try await Self.withRelyingParty(database: database) { source, client in
            uid = try await Self.enrolledAccount(client, "owner@example.com", authenticator)
            // Signed in once, so the counter the export carries is not the enrolment's.
            #expect(try await PasskeyProductionTests.signIn(client, authenticator).status == 200)
            let export = try await cli.run(arguments: ["users", "export", file.path] + Self.remoteOptions(source, cli))
            #expect(export.status == 0 && export.stderr.contains("Exported 1 users"), "\(export.stderr)")
            hashFlags = try #require(export.stderr.split(separator: "\n").first { $0.contains("--hash-algo=") })
                .split(separator: " ").map(String.init)
        }
        let written = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: file))
        let passkey = try #require(written["users"]?.arrayValue?.first?["passkeyInfo"]?.arrayValue?.first)
        let credential = authenticator.credentials[0]
        #expect(passkey["credentialId"]?.stringValue == Base64URL.encode(credential.id))
        #expect(passkey["name"] == "Laptop" && passkey["algorithm"] == .number(-7) && passkey["signCount"] == "1", "\(passkey)")
        #expect(passkey["publicKey"]?.stringValue.flatMap { Base64URL.decode($0) }?.isEmpty == false)
        #expect(passkey["createdAt"]?.stringValue.flatMap { Int64($0) } != nil && passkey["lastUsedAt"] != nil)

        try await Self.withRelyingParty(database: database) { target, client in
            let imported = try await cli.run(arguments: ["users", "import", file.path] + hashFlags + Self.remoteOptions(target, cli))
            #expect(imported.status == 0 && imported.stderr.contains("Imported 1/1 users"), "\(imported.stderr)")
            // The same authenticator signs in there, its counter moving on from the exported one.
            let signedIn = try await PasskeyProductionTests.signIn(client, authenticator)
            #expect(signedIn.status == 200 && signedIn.string("localId") == uid, "\(signedIn.body)")
            #expect(try await PasskeyProductionTests.signIn(client, authenticator).status == 200)
            let stored = try await target.server.store.accounts.user(projectID: target.projectID, localID: uid)?.passkeys.first
            #expect(stored?.signCount == 3 && stored?.publicKey == passkey["publicKey"]?.stringValue)
            // The account's own lookup: Firebase's shape, nothing more.
            let lookup = try await client.lookup(idToken: signedIn.string("idToken"))
            #expect(lookup.firstUser?["passkeyInfo"] == [[
                "credentialId": .string(Base64URL.encode(credential.id)), "name": "Laptop",
            ]], "\(lookup.body)")
            // The password came along too.
            #expect(try await client.post("/v1/accounts:signInWithPassword", [
                "email": "owner@example.com", "password": "password123",
            ]).status == 200)
        }
    }

    /// Each faulty or clashing passkey fails its own entry of a `batchCreate`, in words; the rest are imported.
    @Test(arguments: TestDatabase.allCases)
    func aClashingOrFaultyPasskeyFailsItsUserOnly(database: TestDatabase) async throws {
        let authenticator = SoftwareAuthenticator(origin: Self.origin)
        var exported: UserRecord?
        try await Self.withRelyingParty(database: database) { source, client in
            let uid = try await Self.enrolledAccount(client, "owner@example.com", authenticator)
            let admin = try await source.server.adminCaller(projectID: source.projectID)
            exported = try await source.server.accounts.lookup(LookupRequest(localId: [uid]), caller: admin).users?.first
        }
        // Without its password, which an import in production mode takes only with the hash parameters.
        var record = try #require(exported)
        record.passwordHash = nil
        record.salt = nil
        let info = try #require(record.passkeyInfo?.first)
        #expect(info.publicKey != nil && info.algorithm == -7 && info.signCount == "0")

        try await Self.withRelyingParty(database: database) { target, client in
            let admin = try await target.server.adminCaller(projectID: target.projectID)
            func entry(_ uid: String, _ change: (inout PasskeyInfo) -> Void = { _ in }) -> UserRecord {
                var user = UserRecord(localId: uid)
                var passkey = info
                change(&passkey)
                user.passkeyInfo = [passkey]
                return user
            }
            var users = [
                record,
                entry("clash"),
                entry("bare") { $0 = PasskeyInfo(credentialId: "ZW11bGF0b3I") },
                entry("no-id") { $0.credentialId = "" },
                entry("bad-key") { $0.publicKey = "not base64!"; $0.credentialId = "a" },
                entry("not-a-key") { $0.publicKey = Base64URL.encode(Data([1, 2, 3])); $0.credentialId = "b" },
                entry("wrong-alg") { $0.algorithm = -257; $0.credentialId = "c" },
                entry("odd-alg") { $0.algorithm = -65535; $0.credentialId = "d" },
                entry("keyless-alg") { $0.publicKey = nil; $0.credentialId = "e" },
                entry("counter") { $0.signCount = "-1"; $0.credentialId = "fw" },
                entry("spelled") { $0.credentialId = Data([0xFB, 0xFF, 0xFE, 0x01]).base64EncodedString() },
                entry("unspellable") { $0.credentialId = "@@" },
                entry("twice") { $0.credentialId = "gg" },
            ]
            users[users.count - 1].passkeyInfo? += [PasskeyInfo(credentialId: "gg")]
            let response = try await target.server.accounts.batchCreate(BatchCreateRequest(users: users), caller: admin)
            let failures = Dictionary(uniqueKeysWithValues: (response.error ?? []).map { (users[$0.index].localId, $0.message) })
            #expect(failures == [
                "clash": "passkey credentialId exists in other account in database",
                "no-id": "passkey credentialId is missing",
                "bad-key": "passkey publicKey is invalid",
                "not-a-key": "passkey publicKey is invalid",
                "wrong-alg": "passkey publicKey is invalid",
                "odd-alg": "passkey algorithm is not supported",
                "keyless-alg": "passkey algorithm is given without a publicKey",
                "counter": "passkey signCount is invalid",
                "unspellable": "passkey credentialId is invalid",
                "twice": "passkey credentialId is duplicated",
            ])
            // A verified passkey's ID in base64's spelling is kept in base64url's, the one sign-ins look up.
            #expect(try await target.server.store.accounts.user(
                projectID: target.projectID, passkeyCredentialID: Base64URL.encode(Data([0xFB, 0xFF, 0xFE, 0x01])))?.localID == "spelled")
            let accounts = target.server.store.accounts
            #expect(try await accounts.user(projectID: target.projectID, localID: "clash") == nil)
            #expect(try await accounts.user(projectID: target.projectID, passkeyCredentialID: info.credentialId ?? "")?.localID
                    == record.localId)
            // Firebase's bare form: a passkey without a key, named as the emulator names one.
            let bare = try await accounts.user(projectID: target.projectID, localID: "bare")?.passkeys
            #expect(bare?.count == 1 && bare?.first?.name == "Unnamed Passkey" && bare?.first?.publicKey == nil)
            // The imported owner signs in with the passkey.
            let signedIn = try await PasskeyProductionTests.signIn(client, authenticator)
            #expect(signedIn.status == 200 && signedIn.string("localId") == record.localId, "\(signedIn.body)")
        }
    }
}
