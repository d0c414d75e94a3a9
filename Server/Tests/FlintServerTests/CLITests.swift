import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Testing

/// The `flint` admin commands, run as the executable SwiftPM built (`swift build --build-tests` builds it),
/// each test against its own SQLite data directory.
@Suite struct CLITests {
    @Test func userLifecycle() async throws {
        let flint = try FlintCLI()
        defer { flint.removeDataDirectory() }
        let created = try await flint.json(
            "users", "create", "--uid", "ada", "--email", "Ada@Example.com", "--password", "secret123",
            "--display-name", "Ada Lovelace", "--phone", "+16505550100", "--json")
        #expect(created["localId"] == "ada")
        #expect(created["email"] == "ada@example.com")
        #expect(created["phoneNumber"] == "+16505550100")
        try await flint.succeed("users", "create", "--email", "bob@example.com", "--disabled")

        let table = try await flint.succeed("users", "list")
        #expect(table.hasPrefix("UID"))
        #expect(table.contains("ada@example.com") && table.contains("bob@example.com"))
        #expect(try await flint.json("users", "list", "--json").arrayValue?.count == 2)
        #expect(try await flint.json("users", "list", "--limit", "1", "--json").arrayValue?.count == 1)

        let shown = try await flint.succeed("users", "get", "ada@example.com")
        #expect(shown.contains("uid:") && shown.contains("ada") && shown.contains("Ada Lovelace"))
        #expect(try await flint.json("users", "get", "+16505550100", "--json")["localId"] == "ada")

        try await flint.succeed("users", "set-claims", "ada", #"{"admin":true}"#)
        #expect(try await flint.json("users", "get", "ada", "--json")["customAttributes"] == #"{"admin":true}"#)
        let reserved = try await flint.run("users", "set-claims", "ada", #"{"sub":"someone"}"#)
        #expect(reserved.status != 0)
        #expect(reserved.stderr.contains("FORBIDDEN_CLAIM"))

        try await flint.succeed("users", "disable", "ada")
        #expect(try await flint.json("users", "get", "ada", "--json")["disabled"] == true)
        try await flint.succeed("users", "enable", "ada")
        #expect(try await flint.json("users", "get", "ada", "--json")["disabled"] == false)

        let beforeRevoking = Int64(Date().timeIntervalSince1970)
        try await flint.succeed("users", "revoke", "ada")
        let validSince = try await flint.json("users", "get", "ada", "--json")["validSince"]?.stringValue
        #expect(validSince.flatMap { Int64($0) }.map { $0 >= beforeRevoking } == true)

        try await flint.succeed("users", "delete", "ada")
        let missing = try await flint.run("users", "get", "ada")
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("USER_NOT_FOUND"))
        #expect(try await flint.run("users", "disable", "ada").stderr.contains("USER_NOT_FOUND"))
    }

    @Test func keysAreRotatedListedAndRetired() async throws {
        let flint = try FlintCLI()
        defer { flint.removeDataDirectory() }
        func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }
        let first = try #require(lines(try await flint.succeed("keys", "list")).first)
        #expect(first.hasSuffix("current"))
        let oldKid = try #require(first.split(separator: " ").first.map(String.init))
        // The line that names the new key (whatever else a loaded machine's run may print around it).
        let rotated = try await flint.succeed("keys", "rotate")
        let newKid = try #require(lines(rotated).first { $0.hasPrefix("New signing key: ") }, "\(rotated)")
            .dropFirst("New signing key: ".count).trimmingCharacters(in: .whitespaces)

        let listed = lines(try await flint.succeed("keys", "list"))
        #expect(listed.count == 2)
        #expect(listed.first?.hasPrefix(oldKid) == true && listed.first?.contains("retirable from") == true, "\(listed)")
        #expect(listed.last?.hasPrefix(newKid) == true && listed.last?.hasSuffix("current") == true, "\(listed)")

        let current = try await flint.run("keys", "retire", newKid)
        #expect(current.status != 0 && current.stderr.contains("is the current signing key"), "\(current.stderr)")
        let early = try await flint.run("keys", "retire", oldKid)
        #expect(early.status != 0 && early.stderr.contains("may still be valid") && early.stderr.contains("--force"), "\(early.stderr)")
        #expect(try await flint.succeed("keys", "list") == listed.joined(separator: "\n") + "\n")

        #expect(try await flint.succeed("keys", "retire", "--force", oldKid).contains(oldKid))
        #expect(lines(try await flint.succeed("keys", "list")).map { $0.split(separator: " ").first.map(String.init) } == [newKid])
    }

