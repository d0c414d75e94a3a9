@testable import FlintServer
import Foundation
import Testing

/// Transactions that queue for SQLite's writer share one commit, each still all or nothing, and none returns before
/// the commit that holds its work.
@Suite struct SQLiteGroupCommitTests {
    /// A database with a table `rows (name TEXT PRIMARY KEY)`, removed afterwards.
    private func withDatabase(_ body: (SQLiteDatabase) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flint-group-commit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = try SQLiteDatabase(path: directory.appendingPathComponent("test.sqlite").path)
        try await database.query("CREATE TABLE rows (name TEXT PRIMARY KEY)", [])
        do {
            try await body(database)
        } catch {
            try await database.close()
            throw error
        }
        try await database.close()
    }

    /// The names in `rows`, read by a reader connection (which sees committed work only).
    private func committed(_ database: SQLiteDatabase) async throws -> Set<String> {
        Set(try await database.query("SELECT name FROM rows", []).compactMap { $0.string("name") })
    }

    /// Returns once `count` transactions queue for the writer.
    private func waitUntil(_ database: SQLiteDatabase, queues count: Int) async throws {
        var spins = 0
        while database.queuedWriters < count {
            spins += 1
            try #require(spins < 1_000_000, "the transactions did not queue for the writer")
            await Task.yield()
        }
    }

    /// Runs a transaction inserting `name` that holds the writer until `queued` more transactions (started by `queue`)
    /// wait behind it.
    private func holdingTheWriter(
        _ database: SQLiteDatabase, insert name: String, whileQueueing queued: Int,
        _ queue: () async throws -> [Task<Void, any Error>]
    ) async throws -> (first: Task<Void, any Error>, queued: [Task<Void, any Error>]) {
        let (started, startedSignal) = AsyncStream<Void>.makeStream()
        let (gate, opening) = AsyncStream<Void>.makeStream()
        let first = Task {
            try await database.transaction { tx in
                try await tx.query("INSERT INTO rows (name) VALUES (?)", [.text(name)])
                startedSignal.yield()
                for await _ in gate { break }
            }
        }
        for await _ in started { break }
        let tasks = try await queue()
        try await waitUntil(database, queues: queued)
        opening.yield()
        return (first, tasks)
    }

    private func insert(_ database: SQLiteDatabase, _ name: String) -> Task<Void, any Error> {
        Task { try await database.query("INSERT INTO rows (name) VALUES (?)", [.text(name)]) }
    }

    @Test func queuedTransactionsShareOneCommit() async throws {
        try await withDatabase { database in
            let before = database.commits
            let (first, queued) = try await holdingTheWriter(database, insert: "a", whileQueueing: 2) {
                [Task {
                    try await database.transaction { tx in
                        try await tx.query("INSERT INTO rows (name) VALUES (?)", [.text("b")])
                        // In the shared transaction, "a" is written but not committed: readers do not see it yet.
                        #expect(try await committed(database).isEmpty)
                    }
                }, insert(database, "c")]
            }
            try await first.value
            for task in queued { try await task.value }
            // Every transaction returned after the commit, which holds all three.
            #expect(try await committed(database) == ["a", "b", "c"])
            #expect(database.commits == before + 1)
        }
    }

    @Test func aFailedTransactionUndoesOnlyItsOwnWork() async throws {
        struct Refused: Error {}
        try await withDatabase { database in
            let before = database.commits
            let (first, queued) = try await holdingTheWriter(database, insert: "a", whileQueueing: 3) {
                [Task {
                    try await database.transaction { tx in
                        try await tx.query("INSERT INTO rows (name) VALUES (?)", [.text("b")])
                        throw Refused()
                    }
                }, insert(database, "a"), insert(database, "c")]
            }
            try await first.value
            await #expect(throws: Refused.self) { try await queued[0].value }
            await #expect(throws: SQLError.self) { try await queued[1].value }  // "a" again: its primary key
            try await queued[2].value
            #expect(try await committed(database) == ["a", "c"])
            #expect(database.commits == before + 1)
        }
    }

    /// Where SQLite itself ends the transaction (here a statement that rolls it back, as a full disk or an I/O error
    /// would), the transactions waiting for its commit fail rather than report work that was lost; the next one
    /// starts afresh.
    @Test func aTransactionSQLiteRolledBackFailsTheGroupsWaitingMembers() async throws {
        try await withDatabase { database in
            let (first, queued) = try await holdingTheWriter(database, insert: "a", whileQueueing: 2) {
                // The rolling back one first, then "c" behind it.
                let rollingBack = Task { _ = try await database.transaction { tx in try await tx.query("ROLLBACK", []) } }
                try await waitUntil(database, queues: 1)
                return [rollingBack, insert(database, "c")]
            }
            await #expect(throws: (any Error).self) { try await first.value }
            await #expect(throws: (any Error).self) { try await queued[0].value }
            try await queued[1].value
            #expect(try await committed(database) == ["c"])
        }
    }

    @Test func aGroupHoldsAtMostMaximumBatchTransactions() async throws {
        try await withDatabase { database in
            let before = database.commits
            let count = SQLiteDatabase.maximumBatch + 8
            let (first, queued) = try await holdingTheWriter(database, insert: "0", whileQueueing: count - 1) {
                (1..<count).map { insert(database, "\($0)") }
            }
            try await first.value
            for task in queued { try await task.value }
            #expect(try await committed(database).count == count)
            #expect(database.commits == before + 2)
        }
    }
}
