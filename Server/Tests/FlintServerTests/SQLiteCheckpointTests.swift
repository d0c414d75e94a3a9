@testable import FlintServer
import Foundation
import Testing

/// The write-ahead log is folded back into the database file while the database is open, and stays within about
/// `SQLiteCheckpointer.catchUpPages` however much is written.
@Suite struct SQLiteCheckpointTests {
    @Test func theLogIsCheckpointedInTheBackground() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flint-checkpoint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("test.sqlite").path
        let database = try SQLiteDatabase(path: path)
        try await database.query("CREATE TABLE filler (id INTEGER PRIMARY KEY, text TEXT NOT NULL)", [])
        // About 9000 pages of 4 KiB (36 MB): four and a half times the catch-up size. Without checkpoints the log would hold all
        // of it; with the background ones alone it would never restart, beside a writer that never pauses.
        let text = String(repeating: "x", count: 4000)
        for id in 0..<9000 {
            try await database.query("INSERT INTO filler (id, text) VALUES (?, ?)", [.int(Int64(id)), .text(text)])
        }
        func size(_ file: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int) ?? 0 }
        // The last checkpoint may still be running: wait for the main file to hold most of the data (bounded).
        for _ in 0..<200 where size(path) < 24_000_000 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(size(path) >= 24_000_000, "the data did not reach the database file while it was open")
        // The log's file keeps its largest size. Past `ceilingPages` a commit waits for the thread's checkpoint and
        // restarts the log, however slow the disk: a log that never restarted would hold all 36 MB.
        let ceiling = Int(SQLiteCheckpointer.ceilingPages) * (4096 + 24) + 32 + 8 * (4096 + 24)
        #expect(size(path + "-wal") <= ceiling, "the log grew to \(size(path + "-wal")) bytes")
        #expect(try await database.query("SELECT COUNT(*) AS n FROM filler", []).first?.int("n") == 9000)
        try await database.close()
    }
}