    @Test func testNumbersAreAddedListedAndRemoved() async throws {
        let flint = try FlintCLI()
        defer { flint.removeDataDirectory() }
        let numbers = (0..<10).map { "+1650555010\($0)" }
        for number in numbers {
            try await flint.succeed("test-numbers", "add", number, "123456")
        }
        let listed = try await flint.json("test-numbers", "list", "--json")
        #expect(listed.objectValue?.count == 10)
        #expect(listed["+16505550103"] == "123456")

        let eleventh = try await flint.run("test-numbers", "add", "+16505550110", "123456")
        #expect(eleventh.status != 0)
        #expect(eleventh.stderr.contains("At most 10 test phone numbers"))

        try await flint.succeed("test-numbers", "remove", "+16505550100")
        let table = try await flint.succeed("test-numbers", "list")
        #expect(!table.contains("+16505550100") && table.contains("+16505550101"))
        #expect(try await flint.run("test-numbers", "remove", "+16505550100").stderr.contains("not a test phone number"))

        try await flint.succeed("users", "create", "--phone", "+16505550120")
        let held = try await flint.run("test-numbers", "add", "+16505550120", "654321")
        #expect(held.status != 0)
        #expect(held.stderr.contains("belongs to a real user"))
        let badCode = try await flint.run("test-numbers", "add", "+16505550121", "12")
        #expect(badCode.stderr.contains("must be 6 digits"))
    }

    @Test func projectsAreCreatedListedAndShown() async throws {
        let flint = try FlintCLI()
        defer { flint.removeDataDirectory() }
        let created = try await flint.succeed("projects", "create", "my-app")
        #expect(created.contains("Created project my-app") && created.contains("API key: AIza"))
        #expect(try await flint.run("projects", "create", "my-app").stderr.contains("already exists"))
        #expect(try await flint.run("projects", "create", "My_App").status != 0)

        #expect(try await flint.succeed("projects", "list").split(separator: "\n") == ["demo-flint", "my-app"])
        #expect(try await flint.json("projects", "list", "--json") == ["demo-flint", "my-app"])
        let config = try await flint.json("projects", "show", "my-app")
        #expect(config["signIn"]?["email"]?["enabled"] != nil)
        #expect(config["authorizedDomains"]?.arrayValue?.isEmpty == false)
        #expect(try await flint.run("projects", "show", "missing").stderr.contains("PROJECT_NOT_FOUND"))

        try await flint.succeed("users", "create", "--uid", "in-my-app", "--project", "my-app")
        #expect(try await flint.json("users", "list", "--json", "--project", "my-app").arrayValue?.count == 1)
        #expect(try await flint.json("users", "list", "--json").arrayValue?.count == 0)
    }

    @Test func projectConfigChangesTheSettingsItNames() async throws {
        let flint = try FlintCLI()
        defer { flint.removeDataDirectory() }
        let updated = try await flint.json(
            "projects", "config", "demo-flint", "--set", "signIn.anonymous.enabled=false", "--set", "mfa.state=ENABLED",
            "--set", #"authorizedDomains=["localhost","example.com"]"#)
        #expect(updated["signIn"]?["anonymous"]?["enabled"] == false)
        #expect(updated["mfa"]?["state"] == "ENABLED")
        #expect(updated["authorizedDomains"] == ["localhost", "example.com"])
        #expect(try await flint.json("projects", "show", "demo-flint")["mfa"]?["state"] == "ENABLED")

        #expect(try await flint.run("projects", "config", "demo-flint", "--set", "signIn.nothing=1").stderr.contains("not a setting"))
        #expect(try await flint.run("projects", "config", "demo-flint", "--set", "mfa.state=on").stderr.contains("INVALID_ARGUMENT"))
        #expect(try await flint.run("projects", "config", "demo-flint", "--set", "appVerification.proofOfWorkBits=many")
            .stderr.contains(#"appVerification.proofOfWorkBits cannot be "many""#))
        #expect(try await flint.run("projects", "config", "demo-flint").status != 0)
    }

    @Test func serviceAccountKeysAreCreatedListedAndRevoked() async throws {
        let flint = try FlintCLI()
        defer { flint.removeDataDirectory() }
        let file = flint.dataDirectory.appendingPathComponent("key.json")
        try await flint.succeed("service-accounts", "create", file.path)
        let key = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: file))
        #expect(key["type"] == "service_account")
        let keyID = try #require(key["private_key_id"]?.stringValue)
        #expect(key["private_key"]?.stringValue?.hasPrefix("-----BEGIN PRIVATE KEY-----") == true)
        #expect(try await flint.run("service-accounts", "create", file.path).status != 0)  // never overwrites
        #expect(try await flint.succeed("service-accounts", "list").contains(keyID))
        try await flint.succeed("service-accounts", "revoke", keyID)
        #expect(try await flint.run("service-accounts", "revoke", keyID).status != 0)
        // The private key is in the file only, never in the database.
        let stored = try String(contentsOf: flint.dataDirectory.appendingPathComponent("flint.sqlite"), encoding: .isoLatin1)
        let body = try #require(key["private_key"]?.stringValue?.split(separator: "\n").dropFirst().first)
        #expect(!stored.contains(String(body)))
    }

