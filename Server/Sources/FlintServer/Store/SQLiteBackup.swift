import CSQLite
import Foundation

/// Consistent copies of the embedded SQLite store, with SQLite's online backup API: `flint backup` takes one
/// while a server serves writes (in WAL mode the copy reads one snapshot and writers go on), `flint restore`
/// puts one in place while no server holds the store. The master key is not in a copy: it stays in its own
/// file, to be kept apart from the backups.
public enum SQLiteBackup {
    /// What goes wrong, in words for an operator.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The store's file in `dataDirectory`.
    public static func storePath(in dataDirectory: URL) -> String {
        dataDirectory.appendingPathComponent(Store.sqliteFileName).path
    }

    /// Copies the store at `source` into the new file `destination`, which must not exist yet.
    public static func copy(from source: String, to destination: String) throws {
        guard FileManager.default.fileExists(atPath: source) else { throw Failure(description: "no store at \(source)") }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw Failure(description: "\(destination) exists; a backup never overwrites a file")
        }
        do {
            try transfer(from: source, to: destination)
        } catch {
            try? FileManager.default.removeItem(atPath: destination)
            throw error
        }
    }

    /// Replaces the store in `dataDirectory` with the copy at `backup`, after checking that the copy is whole
    /// and is a Flint store. Refused while a server holds the data directory (`DataDirectoryLock`).
    public static func restore(_ backup: String, into dataDirectory: URL) throws {
        let lock = try DataDirectoryLock(dataDirectory, purpose: "restore")
        defer { lock.release() }
        try check(backup)
        try transfer(from: backup, to: storePath(in: dataDirectory))
    }

    /// The copy passes SQLite's integrity check and has Flint's schema.
    private static func check(_ path: String) throws {
        let database = try open(path, readOnly: true)
        defer { sqlite3_close(database) }
        guard try text(database, "PRAGMA integrity_check") == "ok" else {
            throw Failure(description: "\(path) is damaged (SQLite's integrity check fails)")
        }
        guard (try? text(database, "SELECT MAX(version) FROM schema_migrations")) != nil else {
            throw Failure(description: "\(path) is not a Flint store")
        }
    }

    /// Copies every page of `source` into `destination` in one step, so the copy is one snapshot.
    private static func transfer(from source: String, to destination: String) throws {
        let from = try open(source, readOnly: true)
        defer { sqlite3_close(from) }
        let to = try open(destination, readOnly: false)
        defer { sqlite3_close(to) }
        guard let backup = sqlite3_backup_init(to, "main", from, "main") else { throw failure(to, "cannot start the copy") }
        var status: Int32
        repeat {
            status = sqlite3_backup_step(backup, -1)
            // Another connection holds a lock for a moment (a writer's checkpoint): try again shortly.
            if status == SQLITE_BUSY || status == SQLITE_LOCKED { usleep(10_000) }
        } while status == SQLITE_OK || status == SQLITE_BUSY || status == SQLITE_LOCKED
        let finished = sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE, finished == SQLITE_OK else { throw failure(to, "the copy failed") }
    }

    private static func open(_ path: String, readOnly: Bool) throws -> OpaquePointer {
        var database: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        SQLiteLibrary.configure()
        guard sqlite3_open_v2(path, &database, flags, nil) == SQLITE_OK, let database else {
            defer { sqlite3_close(database) }
            throw failure(database, "cannot open \(path)")
        }
        sqlite3_busy_timeout(database, 10_000)
        return database
    }

    /// The first column of the first row of `sql`.
    private static func text(_ database: OpaquePointer, _ sql: String) throws -> String? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else { throw failure(database, sql) }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let value = sqlite3_column_text(statement, 0) else { return nil }
        return String(cString: value)
    }

    private static func failure(_ database: OpaquePointer?, _ what: String) -> Failure {
        Failure(description: "\(what): \(database.map { String(cString: sqlite3_errmsg($0)) } ?? "SQLite failed")")
    }
}

/// An exclusive lock on a data directory (`flint.lock`, `flock`): `flint serve` holds it while it runs, so a
/// second server or a restore on the same store is refused instead of corrupting it. The kernel releases it
/// when the process ends, however it ends.
public final class DataDirectoryLock: Sendable {
    private let descriptor: Int32

    public init(_ dataDirectory: URL, purpose: String) throws {
        try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        let path = dataDirectory.appendingPathComponent("flint.lock").path
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw SQLiteBackup.Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw SQLiteBackup.Failure(description: "cannot \(purpose): a flint server is using \(dataDirectory.path)")
        }
    }

    public func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
