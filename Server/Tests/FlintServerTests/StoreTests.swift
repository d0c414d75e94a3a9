import FlintServer
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
            let record = RefreshTokenRecord(projectID: "p1", localID: "u", signInProvider: "password", authTime: 10, createdAt: 20)
            try await store.accounts.createUser(user("u"), session: NewSession(tokenHash: "h1", record: record))
            let session = try #require(try await store.sessions.refreshSession(hash: "h1"))
            #expect(session.record == record && session.user.localID == "u")
            // A session begun with a change carries the epoch the change left the account in.
            let revoked = NewSession(tokenHash: "h3", record: record)
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
}