    /// `users export` from one data dir, `users import` (with the printed hash flags) into a fresh one: every
    /// exported field arrives, and the passwords keep working there.
    @Test func exportThenImportIntoAFreshDataDirRoundTrips() async throws {
        let source = try FlintCLI()
        let target = try FlintCLI()
        defer {
            source.removeDataDirectory()
            target.removeDataDirectory()
        }
        try await source.succeed(
            "users", "create", "--uid", "ada", "--email", "ada@example.com", "--password", "secret123",
            "--display-name", "Ada", "--photo-url", "https://example.com/ada.png", "--email-verified")
        try await source.succeed("users", "set-claims", "ada", #"{"role":"admin"}"#)
        try await source.succeed("users", "create", "--uid", "bob", "--phone", "+16505550100", "--disabled")
        // A phone second factor, set the way the Admin SDK's updateUser sets one; and a linked Apple account.
        try await Self.update("ada", in: source) { change in
            change.mfa = MFAEnrollments(enrollments: [
                MFAEnrollment(mfaEnrollmentId: "", displayName: "Work phone", phoneInfo: "+16505550111",
                              enrolledAt: "2026-01-02T03:04:05.678Z"),
            ])
            change.linkProviderUserInfo = ProviderUserInfo(providerId: "apple.com", rawId: "001234.apple", email: "ada@example.com")
        }
        let file = source.dataDirectory.appendingPathComponent("users.json")
        let flags = try await Self.export(from: source, to: file)
        #expect(flags.count == 5)

        let imported = try await target.run(arguments: ["users", "import", file.path] + flags)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("Imported 2/2 users"))
        for uid in ["ada", "bob"] {
            var before = try await source.json("users", "get", uid, "--json")
            var after = try await target.json("users", "get", uid, "--json")
            // Only the hash differs: the import keeps the original until the first sign-in re-hashes it.
            for key in ["lastRefreshAt", "passwordUpdatedAt", "validSince"] {
                before = Self.removing(key, from: before)
                after = Self.removing(key, from: after)
            }
            #expect(before == after, "\(uid)")
        }

        let ada = try await target.json("users", "get", "ada", "--json")
        #expect(ada["mfaInfo"]?.arrayValue?.first?["displayName"] == "Work phone")
        #expect(ada["mfaInfo"]?.arrayValue?.first?["enrolledAt"] == "2026-01-02T03:04:05.678Z")
        #expect(ada["providerUserInfo"]?.arrayValue?.contains { $0["providerId"] == "apple.com" } == true)

        // The password works in the fresh data dir (its own master key, its own scrypt key).
        try await Self.withDataDirectory(of: target) { server, caller in
            let signedIn = try await server.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: "ada@example.com", password: "secret123"), caller: caller)
            #expect(signedIn.localId == "ada")
            await #expect(throws: FlintError.self) {
                try await server.accounts.signInWithPassword(
                    SignInWithPasswordRequest(email: "ada@example.com", password: "wrong one"), caller: caller)
            }
        }
    }

    /// `--server` where nothing listens fails at once with the address (the client does not retry a refused connection
    /// until its 60 s deadline, which the run's own 60 s limit would report as a hang).
    @Test func anUnreachableServerFailsAtOnce() async throws {
        let flint = try FlintCLI()
        defer { flint.removeDataDirectory() }
        let listed = try await flint.run("users", "list", "--server", "http://127.0.0.1:1")
        #expect(listed.status != 0 && listed.stderr.contains("Cannot reach http://127.0.0.1:1"), "\(listed.stderr)")
    }

    /// Applies an admin `accounts:update` of `uid` to the CLI's data dir.
    private static func update(_ uid: String, in cli: FlintCLI, _ change: (inout UpdateAccountRequest) -> Void) async throws {
        var request = UpdateAccountRequest(returnSecureToken: false)
        request.localId = uid
        change(&request)
        try await withDataDirectory(of: cli) { server, caller in _ = try await server.accounts.update(request, caller: caller) }
    }

    /// `flint users export file`, returning the hash flags it printed for the import.
    private static func export(from cli: FlintCLI, to file: URL) async throws -> [String] {
        let export = try await cli.run("users", "export", file.path)
        return try #require(export.stderr.split(separator: "\n").first { $0.contains("--hash-algo=") })
            .split(separator: " ").map(String.init)
    }

    /// Opens the CLI's data dir as a server would and runs `body` with an admin caller of its project.
    private static func withDataDirectory(of cli: FlintCLI, _ body: (AuthServer, Caller) async throws -> Void) async throws {
        let server = try await AuthServer.open(configuration: ServerConfiguration(dataDirectory: cli.dataDirectory))
        do {
            try await body(server, try await server.adminCaller(projectID: server.configuration.projectID))
        } catch {
            try? await server.close()
            throw error
        }
        try await server.close()
    }

    private static func removing(_ key: String, from value: JSONValue) -> JSONValue {
        guard case .object(var object) = value else { return value }
        object[key] = nil
        return .object(object)
    }

    /// `firebase auth:export --format=csv` rows: 27 columns, no header, four per Google/Facebook/Twitter/GitHub
    /// account; quoted fields keep their commas. Export then import round-trips what CSV can hold.
    @Test func csvFilesRoundTripAndFirebaseRowsImport() async throws {
        let source = try FlintCLI()
        let target = try FlintCLI()
        defer {
            source.removeDataDirectory()
            target.removeDataDirectory()
        }
        try await source.succeed("users", "create", "--uid", "ada", "--email", "ada@example.com", "--password", "secret123",
                                 "--display-name", "Lovelace, \"Ada\"", "--email-verified")
        try await Self.update("ada", in: source) { change in
            change.linkProviderUserInfo = ProviderUserInfo(providerId: "facebook.com", rawId: "fb-77", email: "ada@example.com")
        }
        // A Windows line break inside a field, which Swift reads as one Character.
        try await source.succeed("users", "create", "--uid", "crlf", "--display-name", "First line\r\nsecond line")
        let file = source.dataDirectory.appendingPathComponent("users.csv")
        let flags = try await Self.export(from: source, to: file)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasPrefix("ada,ada@example.com,true,") && text.contains(#","Lovelace, ""Ada""","#), "\(text)")
        #expect(text.contains(",fb-77,ada@example.com,"))

        // A row as firebase-tools writes it (trailing comma), for a user with a phone number and a GitHub account.
        let firebaseRow = "gh-user,,false,,,Grace,,,,,,,,,,,,,,gh-9,grace@example.com,Grace H,,false,1700000000000,,+16505550142,\n"
        try (text + firebaseRow).write(to: file, atomically: true, encoding: .utf8)
        let imported = try await target.run(arguments: ["users", "import", file.path] + flags)
        #expect(imported.status == 0 && imported.stderr.contains("Imported 3/3 users"), "\(imported.stderr)")
        #expect(try await target.json("users", "get", "crlf", "--json")["displayName"] == "First line\r\nsecond line")
        let ada = try await target.json("users", "get", "ada", "--json")
        #expect(ada["displayName"] == #"Lovelace, "Ada""# && ada["emailVerified"] == true)
        #expect(ada["providerUserInfo"]?.arrayValue?.contains { $0["providerId"] == "facebook.com" && $0["rawId"] == "fb-77" } == true)
        let grace = try await target.json("users", "get", "gh-user", "--json")
        #expect(grace["phoneNumber"] == "+16505550142" && grace["createdAt"] == "1700000000000")
        #expect(grace["providerUserInfo"]?.arrayValue?.contains { $0["providerId"] == "github.com" && $0["rawId"] == "gh-9" } == true)
        try await Self.withDataDirectory(of: target) { server, caller in
            let signedIn = try await server.accounts.signInWithPassword(
                SignInWithPasswordRequest(email: "ada@example.com", password: "secret123"), caller: caller)
            #expect(signedIn.localId == "ada")
        }
        // A row that is not a user is refused before anything is imported.
        try "just,three,fields\n".write(to: file, atomically: true, encoding: .utf8)
        let bad = try await target.run("users", "import", file.path)
        #expect(bad.status != 0 && bad.stderr.contains("1 rows are not users"), "\(bad.stderr)")
    }

    /// A local import of more users than one call takes, with bad entries in both calls: each is reported by its uid (an
    /// entry that is no user at all by its position) and the command fails, and every other user is imported. The file
    /// is read a batch at a time: its other members are skipped, and a file cut short is refused before any import.
    @Test func localImportReportsBadEntriesAndKeepsTheRest() async throws {
        let flint = try FlintCLI()
        defer { flint.removeDataDirectory() }
        var users: [JSONValue] = (0..<1300).map {
            // Quotes, brackets and escapes inside strings must not end an entry.
            ["localId": .string("u\($0)"), "email": .string("u\($0)@example.com"), "displayName": .string("[\"}{\\\n\($0)")]
        }
        let bad: [Int: (JSONValue, String)] = [
            5: (["localId": "twin", "email": "u0@example.com"], "twin: email exists in other account in database"),
            600: (["localId": .number(600)], "users[600]: localId is not a string"),
            1100: (["localId": "u3"], "u3: localId belongs to an existing account - can not overwrite."),
            1200: (["localId": "odd", "email": "not an email"], "odd: email is invalid"),
        ]
        for (index, entry) in bad { users[index] = entry.0 }
        let file = flint.dataDirectory.appendingPathComponent("users.json")
        let text = String(decoding: try JSONEncoder().encode(JSONValue.array(users)), as: UTF8.self)
        try #"{"meta": {"note": "a ] and a } in a string", "list": [[1], {"users": []}]},"#
            .appending("\n \"users\" : \(text) , \"after\": [true, null] }\n").write(to: file, atomically: true, encoding: .utf8)
        let imported = try await flint.run("users", "import", file.path)
        #expect(imported.status == 1)
        for (_, line) in bad.values { #expect(imported.stderr.contains(line), "\(imported.stderr)") }
        #expect(imported.stderr.contains("4 of 1300 users were not imported."), "\(imported.stderr)")
        try await Self.withDataDirectory(of: flint) { server, caller in
            let count = try await server.store.accounts.userCount(projectID: caller.projectID)
            let last = try await server.store.accounts.user(projectID: caller.projectID, localID: "u1299")
            #expect(count == 1296 && last?.displayName == "[\"}{\\\n1299")
        }

        let cut = flint.dataDirectory.appendingPathComponent("cut.json")
        try String(decoding: try JSONEncoder().encode(JSONValue.object(["users": .array(users.map { _ in ["localId": "late"] })])),
                   as: UTF8.self).dropLast(2).write(to: cut, atomically: true, encoding: .utf8)
        let refused = try await flint.run("users", "import", cut.path)
        #expect(refused.status != 0 && refused.stderr.contains("cut.json is not a user file: expected"), "\(refused.stderr)")
        try await Self.withDataDirectory(of: flint) { server, caller in
            let late = try await server.store.accounts.user(projectID: caller.projectID, localID: "late")
            #expect(late == nil)
        }
    }

    /// With --server the same commands act on a running server through the Admin REST API: in production
    /// with a service-account key file (and not without one), in emulator mode as the owner.
    @Test func commandsActOnARunningServerWithAKeyFile() async throws {
        let flint = try FlintCLI()
        defer { flint.removeDataDirectory() }
        try await withServer(emulator: false) { server, client in
            let keyFile = try await server.server.serviceAccounts.create(projectID: server.projectID)
            let keyPath = flint.dataDirectory.appendingPathComponent("key.json")
            try JSONEncoder().encode(keyFile).write(to: keyPath)
            let keyOptions = ["--server", server.baseURL.absoluteString, "--key-file", keyPath.path]
            // The CLI signs with the wall clock; the server's test clock stands still unless moved, so each
            // call first brings it to now (a loaded run can take more than the minute of skew allowed).
            var remote: [String] {
                server.clock.advance(seconds: max(0, Date().timeIntervalSince(server.clock.now())))
                return keyOptions
            }

            let created = try await flint.json(arguments: ["users", "create", "--email", "remote@example.com", "--password",
                                                           "secret-pass", "--json"] + remote)
            let uid = try #require(created["localId"]?.stringValue)
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, localID: uid)?.email == "remote@example.com")
            #expect(try await client.post("/v1/accounts:signInWithPassword", [
                "email": "remote@example.com", "password": "secret-pass",
            ]).status == 200)
            try await flint.succeed(arguments: ["users", "disable", uid] + remote)
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, localID: uid)?.disabled == true)
            let listed = try await flint.json(arguments: ["users", "list", "--json"] + remote)
            #expect(listed.arrayValue?.map { $0["localId"] } == [.string(uid)])
            try await flint.succeed(arguments: ["test-numbers", "add", "+16505550177", "654321"] + remote)
            #expect(try await server.server.projectConfig(server.projectID)?.signIn?.phoneNumber?.testPhoneNumbers
                    == ["+16505550177": "654321"])
            let file = flint.dataDirectory.appendingPathComponent("remote-users.json")
            let export = try await flint.run(arguments: ["users", "export", file.path] + remote)
            #expect(export.status == 0 && export.stderr.contains("Exported 1 users"), "\(export.stderr)")
            let signerKey = try #require(try await server.server.projects.project(server.projectID)).signerKey
            #expect(export.stderr.contains("--hash-algo=SCRYPT --hash-key=\(signerKey.base64EncodedString())"))
            try await flint.succeed(arguments: ["users", "delete", uid] + remote)
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, localID: uid) == nil)

            // A server error comes back as its message; no key (the owner credential) is refused in production.
            let missing = try await flint.run(arguments: ["users", "get", "nobody"] + remote)
            #expect(missing.status != 0 && missing.stderr.contains("USER_NOT_FOUND"))
            let ownerless = try await flint.run("users", "list", "--server", server.baseURL.absoluteString)
            #expect(ownerless.status != 0 && ownerless.stderr.contains("invalid authentication credentials"), "\(ownerless.stderr)")
            // An export is written into a hidden file beside the target, which takes the target's name at the end: a
            // refused one leaves the last export as it was, and nothing beside it.
            let lastExport = try Data(contentsOf: file)
            let refused = try await flint.run("users", "export", file.path, "--server", server.baseURL.absoluteString)
            let afterRefusal = try Data(contentsOf: file)
            #expect(refused.status != 0 && afterRefusal == lastExport)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: flint.dataDirectory.path).filter { $0.hasSuffix(".partial") }
            #expect(leftovers.isEmpty)
            try await server.server.store.serviceAccounts.revokeServiceAccount(keyID: keyFile.private_key_id, at: Int64(Date().timeIntervalSince1970))
            #expect(try await flint.run(arguments: ["users", "list"] + remote).status != 0)
        }
        try await withServer(emulator: true) { server, _ in
            try await flint.succeed("users", "create", "--uid", "owned", "--server", server.baseURL.absoluteString)
            #expect(try await server.server.store.accounts.user(projectID: server.projectID, localID: "owned") != nil)
        }
    }

    /// `flint tenants` makes tenants, and `--tenant` points the users commands at one, on the database and on a server.
    @Test func tenantsAndTheirUsers() async throws {
        let flint = try FlintCLI()
        defer { flint.removeDataDirectory() }
        func exercise(_ extra: [String]) async throws {
            let tenant = try await flint.succeed(arguments: ["tenants", "create", "--display-name", "Acme", "--allow-password-signup"] + extra)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(tenant.hasPrefix("acme-"), "\(tenant)")
            let listed = try await flint.json(arguments: ["tenants", "list", "--json"] + extra)
            #expect(listed.arrayValue?.contains { $0["tenantId"] == .string(tenant) && $0["allowPasswordSignup"] == true } == true)
            try await flint.succeed(arguments: ["users", "create", "--uid", "ada", "--email", "ada@example.com", "--password",
                                                "secret123", "--tenant", tenant] + extra)
            try await flint.succeed(arguments: ["users", "create", "--uid", "ada", "--email", "ada@example.com"] + extra)
            let inTenant = try await flint.json(arguments: ["users", "list", "--json", "--tenant", tenant] + extra)
            #expect(inTenant.arrayValue?.map { $0["tenantId"] } == [.string(tenant)])
            let file = flint.dataDirectory.appendingPathComponent("tenant-\(UUID().uuidString).json")
            let export = try await flint.run(arguments: ["users", "export", file.path, "--tenant", tenant] + extra)
            #expect(export.status == 0 && export.stderr.contains("Exported 1 users"), "\(export.stderr)")
            let project = try await flint.run(arguments: ["test-numbers", "list", "--tenant", tenant] + extra)
            #expect(project.status != 0 && project.stderr.contains("--tenant is for the users commands only"), "\(project.stderr)")
            try await flint.succeed(arguments: ["tenants", "delete", tenant] + extra)
            #expect(try await flint.json(arguments: ["users", "list", "--json"] + extra).arrayValue?.count == 1)
            try await flint.succeed(arguments: ["users", "delete", "ada"] + extra)
        }
        try await exercise([])
        let gone = try await flint.run("users", "list", "--tenant", "acme-00000")
        #expect(gone.status != 0 && gone.stderr.contains("TENANT_NOT_FOUND"), "\(gone.stderr)")
        try await withServer(emulator: true) { server, _ in
            try await exercise(["--server", server.baseURL.absoluteString])
        }
    }

    /// `flint oauth-resources` registers, lists, shows, changes and deletes the project's protected resources, on the
    /// database and on a server; they are the project's, so `--tenant` is refused.
    @Test func oauthResourcesAreCreatedChangedAndDeleted() async throws {
        let flint = try FlintCLI()
        defer { flint.removeDataDirectory() }
        func exercise(_ extra: [String]) async throws {
            let created = try await flint.json(arguments: [
                "oauth-resources", "create", "--resource", "https://mcp.example.com", "--name", "Example MCP", "--scope", "mcp:tools",
                "--scope", "mcp:resources", "--client", "client-a", "--json",
            ] + extra)
            let id = try #require(created["resourceId"]?.stringValue)
            #expect(created["resource"] == "https://mcp.example.com" && created["scopes"] == ["mcp:tools", "mcp:resources"])
            #expect(created["allowedClientIds"] == ["client-a"] && created["displayName"] == "Example MCP")

            let table = try await flint.succeed(arguments: ["oauth-resources", "list"] + extra)
            #expect(table.hasPrefix("RESOURCE ID") && table.contains(id) && table.contains("mcp:tools mcp:resources"), "\(table)")
            #expect(try await flint.json(arguments: ["oauth-resources", "list", "--json"] + extra).arrayValue?.count == 1)
            let shown = try await flint.succeed(arguments: ["oauth-resources", "get", id] + extra)
            #expect(shown.contains("https://mcp.example.com") && shown.contains("client-a"), "\(shown)")

            // Only the settings named change; --all-clients opens it to every client again.
            let updated = try await flint.json(arguments: ["oauth-resources", "update", id, "--name", "Renamed", "--all-clients",
                                                           "--json"] + extra)
            #expect(updated["displayName"] == "Renamed" && updated["allowedClientIds"] == [])
            #expect(updated["scopes"] == ["mcp:tools", "mcp:resources"])
            #expect(try await flint.succeed(arguments: ["oauth-resources", "get", id] + extra).contains("(all)"))
            let unscoped = try await flint.json(arguments: ["oauth-resources", "update", id, "--no-scopes", "--json"] + extra)
            #expect(unscoped["scopes"] == [] && unscoped["displayName"] == "Renamed")
            let nothing = try await flint.run(arguments: ["oauth-resources", "update", id] + extra)
            #expect(nothing.status != 0 && nothing.stderr.contains("Name at least one setting"), "\(nothing.stderr)")

            // Refused in the server's words.
            let duplicate = try await flint.run(arguments: ["oauth-resources", "create", "--resource", "https://mcp.example.com",
                                                            "--name", "Again"] + extra)
            #expect(duplicate.status != 0 && duplicate.stderr.contains("INVALID_OAUTH_RESOURCE"), "\(duplicate.stderr)")
            let tenant = try await flint.run(arguments: ["oauth-resources", "list", "--tenant", "acme-00000"] + extra)
            #expect(tenant.status != 0 && tenant.stderr.contains("--tenant is for the users commands only"), "\(tenant.stderr)")

            try await flint.succeed(arguments: ["oauth-resources", "delete", id] + extra)
            #expect(try await flint.json(arguments: ["oauth-resources", "list", "--json"] + extra).arrayValue?.isEmpty == true)
            let gone = try await flint.run(arguments: ["oauth-resources", "get", id] + extra)
            #expect(gone.status != 0 && gone.stderr.contains("OAUTH_RESOURCE_NOT_FOUND"), "\(gone.stderr)")
        }
        try await exercise([])
        try await withServer(emulator: true) { server, _ in
            try await exercise(["--server", server.baseURL.absoluteString])
        }
    }

    /// `flint users sessions` lists a user's sessions (a table, or JSON) and ends one (`--end`) or all (`--end-all`), on
    /// the database and through a server on the same data dir: an ended session's refresh token is refused at once.
    @Test func usersSessionsAreListedAndEnded() async throws {
        try await FlintCLI.sharingServerData { flint, scratch in
            try await withServer(emulator: true, sharing: scratch) { server, client in
                let uid = try #require(try await client.signUp(email: "ada@example.com", password: "secret-pass-1").string("localId"))
                func signIn(_ device: String) async throws -> TestClient.DeviceSession {
                    try await client.signIn(email: "ada@example.com", password: "secret-pass-1", device: device)
                }
                let phone = try await signIn("Phone/1.0")
                let laptop = try await signIn("Laptop/2.0")

                // The sign-up's session and the two devices'.
                let table = try await flint.succeed("users", "sessions", uid)
                #expect(table.hasPrefix("SESSION ID") && table.contains(phone.sid) && table.contains(laptop.sid)
                        && table.contains("Laptop/2.0") && table.contains("127.0.0.1") && table.contains("password"), "\(table)")
                let listed = try await flint.json("users", "sessions", "ada@example.com", "--json")
                #expect(listed.arrayValue?.count == 3, "\(listed)")
                #expect(listed.arrayValue?.first { $0["sessionId"] == .string(phone.sid) }?["createUserAgent"] == "Phone/1.0")

                let ended = try await flint.succeed("users", "sessions", uid, "--end", laptop.sid)
                #expect(ended.contains("Ended session \(laptop.sid) of user \(uid)"), "\(ended)")
                #expect(try await client.refresh(laptop.refreshToken).errorCode == "TOKEN_EXPIRED")
                #expect(try await client.refresh(phone.refreshToken).status == 200)
                let again = try await flint.run("users", "sessions", uid, "--end", laptop.sid)
                #expect(again.status != 0 && again.stderr.contains("SESSION_NOT_FOUND"), "\(again.stderr)")
                let both = try await flint.run("users", "sessions", uid, "--end", phone.sid, "--end-all")
                #expect(both.status != 0 && both.stderr.contains("exclude each other"), "\(both.stderr)")
                let tenant = try await flint.run("users", "sessions", uid, "--tenant", "acme-00000")
                #expect(tenant.status != 0 && tenant.stderr.contains("TENANT_NOT_FOUND"), "\(tenant.stderr)")

                // Through the server's admin API.
                let remote = ["--server", server.baseURL.absoluteString]
                let remoteList = try await flint.json(arguments: ["users", "sessions", uid, "--json"] + remote)
                #expect(remoteList.arrayValue?.compactMap { $0["sessionId"]?.stringValue }.contains(laptop.sid) == false
                        && remoteList.arrayValue?.count == 2, "\(remoteList)")
                let remoteAgain = try await flint.run(arguments: ["users", "sessions", uid, "--end", laptop.sid] + remote)
                #expect(remoteAgain.status != 0 && remoteAgain.stderr.contains("SESSION_NOT_FOUND"), "\(remoteAgain.stderr)")
                let all = try await flint.json(arguments: ["users", "sessions", uid, "--end-all", "--json"] + remote)
                #expect(all["revokedSessionIds"]?.arrayValue?.count == 2, "\(all)")
                #expect(try await client.refresh(phone.refreshToken).errorCode == "TOKEN_EXPIRED")
                #expect(try await flint.json("users", "sessions", uid, "--json") == [])
                let missing = try await flint.run("users", "sessions", "nobody")
                #expect(missing.status != 0 && missing.stderr.contains("USER_NOT_FOUND"), "\(missing.stderr)")
            }
        }
    }

    @Test func exportWritesFirebaseAuthExportJSON() async throws {
        let flint = try FlintCLI()
        defer { flint.removeDataDirectory() }
        try await flint.succeed(
            "users", "create", "--uid", "ada", "--email", "ada@example.com", "--password", "secret123",
            "--display-name", "Ada", "--photo-url", "https://example.com/ada.png", "--email-verified")
        try await flint.succeed("users", "set-claims", "ada", #"{"role":"admin"}"#)
        try await flint.succeed("users", "create", "--uid", "bob", "--phone", "+16505550100", "--disabled")

        let file = flint.dataDirectory.appendingPathComponent("users.json")
        let export = try await flint.run("users", "export", file.path)
        #expect(export.status == 0)
        #expect(export.stderr.contains("Exported 2 users"))
        #expect(export.stderr.contains("--hash-algo=SCRYPT --hash-key="))
        #expect(export.stderr.contains("--salt-separator=Bw== --rounds=8 --mem-cost=14"))

        let written = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: file))
        let users = try #require(written["users"]?.arrayValue)
        #expect(users.count == 2)
        let ada = try #require(users.first { $0["localId"] == "ada" })
        #expect(ada["email"] == "ada@example.com")
        #expect(ada["emailVerified"] == true)
        #expect(ada["displayName"] == "Ada")
        #expect(ada["photoUrl"] == "https://example.com/ada.png")
        #expect(ada["disabled"] == false)
        #expect(ada["customAttributes"] == #"{"role":"admin"}"#)
        #expect(ada["passwordHash"]?.stringValue.flatMap { Data(base64Encoded: $0) }?.isEmpty == false)
        #expect(ada["salt"]?.stringValue.flatMap { Data(base64Encoded: $0) }?.isEmpty == false)
        #expect(ada["createdAt"]?.stringValue.flatMap { Int64($0) } != nil)
        #expect(ada["providerUserInfo"] == [[
            "providerId": "password", "rawId": "ada@example.com", "email": "ada@example.com", "displayName": "Ada",
            "photoUrl": "https://example.com/ada.png",
        ]])
        let bob = try #require(users.first { $0["localId"] == "bob" })
        #expect(bob["phoneNumber"] == "+16505550100")
        #expect(bob["disabled"] == true)
        #expect(bob["passwordHash"] == nil)
        #expect(bob["providerUserInfo"]?.arrayValue?.first?["providerId"] == "phone")
    }
}

