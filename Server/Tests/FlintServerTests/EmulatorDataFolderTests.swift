import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// Emulator data folders (`firebase emulators:export`'s auth part): loading one (`flint serve --import`), writing one
/// (`--export-on-exit`, `flint export --emulator-format`), all or nothing; and `--single-project-mode`.
@Suite struct EmulatorDataFolderTests {
    private static let owner = ["Authorization": "Bearer owner"]
    private static let adaHash = "fakeHash:salt=fakeSaltAda:password=correct horse"
    private static let doraHash = "fakeHash:salt=fakeSaltDora:password=tenant pass"

    /// The project's users, written by hand in the shape the official emulator exports: a password (its fake hash),
    /// Google and Apple accounts, a phone number, a phone second factor, custom claims, a disabled user.
    static let projectUsers: [JSONValue] = [
        [
            "localId": "ada", "email": "ada@example.com", "emailVerified": true, "displayName": "Ada",
            "passwordHash": .string(adaHash), "salt": "fakeSaltAda", "passwordUpdatedAt": .number(1_700_000_000_000),
            "customAttributes": #"{"role":"admin"}"#, "createdAt": "1700000000000", "lastLoginAt": "1700000100000",
            "validSince": "1700000000", "disabled": false,
            "providerUserInfo": [
                ["providerId": "password", "rawId": "ada@example.com", "email": "ada@example.com", "federatedId": "ada@example.com"],
                ["providerId": "google.com", "rawId": "google-ada", "federatedId": "google-ada", "email": "ada@gmail.com",
                 "displayName": "Ada G", "photoUrl": "https://example.com/ada.png"],
            ],
            "mfaInfo": [["mfaEnrollmentId": "enroll-ada", "displayName": "work phone", "phoneInfo": "+15555550100",
                         "enrolledAt": "2024-01-02T03:04:05.000Z", "unobfuscatedPhoneInfo": "+15555550100"]],
        ],
        [
            "localId": "bob", "email": "bob@privaterelay.appleid.com", "disabled": true, "createdAt": "1700000200000",
            "providerUserInfo": [["providerId": "apple.com", "rawId": "apple-bob", "email": "bob@privaterelay.appleid.com"]],
        ],
        [
            "localId": "carol", "phoneNumber": "+15555550123", "createdAt": "1700000300000",
            "providerUserInfo": [["providerId": "phone", "rawId": "+15555550123", "phoneNumber": "+15555550123"]],
        ],
    ]

    static let tenantUsers: [JSONValue] = [[
        "localId": "dora", "email": "dora@acme.test", "passwordHash": .string(doraHash), "salt": "fakeSaltDora",
        "tenantId": "acme-1", "createdAt": "1700000400000",
    ]]

    /// Writes the seed folder: metadata (with another emulator's entry), both accounts files and the config.
    static func writeSeed(_ directory: URL, projectUsers: [JSONValue] = projectUsers, tenantUsers: [JSONValue] = tenantUsers) throws {
        let auth = directory.appendingPathComponent("auth_export")
        try FileManager.default.createDirectory(at: auth, withIntermediateDirectories: true)
        try write(["version": "13.29.1", "auth": ["version": "13.29.1", "path": "auth_export"],
                   "firestore": ["version": "1.19.8", "path": "firestore_export",
                                 "metadata_file": "firestore_export/firestore_export.overall_export_metadata"]],
                  to: directory.appendingPathComponent("firebase-export-metadata.json"))
        try write(["kind": "identitytoolkit#DownloadAccountResponse", "users": .array(projectUsers)],
                  to: auth.appendingPathComponent("accounts.json"))
        try write(["kind": "identitytoolkit#DownloadAccountResponse", "users": .array(tenantUsers)],
                  to: auth.appendingPathComponent("accounts-acme-1.json"))
        try write(["signIn": ["allowDuplicateEmails": true], "emailPrivacyConfig": ["enableImprovedEmailPrivacy": false]],
                  to: auth.appendingPathComponent("config.json"))
    }

    static func write(_ value: JSONValue, to url: URL) throws {
        try JSONEncoder().encode(value).write(to: url)
    }

