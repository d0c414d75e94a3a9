import CSQLite
@testable import FlintServer
import Foundation
import Testing

/// `SQLiteLibrary`: SQLite keeps no memory statistics in Flint's process, so that its allocations take no
/// process-wide lock. With statistics on, the queries below would count their memory.
@Suite struct SQLiteLibraryTests {
    @Test func sqliteCountsNoMemory() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("flint-library-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let database = try SQLiteDatabase(path: path)
        try await database.query("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)", [])
        for id in 0..<100 {
            try await database.query("INSERT INTO notes (id, text) VALUES (?, ?)", [.int(Int64(id)), .text(String(repeating: "n", count: 500))])
        }
        #expect(try await database.query("SELECT COUNT(*) AS n FROM notes", []).first?.int("n") == 100)
        #expect(sqlite3_memory_highwater(0) == 0, "SQLite counted \(sqlite3_memory_highwater(0)) bytes")
        try await database.close()
    }
}
