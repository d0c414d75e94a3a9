@testable import FlintServer
import FlintTestSupport
import FlintWire
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

/// `flint backup` and `flint restore`: consistent copies of a live SQLite store.
@Suite struct BackupTests {
    /// Sign-ups run in parallel while the copy is taken; every one acknowledged before the copy began is in it,
    /// and the copy is a whole store.
    @Test func backupUnderWriteLoadKeepsEveryAcknowledgedWrite() async throws {
        let scratch = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        try await withServer { server, client in
            let copy = scratch.appendingPathComponent("copy.sqlite").path
            let acknowledged = NIOLockedValueBox<[String]>([])
            let done = NIOLockedValueBox(false)
            let (progress, report) = AsyncStream<Int>.makeStream()
            let beforeCopy = try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        // Until the copy is done; at most 150 sign-ups each.
                        for _ in 0..<150 where !done.withLockedValue({ $0 }) {
                            guard let id = try await client.signUp().string("localId") else { continue }
                            report.yield(acknowledged.withLockedValue { $0.append(id); return $0.count })
                        }
                    }
                }
                for await count in progress where count >= 40 { break }
                let before = Set(acknowledged.withLockedValue { $0 })
                try SQLiteBackup.copy(from: SQLiteBackup.storePath(in: server.database.dataDirectory), to: copy)
                done.withLockedValue { $0 = true }
                try await group.waitForAll()
                return before
            }
            #expect(beforeCopy.count >= 40)
            let copied = Store(database: try SQLiteDatabase(path: copy))
            for id in beforeCopy {
                #expect(try await copied.accounts.user(projectID: server.projectID, localID: id) != nil, "\(id) is missing from the copy")
            }
            try await copied.close()
            // A backup never overwrites a file.
            #expect(throws: SQLiteBackup.Failure.self) {
                try SQLiteBackup.copy(from: SQLiteBackup.storePath(in: server.database.dataDirectory), to: copy)
            }
        }
    }

    @Test func restoreWaitsForNoServerAndChecksTheCopy() async throws {
        let scratch = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let original = scratch.appendingPathComponent("original")
        let store = try await Store.open(databaseURL: nil, dataDirectory: original, logger: Logger(label: "test"))
        try await store.accounts.createUser(UserAccount(projectID: "demo", localID: "ada", createdAt: 0))
        try await store.close()
        let backup = scratch.appendingPathComponent("backup.sqlite").path
        try SQLiteBackup.copy(from: SQLiteBackup.storePath(in: original), to: backup)

        // Refused while a server holds the data directory.
        let target = scratch.appendingPathComponent("target")
        let serving = try DataDirectoryLock(target, purpose: "serve")
        #expect(throws: SQLiteBackup.Failure.self) { try SQLiteBackup.restore(backup, into: target) }
        serving.release()

        // A file that is not a Flint store is refused, and the store stays as it was.
        let garbage = scratch.appendingPathComponent("garbage.sqlite").path
        try Data(repeating: 7, count: 8192).write(to: URL(fileURLWithPath: garbage))
        #expect(throws: SQLiteBackup.Failure.self) { try SQLiteBackup.restore(garbage, into: target) }
        #expect(!FileManager.default.fileExists(atPath: SQLiteBackup.storePath(in: target)))

        try SQLiteBackup.restore(backup, into: target)
        let restored = try await Store.open(databaseURL: nil, dataDirectory: target, logger: Logger(label: "test"))
        #expect(try await restored.accounts.user(projectID: "demo", localID: "ada") != nil)
        try await restored.close()
    }

    private static func scratchDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flint-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}