    static func read(_ url: URL) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: url))
    }

    static func scratchFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("flint-data-folder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func lookup(_ client: TestClient, _ localID: String, tenant: String? = nil) async throws -> [String: JSONValue]? {
        let path = tenant.map { "/v1/projects/demo-flint/tenants/\($0)/accounts:lookup" } ?? "/v1/accounts:lookup"
        return try await client.admin(path, ["localId": [.string(localID)]]).firstUser
    }

    // MARK: Loading, loading again, exporting, loading the export elsewhere

    @Test(arguments: TestDatabase.allCases)
    func seedLoadsSignsInRoundTripsAndLoadsIntoAFreshServer(database: TestDatabase) async throws {
        let seed = try Self.scratchFolder()
        let exported = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: seed); try? FileManager.default.removeItem(at: exported) }
        try Self.writeSeed(seed)
        // The export goes into a folder another emulator's data already lives in.
        try Self.writeSeed(exported, projectUsers: [], tenantUsers: [])
        try FileManager.default.removeItem(at: exported.appendingPathComponent("auth_export/accounts-acme-1.json"))
        var eveHash: JSONValue?

        try await withServer(database: database) { server, client in
            try await server.server.importEmulatorData(from: seed)

            // The fake hash signs in, and stays as it was after the sign-in.
            let dora = try await client.post("/v1/accounts:signInWithPassword",
                                             ["email": "dora@acme.test", "password": "tenant pass", "tenantId": "acme-1"])
            #expect(dora["localId"] == "dora", "\(dora.body)")
            let wrong = try await client.post("/v1/accounts:signInWithPassword",
                                              ["email": "dora@acme.test", "password": "guess", "tenantId": "acme-1"])
            #expect(wrong.errorCode == "INVALID_PASSWORD")
            #expect(try await lookup(client, "dora", tenant: "acme-1")?["passwordHash"] == .string(Self.doraHash))
            // Ada's password is right; her phone second factor is asked next.
            let ada = try await client.post("/v1/accounts:signInWithPassword", ["email": "ada@example.com", "password": "correct horse"])
            #expect(ada["mfaPendingCredential"] != nil, "\(ada.body)")
            #expect(ada["mfaInfo"]?.arrayValue?.first?["mfaEnrollmentId"] == "enroll-ada")

            let adaRecord = try #require(try await lookup(client, "ada"))
            #expect(adaRecord["displayName"] == "Ada" && adaRecord["customAttributes"] == #"{"role":"admin"}"#)
            #expect(adaRecord["passwordHash"] == .string(Self.adaHash) && adaRecord["salt"] == "fakeSaltAda")
            #expect(adaRecord["createdAt"] == "1700000000000" && adaRecord["lastLoginAt"] == "1700000100000")
            let google = adaRecord["providerUserInfo"]?.arrayValue?.first { $0["providerId"] == "google.com" }
            #expect(google?["rawId"] == "google-ada" && google?["email"] == "ada@gmail.com")
            #expect(adaRecord["mfaInfo"]?.arrayValue?.first?["phoneInfo"] == "+15555550100")
            let bob = try #require(try await lookup(client, "bob"))
            #expect(bob["disabled"] == true)
            #expect(bob["providerUserInfo"]?.arrayValue?.first?["rawId"] == "apple-bob")
            #expect(try await lookup(client, "carol")?["phoneNumber"] == "+15555550123")
            let config = try await client.send("GET", "/emulator/v1/projects/demo-flint/config")
            #expect(config["signIn"] == ["allowDuplicateEmails": true])

            // Loading again changes nothing: the same data, and Dora's session goes on.
            let before = try await server.server.emulatorData()
            try await server.server.importEmulatorData(from: seed)
            #expect(try await server.server.emulatorData() == before)
            #expect(try await client.refresh(dora.string("refreshToken"))["id_token"] != nil)

            // A password set on Flint: hashed at rest, exported in the form Flint reads back.
            let eve = try await client.signUp(email: "eve@example.com", password: "flint password")
            #expect(eve["localId"] != nil)
            eveHash = try await Self.exportAndCompare(server, to: exported)
        }

        // The export loads into a fresh server (another project key), where every password still signs in.
        try await withServer(database: database) { server, client in
            try await server.server.importEmulatorData(from: exported)
            // Exported again before a sign-in, Eve's hash is the one the first server wrote.
            let again = try await server.server.emulatorData()
            let eveAgain = again.accounts.first?.users.first { $0.email == "eve@example.com" }
            #expect(eveAgain?.passwordHash.map(JSONValue.string) == eveHash)
            let eve = try await client.post("/v1/accounts:signInWithPassword", ["email": "eve@example.com", "password": "flint password"])
            #expect(eve["idToken"] != nil, "\(eve.body)")
            let dora = try await client.post("/v1/accounts:signInWithPassword",
                                             ["email": "dora@acme.test", "password": "tenant pass", "tenantId": "acme-1"])
            #expect(dora["idToken"] != nil, "\(dora.body)")
            #expect(try await lookup(client, "bob")?["disabled"] == true)
        }
    }

    /// Writes the server's folder to `directory` and checks it against the seed: every field the seed sets comes back
    /// as it was, the other emulator's metadata stays, and a password set on Flint is exported as `flintHash:`, never
    /// readable. Returns that hash.
    private static func exportAndCompare(_ server: TestServer, to directory: URL) async throws -> JSONValue? {
        try await server.server.emulatorData().write(to: directory)
        let metadata = try read(directory.appendingPathComponent("firebase-export-metadata.json"))
        #expect(metadata["firestore"]?["path"] == "firestore_export")
        #expect(metadata["auth"]?["path"] == "auth_export")
        let auth = directory.appendingPathComponent("auth_export")
        #expect(try read(auth.appendingPathComponent("config.json")) == [
            "signIn": ["allowDuplicateEmails": true], "emailPrivacyConfig": ["enableImprovedEmailPrivacy": false],
        ])
        let projectFile = try read(auth.appendingPathComponent("accounts.json"))
        #expect(projectFile["kind"] == "identitytoolkit#DownloadAccountResponse")
        let written = projectFile["users"]?.arrayValue ?? []
        // In local-id order, as batchGet lists them: the seed's three and Eve.
        let ids = written.compactMap { $0["localId"]?.stringValue }
        #expect(ids.count == 4 && ids == ids.sorted() && Set(["ada", "bob", "carol"]).isSubset(of: ids))
        try expectSame(projectUsers, in: written)
        try expectSame(tenantUsers, in: read(auth.appendingPathComponent("accounts-acme-1.json"))["users"]?.arrayValue ?? [])
        let eve = try #require(written.first { $0["email"] == "eve@example.com" })
        let hash = try #require(eve["passwordHash"]?.stringValue)
        #expect(hash.hasPrefix("flintHash:algorithm=SCRYPT:") && !hash.contains("flint password"))
        return eve["passwordHash"]
    }

    /// Each seed entry's fields, as the exported entry of its localId has them. Provider entries are matched by
    /// provider and account (the export adds `federatedId`, and the password and phone entries follow from the user).
    private static func expectSame(_ seed: [JSONValue], in exported: [JSONValue]) throws {
        for entry in seed {
            let fields = try #require(entry.objectValue)
            let out = try #require(exported.first { $0["localId"] == fields["localId"] }?.objectValue, "\(fields["localId"]!)")
            for (key, value) in fields {
                switch key {
                case "providerUserInfo":
                    for provider in value.arrayValue ?? [] {
                        let match = out[key]?.arrayValue?.first { $0["providerId"] == provider["providerId"] && $0["rawId"] == provider["rawId"] }
                        for (field, expected) in provider.objectValue ?? [:] {
                            #expect(match?[field] == expected, "\(fields["localId"]!) \(provider["providerId"]!) \(field)")
                        }
                    }
                case "mfaInfo":
                    for (field, expected) in value.arrayValue?.first?.objectValue ?? [:] {
                        #expect(out[key]?.arrayValue?.first?[field] == expected, "mfaInfo \(field)")
                    }
                default:
                    #expect(out[key] == value, "\(fields["localId"]!) \(key)")
                }
            }
        }
    }

    // MARK: What the official emulator's import accepts

    /// Flint's export, checked against the official emulator's import rules by an independent Python checker
    /// (`emulator_import_check.py`): the official emulator needs Node.js and firebase-tools, which this machine cannot
    /// install, so the checker re-states the rules of its `batchCreate` and config PATCH as read in firebase-tools'
    /// `src/emulator/auth/operations.ts` and `apiSpec.ts`; it is not the emulator itself. It must also refuse a
    /// folder the emulator would not take in full.
    @Test func exportPassesTheOfficialImportRules() async throws {
        let seed = try Self.scratchFolder()
        let exported = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: seed); try? FileManager.default.removeItem(at: exported) }
        try Self.writeSeed(seed)
        try await withServer { server, client in
            try await server.server.importEmulatorData(from: seed)
            _ = try await client.signUp(email: "eve@example.com", password: "flint password")
            try await server.server.emulatorData().write(to: exported)
        }
        #expect(try await Self.check(exported).status == 0)

        var bad = Self.projectUsers
        bad.append(["localId": "mallory", "email": "ada@example.com"])
        try Self.writeSeed(seed, projectUsers: bad)
        let refused = try await Self.check(seed)
        #expect(refused.status != 0 && refused.output.contains("mallory"), "\(refused.output)")
    }

    private static func check(_ folder: URL) async throws -> (status: Int32, output: String) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("python/emulator_import_check.py")
        let process = try ChildProcess.launch("python3", [script.path, folder.path], environment: ChildProcess.environment,
                                              errors: .standardOutput)
        let result = await process.finish()
        return (result.status, result.output)
    }

    // MARK: Faulty folders load nothing

    /// A fault anywhere (the JSON, an entry, a clash with an account stored already) names the file and the entry, and
    /// leaves the store as it was, though other files and entries were fine.
    @Test(arguments: TestDatabase.allCases)
    func faultyFoldersNameTheFileAndEntryAndLoadNothing(database: TestDatabase) async throws {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withServer(database: database) { server, client in
            // Holds the address Dora's entry asks for in the project (not in the tenant, where she goes).
            _ = try await client.signUp(email: "zed@example.com", password: "zed password")
            let before = try await server.server.emulatorData()

            func expectFault(_ expected: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
                let fault = await #expect(throws: EmulatorDataFault.self, sourceLocation: sourceLocation) {
                    try await server.server.importEmulatorData(from: folder)
                }
                #expect(fault?.description == expected, sourceLocation: sourceLocation)
                #expect(try await server.server.emulatorData() == before, "half imported", sourceLocation: sourceLocation)
                #expect(try await server.server.projects.project("demo-flint/tenants/acme-1") == nil, sourceLocation: sourceLocation)
            }

            try Self.writeSeed(folder)
            let accounts = folder.appendingPathComponent("auth_export/accounts-acme-1.json")
            try Data(#"{"users": [{"localId": "dora""#.utf8).write(to: accounts)
            try await expectFault("auth_export/accounts-acme-1.json: not valid JSON")

            try Self.writeSeed(folder, tenantUsers: [["email": "nobody@acme.test"]])
            try await expectFault("auth_export/accounts-acme-1.json: users[0]: localId is missing")

            try Self.writeSeed(folder, projectUsers: Self.projectUsers + [["localId": "bob", "email": "bob2@example.com"]])
            try await expectFault(#"auth_export/accounts.json: users[3] (localId "bob"): the same localId as entry 1"#)

            try Self.writeSeed(folder, tenantUsers: [["localId": "dora", "customAttributes": #"{"sub":"x"}"#]])
            try await expectFault(#"auth_export/accounts-acme-1.json: users[0] (localId "dora"): Custom claims provided include a reserved claim."#)

            // Every entry passes its own checks; the last one clashes with Zed, stored already: the transaction
            // that wrote the others is rolled back.
            try Self.writeSeed(folder, projectUsers: Self.projectUsers + [["localId": "zoe", "email": "zed@example.com"]])
            try await expectFault(#"auth_export/accounts.json: users[3] (localId "zoe"): its email belongs to another account already stored"#)
        }
    }

    // MARK: The command line

    /// `flint export --emulator-format` on the database; `flint serve --emulator --import` refusing a faulty folder
    /// before it serves, and loading a good one and writing it back with `--export-on-exit` when SIGTERM stops it.
    @Test func cliExportsImportsAndExportsOnExit() async throws {
        let flint = try FlintCLI()
        defer { flint.removeDataDirectory() }
        try await flint.succeed("users", "create", "--uid", "ada", "--email", "ada@example.com", "--password", "secret123")
        let folder = flint.dataDirectory.appendingPathComponent("seed")
        let export = try await flint.run("export", "--emulator-format", folder.path)
        #expect(export.status == 0 && export.stderr.contains("Exported 1 users"), "\(export.stderr)")
        #expect(try Self.read(folder.appendingPathComponent("firebase-export-metadata.json"))["auth"]?["path"] == "auth_export")
        let ada = try Self.read(folder.appendingPathComponent("auth_export/accounts.json"))["users"]?.arrayValue?.first
        #expect(ada?["localId"] == "ada" && ada?["passwordHash"]?.stringValue?.hasPrefix("flintHash:") == true)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("auth_export/config.json").path))

        let faulty = flint.dataDirectory.appendingPathComponent("faulty")
        try Self.writeSeed(faulty, projectUsers: [["email": "nobody@example.com"]])
        let refused = try await flint.run("serve", "--emulator", "--import", faulty.path, "--port", "0", "--management-port", "0")
        #expect(refused.status != 0 && !refused.stdout.contains("listening"))
        #expect(refused.stderr.contains("auth_export/accounts.json: users[0]: localId is missing"), "\(refused.stderr)")

        let seed = flint.dataDirectory.appendingPathComponent("team-seed")
        let out = flint.dataDirectory.appendingPathComponent("on-exit")
        try Self.writeSeed(seed)
        let (serve, _, flintPID) = try await flint.serve(["--emulator", "--import", seed.path, "--export-on-exit", out.path,
                                                           "--port", "0", "--management-port", "0"])
        kill(flintPID, SIGTERM)
        let stopped = await serve.finish()
        #expect(stopped.status == 0, "\(stopped.errors)")
        let users = try Self.read(out.appendingPathComponent("auth_export/accounts.json"))["users"]?.arrayValue ?? []
        #expect(Set(users.compactMap { $0["localId"]?.stringValue }) == ["ada", "bob", "carol"])
        #expect(users.first { $0["localId"] == "ada" }?["passwordHash"] == .string(Self.adaHash))
        #expect(try Self.read(out.appendingPathComponent("auth_export/accounts-acme-1.json"))["users"]?.arrayValue?.count == 1)
    }

    // MARK: singleProjectMode

    @Test func singleProjectModeErrorRefusesOtherProjects() async throws {
        try await withServer(configure: { $0.singleProjectMode = .error }) { _, client in
            let other = try await client.send("GET", "/emulator/v1/projects/someproject/config")
            #expect(other.status == 400)
            #expect(other.errorMessage == "Multiple projectIds are not recommended in single project mode. Requested project ID "
                + "someproject, but the emulator is configured for demo-flint. To opt-out of single project mode add/set the "
                + #"'"singleProjectMode"' false' property in the firebase.json emulators config."#)
            let admin = try await client.admin("/v1/projects/someproject/accounts:lookup", ["localId": ["x"]])
            #expect(admin.status == 400 && admin.errorMessage?.contains("single project mode") == true)
            #expect(try await client.send("GET", "/emulator/v1/projects/demo-flint/config").status == 200)
            #expect(try await client.signUp()["idToken"] != nil)
        }
    }

    @Test func singleProjectModeOffAndWarningServeOtherProjects() async throws {
        try await withServer(configure: { $0.singleProjectMode = .off }) { (server: TestServer, client: TestClient) async throws in
            #expect(try await client.send("GET", "/emulator/v1/projects/someproject/config").status == 200)
            #expect(!server.log.all.contains { $0.message.contains("single project mode") })
        }
        try await withServer(configure: { $0.singleProjectMode = .warning }) { (server: TestServer, client: TestClient) async throws in
            #expect(try await client.send("GET", "/emulator/v1/projects/someproject/config").status == 200)
            #expect(try await client.send("GET", "/emulator/v1/projects/someproject/config").status == 200)
            #expect(server.log.all.filter { $0.level == .warning && $0.message.contains("someproject") }.count == 1)
        }
    }
}
