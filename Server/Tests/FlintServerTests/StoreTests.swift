@testable import FlintServer
import FlintTestSupport
import Foundation
import Logging
import Testing

/// The same store suite on SQLite and PostgreSQL.
@Suite struct StoreTests {
    private func withStore(_ kind: TestDatabase, _ body: (Store) async throws -> Void) async throws {
        let scratch = try await ScratchDatabase.make(kind)
        let store = try await Store.open(
            databaseURL: scratch.databaseURL, dataDirectory: scratch.dataDirectory, logger: Logger(label: "test"))
        do {
            try await body(store)
        } catch {
            try await store.close()
            try await scratch.drop()
            throw error
        }
        try await store.close()
        try await scratch.drop()
    }

    private func user(_ id: String, email: String? = nil, phone: String? = nil) -> UserAccount {
        var user = UserAccount(projectID: "p1", localID: id, createdAt: 1_700_000_000_000)
        user.email = email
        user.phoneNumber = phone
        return user
    }

    @Test(arguments: TestDatabase.allCases)
    func createReadUpdateDelete(database: TestDatabase) async throws {
        try await withStore(database) { store in
            var alice = user("alice", email: "alice@example.com", phone: "+15555550100")
            alice.displayName = "Alice"
            alice.customAttributes = #"{"admin":true}"#
            alice.identities = [FederatedIdentity(providerID: "apple.com", rawID: "apple-1", email: "a@privaterelay.appleid.com")]
            try await store.accounts.createUser(alice)

            #expect(try await store.accounts.user(projectID: "p1", localID: "alice") == alice)
            #expect(try await store.accounts.user(projectID: "p1", email: "alice@example.com") == alice)
            #expect(try await store.accounts.user(projectID: "p1", phoneNumber: "+15555550100") == alice)
            #expect(try await store.accounts.user(projectID: "p1", providerID: "apple.com", rawID: "apple-1") == alice)
            #expect(try await store.accounts.user(projectID: "p2", localID: "alice") == nil)

            // A change writes the fields it names, and only those.
            let change = AccountChange([.displayName(nil), .emailVerified(true), .unlink(providerID: "apple.com"), .revokeSessions])
            let modified = try #require(try await store.accounts.modifyUser(projectID: "p1", localID: "alice") { _ in change })
            #expect(modified.before == alice)
            alice.displayName = nil
            alice.emailVerified = true
            alice.identities = []
            alice.sessionEpoch = 1
            #expect(modified.after == alice)
            #expect(try await store.accounts.user(projectID: "p1", localID: "alice") == alice)
            #expect(try await store.accounts.user(projectID: "p1", providerID: "apple.com", rawID: "apple-1") == nil)
            #expect(try await store.accounts.modifyUser(projectID: "p1", localID: "nobody") { _ in change } == nil)

            #expect(try await store.accounts.deleteUser(projectID: "p1", localID: "alice") != nil)
            #expect(try await store.accounts.deleteUser(projectID: "p1", localID: "alice") == nil)
            #expect(try await store.accounts.user(projectID: "p1", localID: "alice") == nil)
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func uniqueConstraintsKeepStoredDataIntact(database: TestDatabase) async throws {
        try await withStore(database) { store in
            var apple = user("a", email: "same@example.com", phone: "+15555550101")
            apple.identities = [FederatedIdentity(providerID: "apple.com", rawID: "sub-1")]
            try await store.accounts.createUser(apple)

            await #expect(throws: StoreError.duplicate(.email)) {
                try await store.accounts.createUser(user("b", email: "same@example.com"))
            }
            await #expect(throws: StoreError.duplicate(.phoneNumber)) {
                try await store.accounts.createUser(user("c", phone: "+15555550101"))
            }
            await #expect(throws: StoreError.duplicate(.localID)) { try await store.accounts.createUser(user("a")) }
            var thief = user("d")
            thief.identities = [FederatedIdentity(providerID: "apple.com", rawID: "sub-1")]
            await #expect(throws: StoreError.duplicate(.federatedIdentity)) { try await store.accounts.createUser(thief) }
            // The failed inserts left nothing behind: "d" was rolled back with its identity.
            #expect(try await store.accounts.user(projectID: "p1", localID: "d") == nil)

            try await store.accounts.createUser(user("e", email: "other@example.com"))
            await #expect(throws: StoreError.duplicate(.email)) {
                try await store.accounts.modifyUser(projectID: "p1", localID: "e") { _ in AccountChange([.email("same@example.com")]) }
            }
            #expect(try await store.accounts.user(projectID: "p1", localID: "e")?.email == "other@example.com")
            #expect(try await store.accounts.user(projectID: "p1", localID: "a") == apple)

            // The same email in another project is a different account.
            var elsewhere = user("a", email: "same@example.com")
            elsewhere.projectID = "p2"
            try await store.accounts.createUser(elsewhere)
        }
    }

    /// Accounts without an email or a phone number write no entry in those indexes, and lookups still use them.
    @Test(arguments: TestDatabase.allCases)
    func emailAndPhoneIndexesHoldOnlyAccountsThatHaveOne(database: TestDatabase) async throws {
        try await withStore(database) { store in
            for id in ["anonymous-1", "anonymous-2"] { try await store.accounts.createUser(user(id)) }
            try await store.accounts.createUser(user("carol", email: "carol@example.com", phone: "+15555550102"))
            let lookups = [("users_email_unique", "email", "carol@example.com"), ("users_phone_unique", "phone_number", "+15555550102")]
            for (index, column, value) in lookups {
                let select = "SELECT local_id FROM users WHERE project_id = ? AND \(column) = ?"
                switch database {
                case .sqlite:
                    let definition = try await store.accounts.database.query(
                        "SELECT sql FROM sqlite_master WHERE name = ?", .text(index)).first?.string("sql")
                    #expect(definition?.hasSuffix("WHERE \(column) IS NOT NULL") == true)
                    let plan = try await store.accounts.database.query(
                        "EXPLAIN QUERY PLAN " + select, .text("p1"), .text(value)).compactMap { $0.string("detail") }
                    #expect(plan.contains { $0.contains(index) }, "\(plan)")
                    // The index's own rows: only carol's (SQLite can count an index that covers the query).
                    let entries = try await store.accounts.database.query(
                        "SELECT COUNT(*) AS n FROM users INDEXED BY \(index) WHERE project_id = ? AND \(column) >= ''", .text("p1"))
                    #expect(entries.first?.int("n") == 1)
                case .postgres:
                    let definition = try await store.accounts.database.query(
                        "SELECT indexdef FROM pg_indexes WHERE indexname = ?", .text(index)).first?.string("indexdef")
                    #expect(definition?.hasSuffix("WHERE (\(column) IS NOT NULL)") == true, "\(definition ?? "none")")
                }
                #expect(try await store.accounts.database.query(select, .text("p1"), .text(value)).first?.string("local_id") == "carol")
            }
        }
    }

    /// The retention sweep's way through the trail: every realm with events (projects and tenants, in any order the
    /// database sorts text), then each realm's events older than a time.
    @Test(arguments: TestDatabase.allCases)
    func auditEventsAreSweptRealmByRealm(database: TestDatabase) async throws {
        try await withStore(database) { store in
            let realms = ["p1", "p1/tenants/t-1", "p1/tenants/t_2", "p10", "p2"]
            for realm in realms {
                for time in [Int64(1_000), 2_000, 3_000] {
                    var entry = AuditEntry(.configChanged, realm: realm, scope: nil)
                    entry.time = time
                    try await store.audit.append(entry)
                }
            }
            #expect(Set(try await store.audit.realmsWithEvents()) == Set(realms))
            #expect(try await store.audit.deleteEvents(realm: "p1", before: 2_500) == 2)
            #expect(try await store.audit.deleteEvents(realm: "p1/tenants/t-1", before: 1_000) == 0)
            let left = try await store.audit.events(realm: "p1", AuditFilter(), before: nil, limit: 10)
            #expect(left.map(\.entry.time) == [3_000])
            // The other realms keep all of theirs.
            for realm in realms.dropFirst() {
                #expect(try await store.audit.events(realm: realm, AuditFilter(), before: nil, limit: 10).count == 3)
            }
            #expect(try await store.audit.deleteEvents(realm: "p2", before: 10_000) == 3)
            #expect(Set(try await store.audit.realmsWithEvents()) == Set(realms.filter { $0 != "p2" }))
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func listsUsersInPages(database: TestDatabase) async throws {
        try await withStore(database) { store in
            for index in 0..<5 { try await store.accounts.createUser(user("u\(index)")) }
            let first = try await store.accounts.users(projectID: "p1", afterLocalID: nil, limit: 2)
            #expect(first.map(\.localID) == ["u0", "u1"])
            let second = try await store.accounts.users(projectID: "p1", afterLocalID: "u1", limit: 2)
            #expect(second.map(\.localID) == ["u2", "u3"])
            let last = try await store.accounts.users(projectID: "p1", afterLocalID: "u3", limit: 2)
            #expect(last.map(\.localID) == ["u4"])
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func refreshTokensFollowTheirUser(database: TestDatabase) async throws {
        try await withStore(database) { store in
            var record = RefreshTokenRecord(projectID: "p1", localID: "u", signInProvider: "password", authTime: 10, createdAt: 20)
            record.sessionID = "session-1"
            try await store.accounts.createUser(user("u"), session: NewSession(tokenHash: "h1", record: record))
            let session = try #require(try await store.sessions.refreshSession(hash: "h1"))
            #expect(session.record == record && session.user.localID == "u")
            // A session begun with a change carries the epoch the change left the account in.
            var later = record
            later.sessionID = "session-3"
            let revoked = NewSession(tokenHash: "h3", record: later)
            _ = try await store.accounts.modifyUser(projectID: "p1", localID: "u", startingSession: { _ in revoked }) { _ in
                AccountChange([.revokeSessions])
            }
            #expect(try await store.sessions.refreshSession(hash: "h3")?.record.sessionEpoch == 1)
            #expect(try await store.sessions.refreshSession(hash: "h2") == nil)
            try await store.accounts.deleteUser(projectID: "p1", localID: "u")
            #expect(try await store.sessions.refreshSession(hash: "h1") == nil)
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func countersCountPerWindow(database: TestDatabase) async throws {
        try await withStore(database) { store in
            #expect(try await store.counters.counter("b", windowStart: 100) == 0)
            #expect(try await store.counters.incrementCounter("b", windowStart: 100) == 1)
            #expect(try await store.counters.incrementCounter("b", windowStart: 100) == 2)
            #expect(try await store.counters.counter("b", windowStart: 100) == 2)
            #expect(try await store.counters.incrementCounter("b", windowStart: 200) == 1, "a new window starts again")
            #expect(try await store.counters.counter("b", windowStart: 100) == 0)
            try await store.counters.resetCounter("b")
            #expect(try await store.counters.counter("b", windowStart: 200) == 0)
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func projectsAndAPIKeys(database: TestDatabase) async throws {
        try await withStore(database) { store in
            #expect(try await store.settings.createProject(projectID: "p1", settings: "{}", createdAt: 1))
            #expect(try await store.settings.createProject(projectID: "p1", settings: "{\"x\":1}", createdAt: 2) == false)
            #expect(try await store.settings.projectSettings(projectID: "p1")?.settings == "{}")
            // Settings are written compare-and-swap on their version.
            #expect(try await store.settings.updateProjectSettings(projectID: "p1", settings: "{\"y\":1}", ifVersion: 0) == 1)
            #expect(try await store.settings.updateProjectSettings(projectID: "p1", settings: "{\"z\":1}", ifVersion: 0) == nil)
            #expect(try await store.settings.projectSettings(projectID: "p1")?.settings == "{\"y\":1}")
            #expect(try await store.settings.projectVersion(projectID: "p1") == 1)
            try await store.settings.insertAPIKey("AIzaKEY", projectID: "p1", createdAt: 1)
            #expect(try await store.settings.projectID(forAPIKey: "AIzaKEY") == "p1")
            #expect(try await store.settings.projectID(forAPIKey: "nope") == nil)
            #expect(try await store.settings.apiKeys(projectID: "p1") == ["AIzaKEY"])
        }
    }

    @Test(arguments: TestDatabase.allCases)
    func migrationsAreIdempotentAndSurviveReopening(database: TestDatabase) async throws {
        let scratch = try await ScratchDatabase.make(database)
        let logger = Logger(label: "test")
        let first = try await Store.open(databaseURL: scratch.databaseURL, dataDirectory: scratch.dataDirectory, logger: logger)
        try await first.accounts.createUser(user("kept", email: "kept@example.com"))
        try await first.close()
        let second = try await Store.open(databaseURL: scratch.databaseURL, dataDirectory: scratch.dataDirectory, logger: logger)
        #expect(try await second.accounts.user(projectID: "p1", localID: "kept")?.email == "kept@example.com")
        try await second.close()
        try await scratch.drop()
    }

    @Test(arguments: TestDatabase.allCases)
    func textWithQuotesAndUnicodeRoundTrips(database: TestDatabase) async throws {
        try await withStore(database) { store in
            var odd = user("o")
            odd.displayName = "O'Brien ☃ \"quoted\" ?"
            try await store.accounts.createUser(odd)
            #expect(try await store.accounts.user(projectID: "p1", localID: "o")?.displayName == odd.displayName)
        }
    }

    // MARK: Import

    /// An account with something in every column and table an import writes.
    private func full(_ index: Int) -> UserAccount {
        var account = user("full\(index)", email: "full\(index)@example.com", phone: index.isMultiple(of: 2) ? "+1555555\(1000 + index)" : nil)
        account.displayName = "Full \(index)"
        account.photoURL = "https://example.com/\(index).png"
        account.emailVerified = true
        account.disabled = index == 3
        account.customAttributes = #"{"level":\#(index)}"#
        account.passwordHash = "aGFzaA=="
        account.passwordSalt = "c2FsdA=="
        account.passwordUpdatedAt = 1_700_000_000_100
        account.importedPasswordHash = ImportedPasswordHash(
            algorithm: .firebaseScrypt, sealedKey: "sealed", saltSeparator: "Bw==", rounds: 8, memoryCost: 14, passwordFirst: false)
        account.lastLoginAt = 1_700_000_000_200
        account.identities = (0..<index % 3).map {
            FederatedIdentity(providerID: $0 == 0 ? "google.com" : "apple.com", rawID: "raw-\(index)-\($0)", email: "f\(index)@example.com",
                              displayName: "F", photoURL: "https://example.com/f.png", screenName: "f\(index)")
        }
        account.mfaFactors = [SecondFactor(enrollmentID: "mfa-\(index)", kind: .phone, displayName: "Phone", phoneNumber: "+15555550199",
                                           enrolledAt: 1_700_000_000_300)]
        account.passkeys = index.isMultiple(of: 3) ? [Passkey(credentialID: "cred-\(index)", name: "Key", createdAt: 1_700_000_000_400)] : []
        return account
    }

    /// Every row of the account tables in project p1, every column.
    private func accountRows(_ store: Store) async throws -> [[SQLValue]] {
        var rows: [[SQLValue]] = []
        for (table, columns, order) in [
            ("users", AccountStore.userColumns, "local_id"),
            ("user_identities", "project_id, provider_id, raw_id, local_id, email, display_name, photo_url, screen_name", "raw_id"),
            ("user_passkeys", "project_id, credential_id, local_id", "credential_id"),
            ("refresh_tokens", "token_hash, local_id", "token_hash"),
        ] {
            let names = columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            rows += try await store.accounts.database.query(
                "SELECT \(columns) FROM \(table) WHERE project_id = ? ORDER BY \(order)", .text("p1")
            ).map { row in [.text(table)] + names.map { Self.sortingJSONKeys(row[$0]) } }
        }
        return rows
    }

    /// A JSON column's text with its objects' keys sorted (the encoder's order varies from one encoding to the next).
    private static func sortingJSONKeys(_ value: SQLValue) -> SQLValue {
        guard case .text(let text) = value, text.hasPrefix("{") || text.hasPrefix("["),
              let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)),
              let sorted = try? JSONSerialization.data(withJSONObject: object, options: .sortedKeys)
        else { return value }
        return .text(String(decoding: sorted, as: UTF8.self))
    }

    /// An import, in transactions of three here, writes exactly the rows that creating its users one at a time writes;
    /// replacing, exactly those of the new accounts: the old ones' identities, passkeys and sessions are gone.
    @Test(arguments: TestDatabase.allCases)
    func importWritesWhatCreatingEachUserWrites(database: TestDatabase) async throws {
        try await withStore(database) { store in
            let users = (0..<8).map(full)
            #expect(try await store.accounts.importUsers(users, replacing: false, batchSize: 3).isEmpty)
            let imported = try await accountRows(store)
            #expect(imported.count > users.count)
            try await store.accounts.deleteAllAccounts(projectID: "p1")
            for user in users { try await store.accounts.createUser(user) }
            #expect(try await accountRows(store) == imported)

            let session = RefreshTokenRecord(projectID: "p1", localID: "full1", signInProvider: "password", authTime: 10, createdAt: 20)
            try await store.accounts.deleteAllAccounts(projectID: "p1")
            for user in users {
                try await store.accounts.createUser(user, session: user.localID == "full1" ? NewSession(tokenHash: "h1", record: session) : nil)
            }
            let replacements = (0..<8).map { index in
                var account = full(index + 10)
                account.localID = "full\(index)"
                return account
            }
            #expect(try await store.accounts.importUsers(replacements, replacing: true, batchSize: 3).isEmpty)
            let replaced = try await accountRows(store)
            #expect(try await store.sessions.refreshSession(hash: "h1") == nil)
            try await store.accounts.deleteAllAccounts(projectID: "p1")
            for user in replacements { try await store.accounts.createUser(user) }
            #expect(try await accountRows(store) == replaced)
        }
    }

    /// Each entry that collides with another account, or an earlier entry, is reported by its index and leaves nothing
    /// behind; the others, in the same transactions, are kept. Replacing, entries take effect in order.
    @Test(arguments: TestDatabase.allCases)
    func importReportsEachCollidingEntryAndKeepsTheOthers(database: TestDatabase) async throws {
        try await withStore(database) { store in
            var held = user("a", email: "a@example.com", phone: "+15555550101")
            held.identities = [FederatedIdentity(providerID: "apple.com", rawID: "sub-a")]
            held.passkeys = [Passkey(credentialID: "cred-a", name: "Key", createdAt: 1)]
            try await store.accounts.createUser(held)
            func with(_ account: UserAccount, identity: String? = nil, passkey: String? = nil) -> UserAccount {
                var account = account
                account.identities = identity.map { [FederatedIdentity(providerID: "apple.com", rawID: $0)] } ?? []
                account.passkeys = passkey.map { [Passkey(credentialID: $0, name: "Key", createdAt: 1)] } ?? []
                return account
            }
            let entries = [
                user("b", email: "b@example.com"),
                user("c", email: "a@example.com"),
                with(user("d", email: "d@example.com"), identity: "sub-a"),
                with(user("e", email: "e@example.com"), identity: "sub-e", passkey: "cred-e"),
                with(user("f", email: "f@example.com"), passkey: "cred-a"),
                user("a", email: "other-a@example.com"),
                user("g", phone: "+15555550101"),
                user("h", email: "b@example.com"),
                user("i"),
            ]
            let conflicts = try await store.accounts.importUsers(entries, replacing: false, batchSize: 3)
            let expected: [(Int, UniqueField)] = [(1, .email), (2, .federatedIdentity), (4, .passkeyCredential), (5, .localID),
                                                  (6, .phoneNumber), (7, .email)]
            #expect(conflicts == expected.map { AccountStore.ImportConflict(index: $0.0, field: $0.1) })
            let kept = try await store.accounts.users(projectID: "p1", afterLocalID: nil, limit: 100)
            #expect(kept.map(\.localID) == ["a", "b", "e", "i"])
            #expect(kept.first == held)
            #expect(try await store.accounts.user(projectID: "p1", email: "d@example.com") == nil)
            #expect(try await store.accounts.user(projectID: "p1", email: "f@example.com") == nil)
            let identities = try await store.accounts.database.query("SELECT raw_id FROM user_identities ORDER BY raw_id")
            #expect(identities.map { $0.string("raw_id") } == ["sub-a", "sub-e"])
            let passkeys = try await store.accounts.database.query("SELECT credential_id FROM user_passkeys ORDER BY credential_id")
            #expect(passkeys.map { $0.string("credential_id") } == ["cred-a", "cred-e"])

            // Replacing: "c" comes before the account holding its address is replaced, so it collides; "b2" after.
            let replacing = [user("c", email: "b@example.com"), user("b", email: "b-new@example.com"), user("b2", email: "b@example.com")]
            #expect(try await store.accounts.importUsers(replacing, replacing: true)
                    == [AccountStore.ImportConflict(index: 0, field: .email)])
            #expect(try await store.accounts.user(projectID: "p1", email: "b@example.com")?.localID == "b2")
            #expect(try await store.accounts.user(projectID: "p1", localID: "b")?.email == "b-new@example.com")
        }
    }
}
