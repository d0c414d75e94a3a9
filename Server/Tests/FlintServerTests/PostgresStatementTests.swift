@testable import FlintServer
import FlintTestSupport
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import PostgresNIO
import Testing

/// PostgreSQL's named prepared statements and the cache generation followed in memory, on the test server.
@Suite(.timeLimit(.minutes(2))) struct PostgresStatementTests {
    /// A fresh scratch database, migrated, opened `count` times with one pooled connection each (so every statement
    /// of one opening meets the same connection).
    private func withDatabases(_ count: Int, _ body: ([FlintServer.PostgresDatabase], ScratchDatabase) async throws -> Void) async throws {
        let scratch = try await ScratchDatabase.make(.postgres)
        var databases: [FlintServer.PostgresDatabase] = []
        do {
            let url = try #require(scratch.databaseURL).replacingOccurrences(of: "pool_size=4", with: "pool_size=1")
            for _ in 0..<count { databases.append(try await FlintServer.PostgresDatabase.connect(url: url, logger: Logger(label: "test"))) }
            try await Migrations.migrate(databases[0])
            try await body(databases, scratch)
        } catch {
            for database in databases { try? await database.close() }
            try await scratch.drop()
            throw error
        }
        for database in databases { try await database.close() }
        try await scratch.drop()
    }

    /// How many statements the server holds prepared for the connection that runs this, with exactly this text.
    private func preparedCount(_ database: FlintServer.PostgresDatabase, _ sql: String) async throws -> Int64 {
        try await database.query("SELECT count(*) AS n FROM pg_prepared_statements WHERE statement = ?", .text(sql))
            .first?.int("n") ?? -1
    }

    @Test func aStatementIsPreparedOnceAndReused() async throws {
        try await withDatabases(1) { databases, _ in
            let database = databases[0]
            try await database.query("CREATE TABLE pets (id BIGINT PRIMARY KEY, name TEXT)")
            try await database.query("INSERT INTO pets (id, name) VALUES (?, ?), (?, ?)", .int(1), .text("Rex"), .int(2), .text("Tom"))
            for (id, name) in [(1, "Rex"), (2, "Tom"), (1, "Rex")] {
                let rows = try await database.query("SELECT name FROM pets WHERE id = ?", .int(Int64(id)))
                #expect(rows.map { $0.string("name") } == [name])
            }
            #expect(try await preparedCount(database, "SELECT name FROM pets WHERE id = $1") == 1)
            // The same text with a null where a number was is a statement of its own (its parameter types differ).
            #expect(try await database.query("SELECT name FROM pets WHERE id = ?", .null).isEmpty)
            #expect(try await preparedCount(database, "SELECT name FROM pets WHERE id = $1") == 2)
            // In a transaction too, on the same connection.
            let names = try await database.transaction { tx in
                try await tx.query("SELECT name FROM pets WHERE id = ?", .int(2)).compactMap { $0.string("name") }
            }
            #expect(names == ["Tom"])
            #expect(try await preparedCount(database, "SELECT name FROM pets WHERE id = $1") == 2)
        }
    }

    @Test func aStatementIsPreparedAgainAfterASchemaChangeOnAnotherConnection() async throws {
        try await withDatabases(2) { databases, _ in
            let (node, other) = (databases[0], databases[1])
            try await node.query("CREATE TABLE pets (id BIGINT PRIMARY KEY, name TEXT)")
            try await node.query("INSERT INTO pets (id, name) VALUES (1, 'Rex')")
            let select = "SELECT * FROM pets WHERE id = ?"
            #expect(try await node.query(select, .int(1)).first?.string("name") == "Rex")

            // Outside a transaction the statement is prepared again and run at once.
            try await other.query("ALTER TABLE pets ADD COLUMN colour TEXT NOT NULL DEFAULT 'brown'")
            #expect(try await node.query(select, .int(1)).first?.string("colour") == "brown")

            // Inside one, the transaction has failed: the caller is told to run it again, and then it works.
            try await other.query("ALTER TABLE pets ADD COLUMN age BIGINT NOT NULL DEFAULT 3")
            await #expect {
                try await node.transaction { tx in try await tx.query(select, .int(1)) }
            } throws: { error in
                if case SQLError.transactionConflict = error { return true }
                return false
            }
            let age = try await node.transaction { tx in try await tx.query(select, .int(1)).first?.int("age") }
            #expect(age == 3)
        }
    }

    /// A second node sees a generation another node committed without reading it per request, and while its
    /// listener is down reads it from the database.
    @Test func aSecondNodeFollowsTheGenerationInMemory() async throws {
        try await withDatabases(2) { databases, _ in
            let writer = Store(database: databases[0])
            let counted = CountingDatabase(base: databases[1])
            let reader = Store(database: counted)

            // The first ask starts the listener and reads the generation from the database.
            let start = try await reader.settings.externalChangeToken()
            #expect(counted.statements == 1)
            await databases[1].listener.wait { $0.live }

            try await writer.settings.changingCached { _ in }
            let moved = try #require(try await databases[0].query("SELECT value FROM cache_generation WHERE id = 1").first?.int("value"))
            #expect(moved == (start ?? 0) + 1)
            await databases[1].listener.wait { $0.seen >= moved }
            for _ in 0..<3 {
                #expect(try await reader.settings.externalChangeToken() == moved)
            }
            #expect(counted.statements == 1)
        }
    }

    /// A listener whose connection drops vouches for nothing until it is connected again and has read the
    /// generation; what was committed meanwhile is then what it holds.
    @Test func aDroppedListenerFallsBackUntilItReconnects() async throws {
        try await withDatabases(1) { databases, scratch in
            let database = databases[0]
            let settings = try PostgresURL(try #require(scratch.databaseURL))
            let connections = NIOLockedValueBox(0)
            let (reconnect, allowReconnect) = AsyncStream.makeStream(of: Void.self)
            let listener = PostgresGenerationListener(logger: Logger(label: "test")) {
                // The second connection waits for the test, so the listener stays down while the test looks.
                if connections.withLockedValue({ $0 += 1; return $0 }) > 1 {
                    for await _ in reconnect { break }
                }
                return try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.any(),
                    configuration: FlintServer.PostgresDatabase.connectionConfiguration(settings, tls: nil), id: 1, logger: Logger(label: "test")
                ).get()
            }
            defer { allowReconnect.finish() }
            let store = Store(database: database)

            #expect(listener.generation() == nil)  // starts it
            await listener.wait { $0.live }
            let first = try #require(listener.generation())

            let pid = try #require(listener.current.backendPID)
            try await database.query("SELECT pg_terminate_backend(CAST(? AS INTEGER))", .int(pid))
            await listener.wait { !$0.live }
            #expect(listener.generation() == nil)

            try await store.settings.changingCached { _ in }
            try await store.settings.changingCached { _ in }
            #expect(listener.generation() == nil)

            allowReconnect.yield()
            await listener.wait { $0.live }
            #expect(listener.generation() == first + 2)
            await listener.stop()
        }
    }
}

/// A database that counts the statements run outside transactions.
private final class CountingDatabase: SQLDatabase {
    let base: any SQLDatabase
    private let count = NIOLockedValueBox(0)
    var statements: Int { count.withLockedValue { $0 } }

    init(base: any SQLDatabase) { self.base = base }

    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        count.withLockedValue { $0 += 1 }
        return try await base.query(sql, binds)
    }

    func transaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await base.transaction(body)
    }

    var migrationLockStatement: String? { base.migrationLockStatement }
    var rowLockClause: String? { base.rowLockClause }
    func externalChangeToken() async throws -> Int64? { try await base.externalChangeToken() }

    func announceCacheGeneration(_ generation: Int64, in transaction: any SQLExecutor) async throws {
        try await base.announceCacheGeneration(generation, in: transaction)
    }

    func cacheGenerationCommitted(_ generation: Int64) async { await base.cacheGenerationCommitted(generation) }
    func close() async throws { try await base.close() }
}
