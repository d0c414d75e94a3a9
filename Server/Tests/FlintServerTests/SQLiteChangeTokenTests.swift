@testable import FlintServer
import Foundation
import Testing

/// `SQLiteDatabase.externalChangeToken`: it moves when another process commits to the file, and not for this
/// process's own commits, whichever of the watchers a caller reads. A second `SQLiteDatabase` on the same file stands
/// for the other process (its connections are other connections to SQLite, as another process's are).
@Suite struct SQLiteChangeTokenTests {
    @Test func theTokenMovesForAnotherProcesssCommitsOnly() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("flint-token-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let node = try SQLiteDatabase(path: path)
        let other = try SQLiteDatabase(path: path)
        try await node.query("CREATE TABLE notes (id INTEGER PRIMARY KEY)", [])

        /// The tokens of many callers at once, so that several watchers answer.
        func tokens() async throws -> Set<Int64?> {
            try await withThrowingTaskGroup(of: Int64?.self) { group in
                for _ in 0..<64 { group.addTask { try await node.externalChangeToken() } }
                return try await group.reduce(into: []) { $0.insert($1) }
            }
        }
        let first = try await tokens()
        #expect(first.count == 1 && first.first! != nil)
        for id in 0..<20 { try await node.query("INSERT INTO notes (id) VALUES (?)", [.int(Int64(id))]) }
        #expect(try await tokens() == first, "the node's own commits moved its token")

        try await other.query("INSERT INTO notes (id) VALUES (100)", [])
        let moved = try await tokens()
        #expect(moved.count == 1 && moved != first, "another process's commit left the token at \(moved)")
        try await node.query("INSERT INTO notes (id) VALUES (101)", [])
        #expect(try await tokens() == moved)
        try await other.close()
        try await node.close()
    }
}