/// The `flint` executable of this package's debug build, run against a fresh temporary data directory.
/// Both output streams are read to their ends on threads of their own, so no amount of output can block it.
struct FlintCLI {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `.build/debug/flint` in the package root, three levels above this file.
    static let executable = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/debug/flint")

    let dataDirectory: URL

    /// Runs against `dataDirectory`, which the caller removes.
    init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }

    init() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable.path) else {
            throw Failure(description: "\(Self.executable.path) is missing: build it with `swift build --build-tests`.")
        }
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("flint-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
    }

    func removeDataDirectory() {
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// Runs `body` with a CLI on a scratch SQLite data dir that test servers can share (`withServer(sharing:)`): it
    /// holds the test servers' master key, as a server's own data dir would. The data dir is dropped afterwards.
    static func sharingServerData(_ body: (FlintCLI, ScratchDatabase) async throws -> Void) async throws {
        let scratch = try await ScratchDatabase.make(.sqlite)
        do {
            #expect(FileManager.default.createFile(atPath: scratch.dataDirectory.appendingPathComponent("master.key").path,
                                                   contents: Data(TestServer.masterKey.utf8), attributes: [.posixPermissions: 0o600]))
            try await body(FlintCLI(dataDirectory: scratch.dataDirectory), scratch)
        } catch {
            try? await scratch.drop()
            throw error
        }
        try await scratch.drop()
    }

    /// Starts `flint serve arguments… --data-dir <dir>` with no FLINT_* variables of the test's environment, killed by
    /// `timeout` after `bound` seconds; returns it once it says where it listens, with its URL. `timeout` passes on
    /// the signals it gets; `serverPID` is flint's own, to signal it directly. `variables` are added to its environment.
    func serve(_ arguments: [String], bound: Int = 60, variables: [String: String] = [:])
        async throws -> (process: ChildProcess, url: URL, serverPID: pid_t) {
        let process = try ChildProcess.launch(
            "/usr/bin/timeout", ["--kill-after=5", String(bound), Self.executable.path, "serve"] + arguments
                + ["--data-dir", dataDirectory.path],
            environment: ChildProcess.environment.filter { !$0.key.hasPrefix("FLINT_") }.merging(variables) { $1 })
        let banner = await BlockingWork.run {
            var text = ""
            while !(text.range(of: "Flint is listening on ").map { text[$0.upperBound...].contains("\n") } ?? false),
                  let data = process.output?.availableData, !data.isEmpty {
                text += String(decoding: data, as: UTF8.self)
            }
            return text
        }
        let listening = banner.range(of: "Flint is listening on ").map { banner[$0.upperBound...].prefix { $0 != "\n" } }
        guard let url = listening.flatMap({ URL(string: String($0)) }) else {
            process.terminate()
            throw Failure(description: "flint serve did not start: \(banner) \(await process.finish().errors)")
        }
        let children = try String(contentsOfFile: "/proc/\(process.pid)/task/\(process.pid)/children", encoding: .utf8)
        guard let serverPID = children.split(separator: " ").first.flatMap({ pid_t($0) }) else {
            throw Failure(description: "flint serve is not timeout's child")
        }
        return (process, url, serverPID)
    }

    func run(_ arguments: String...) async throws -> Run {
        try await run(arguments: arguments)
    }

    /// Runs `flint arguments… --data-dir <dir>` with no FLINT_* variables of the test's environment,
    /// killed by `timeout` when it runs longer than a minute.
    func run(arguments: [String]) async throws -> Run {
        let process = try ChildProcess.launch(
            "/usr/bin/timeout", ["--kill-after=5", "60", Self.executable.path] + arguments + ["--data-dir", dataDirectory.path],
            environment: ChildProcess.environment.filter { !$0.key.hasPrefix("FLINT_") })
        let result = await process.finish()
        if result.status == 124 || result.status == 137 {
            throw Failure(description: "flint \(arguments.joined(separator: " ")) ran longer than 60 s")
        }
        return Run(status: result.status, stdout: result.output, stderr: result.errors)
    }

    /// The stdout of a run that must succeed.
    @discardableResult
    func succeed(_ arguments: String...) async throws -> String {
        try await succeeded(arguments)
    }

    @discardableResult
    func succeed(arguments: [String]) async throws -> String {
        try await succeeded(arguments)
    }

    /// The stdout of a run that must succeed, parsed as JSON.
    func json(_ arguments: String...) async throws -> JSONValue {
        try await json(arguments: arguments)
    }

    func json(arguments: [String]) async throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(try await succeeded(arguments).utf8))
    }

    private func succeeded(_ arguments: [String]) async throws -> String {
        let run = try await run(arguments: arguments)
        guard run.status == 0 else {
            throw Failure(description: "flint \(arguments.joined(separator: " ")) exited \(run.status): \(run.stderr)")
        }
        return run.stdout
    }
}
