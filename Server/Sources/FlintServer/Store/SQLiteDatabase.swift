import CSQLite
import Foundation
import NIOConcurrencyHelpers

/// Embedded SQLite (WAL): one writer connection and a few reader connections, each used by one
/// task at a time. Statements are prepared once per connection and cached.
///
/// Writes share commits (group commit). A commit writes every B-tree page the transaction touched to the log, and
/// concurrent transactions touch many of the same pages (the newest leaf of each time-ordered index, a budget's
/// row, the audit trail's sequence), so committing them one by one writes those pages again and again. A transaction
/// that ends while other writers queue for the connection therefore leaves its work in the open transaction, kept
/// apart by a savepoint (its failure undoes only its own work), hands the connection to the next writer and waits; the
/// last of the group, or the `maximumBatch`-th, commits for all. Nobody's `transaction` returns before its commit.
public final class SQLiteDatabase: SQLDatabase {
    /// The most transactions one commit holds: the first of a group waits for the others' work before its answer.
    static let maximumBatch = 32

    private let writer: Connection
    /// The transactions whose work is in the writer's open transaction, waiting for its commit. Only changed by the
    /// holder of the writer's lock.
    private let batch = NIOLockedValueBox(OpenBatch())
    private let readers: [Connection]
    private let nextReader = NIOLockedValueBox(0)
    /// Connections that only ever read `PRAGMA data_version` (see `externalChangeToken`), one per core. Every request
    /// asks, from every event loop at once: with one watcher the loops queued for its lock, which made most of a
    /// lookup's futex calls (issue 47). A caller takes a free one.
    private let watchers: [Watcher]
    private let checkpointer: SQLiteCheckpointer
    private let changes: NIOLockedValueBox<ExternalChanges>

    /// The writer's open transaction, if any, and who waits for its commit; how many commits there were.
    private struct OpenBatch {
        var isOpen = false
        var waiting: [CheckedContinuation<Void, any Error>] = []
        var commits = 0
    }

    /// How many commits the writer made (a group's counts once).
    var commits: Int { batch.withLockedValue { $0.commits } }
    /// How many writers queue for the connection.
    var queuedWriters: Int { writer.lock.waiterCount }

    /// What `externalChangeToken` has seen: each connection's `data_version` (one connection's are not comparable
    /// with another's), and the token it hands out.
    private struct ExternalChanges {
        var watcherVersions: [Int64]
        var writerVersion: Int64 = .min
        var token: Int64 = 0
    }

    /// A watcher connection under a plain lock, held for microseconds.
    private final class Watcher: Sendable {
        private let connection: Connection
        private let lock = NSLock()

        init(path: String) throws { connection = try Connection(path: path) }

        func version() throws -> Int64 {
            lock.lock()
            defer { lock.unlock() }
            return try connection.dataVersion()
        }

        /// The version, unless another caller holds this watcher.
        func versionIfFree() throws -> Int64? {
            guard lock.try() else { return nil }
            defer { lock.unlock() }
            return try connection.dataVersion()
        }

        func close() {
            lock.lock()
            defer { lock.unlock() }
            connection.close()
        }
    }

    public let migrationLockStatement: String? = nil
    public let rowLockClause: String? = nil

    /// Opens (creating if needed) the database file at `path`.
    public init(path: String, readerCount: Int = 4) throws {
        writer = try Connection(path: path)
        // WAL lets readers run while the writer commits; NORMAL is durable across crashes of
        // the process (not of the OS), the usual choice for WAL.
        try writer.run("PRAGMA journal_mode=WAL")
        try writer.run("PRAGMA synchronous=NORMAL")
        checkpointer = try SQLiteCheckpointer(path: path)
        try checkpointer.take(over: writer)
        readers = try (0..<max(1, readerCount)).map { _ in try Connection(path: path) }
        watchers = try (0..<max(1, ProcessInfo.processInfo.activeProcessorCount)).map { _ in try Watcher(path: path) }
        changes = NIOLockedValueBox(ExternalChanges(watcherVersions: Array(repeating: .min, count: watchers.count)))
    }

    /// SQLite's `PRAGMA data_version` changes on a connection when any *other* connection commits. A
    /// watcher's moves with every commit, this process's too, and costs no wait. The writer's moves for
    /// other processes' commits alone (every write of this process goes through it), so the writer notes
    /// every watcher's and its own after each of its own commits, and a watcher's is compared with its note. The
    /// token moves exactly when another process (another node on this file, or the `flint` CLI) committed.
    public func externalChangeToken() async throws -> Int64? {
        let (index, watched) = try readWatcher()
        if let token = changes.withLockedValue({ $0.watcherVersions[index] == watched ? $0.token : nil }) { return token }
        // Moved: another process committed, or one of ours is between its commit and its note.
        await writer.lock.lock()
        defer { writer.lock.unlock() }
        try commitBatch()
        try noteOwnCommit()
        return changes.withLockedValue { $0.token }
    }

    /// Nothing to send: other processes notice the commit through their change token.
    public func announceCacheGeneration(_ generation: Int64, in transaction: any SQLExecutor) async throws {}

    public func cacheGenerationCommitted(_ generation: Int64) async {}

    /// A free watcher and its version, else the first's once it is free.
    private func readWatcher() throws -> (index: Int, version: Int64) {
        for (index, watcher) in watchers.enumerated() {
            if let version = try watcher.versionIfFree() { return (index, version) }
        }
        return (0, try watchers[0].version())
    }

    /// Called with the writer held, after a commit of ours or to look: the watchers' versions first, then the
    /// writer's (which another process's commit in between also moves, so none slips through).
    private func noteOwnCommit() throws {
        let watched = try watchers.map { try $0.version() }
        let written = try writer.dataVersion()
        changes.withLockedValue { changes in
            if changes.writerVersion != written {
                changes.writerVersion = written
                changes.token += 1
            }
            changes.watcherVersions = watched
        }
    }

    @discardableResult
    public func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        if Self.isRead(sql) {
            let reader = pickReader()
            return try await reader.lock.withLock { try reader.execute(sql, binds) }
        }
        return try await transaction { try await $0.query(sql, binds) }
    }

    public func transaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        await writer.lock.lock()
        let outcome: Result<T, any Error>
        do {
            try joinBatch()
            do {
                let value = try await body(TransactionExecutor(connection: writer))
                try writer.execute("RELEASE flint_transaction", [])
                outcome = .success(value)
            } catch {
                undoOwnWork()
                outcome = .failure(error)
            }
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let value):
            try await endTurn(awaitingCommit: true)
            return value
        case .failure(let error):
            // Nothing of this transaction's is left to commit, so it need not wait for the others'.
            try? await endTurn(awaitingCommit: false)
            throw error
        }
    }

    /// Starts this transaction's part of the open batch (opening one if none is), with the writer held.
    private func joinBatch() throws {
        let open = batch.withLockedValue { $0.isOpen }
        if open != writer.inTransaction {
            // A commit or rollback that failed half-way: start over, failing whoever waited for it.
            abandonBatch(SQLError.failure("SQLite ended the shared transaction"))
        }
        if !writer.inTransaction {
            // IMMEDIATE takes the write lock up front, so two nodes on one file never deadlock upgrading read locks.
            try writer.execute("BEGIN IMMEDIATE", [])
            batch.withLockedValue { $0.isOpen = true }
        }
        try writer.execute("SAVEPOINT flint_transaction", [])
    }

    /// Undoes the failed transaction's own work and nothing else; if SQLite rolled the whole transaction back (an I/O
    /// error, a full disk), the batch's waiting transactions are told they failed.
    private func undoOwnWork() {
        guard writer.inTransaction else {
            return abandonBatch(SQLError.failure("SQLite rolled back the shared transaction"))
        }
        do {
            try writer.execute("ROLLBACK TO flint_transaction", [])
            try writer.execute("RELEASE flint_transaction", [])
        } catch {
            abandonBatch(error)
        }
    }

    /// Ends the holder's turn with the writer: hands the open batch to the next queued writer (waiting for the
    /// commit if `awaitingCommit`), or commits it when nobody queues or the batch is full. Releases the writer.
    private func endTurn(awaitingCommit: Bool) async throws {
        let handOver = batch.withLockedValue { $0.isOpen && $0.waiting.count + 1 < Self.maximumBatch }
            && writer.lock.waiterCount > 0
        guard handOver else {
            defer { writer.lock.unlock() }
            return try commitBatch()
        }
        guard awaitingCommit else { return writer.lock.unlock() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            batch.withLockedValue { $0.waiting.append(continuation) }
            writer.lock.unlock()
        }
    }

    /// Commits the open batch, if any, and tells the transactions waiting for it; with the writer held.
    private func commitBatch() throws {
        let waiting = batch.withLockedValue { batch -> [CheckedContinuation<Void, any Error>]? in
            guard batch.isOpen else { return nil }
            defer { (batch.isOpen, batch.waiting, batch.commits) = (false, [], batch.commits + 1) }
            return batch.waiting
        }
        guard let waiting else { return }
        do {
            try writer.execute("COMMIT", [])
        } catch {
            if writer.inTransaction { try? writer.run("ROLLBACK") }
            for transaction in waiting { transaction.resume(throwing: error) }
            throw error
        }
        for transaction in waiting { transaction.resume() }
        try noteOwnCommit()
    }

    /// Rolls the open batch back (if SQLite has not) and fails every transaction waiting for it; with the writer held.
    private func abandonBatch(_ error: any Error) {
        if writer.inTransaction { try? writer.run("ROLLBACK") }
        let waiting = batch.withLockedValue { batch in
            defer { (batch.isOpen, batch.waiting) = (false, []) }
            return batch.waiting
        }
        for transaction in waiting { transaction.resume(throwing: error) }
    }

    /// A database dropped without `close` still stops its checkpointer's thread.
    deinit { checkpointer.stop() }

    public func close() async throws {
        for watcher in watchers { watcher.close() }
        await writer.lock.withLock {
            try? commitBatch()
            writer.close()
        }
        for connection in readers {
            await connection.lock.withLock { connection.close() }
        }
        checkpointer.stop()
    }

    private func pickReader() -> Connection {
        let index = nextReader.withLockedValue { value -> Int in
            value = (value + 1) % readers.count
            return value
        }
        return readers[index]
    }

    private static func isRead(_ sql: String) -> Bool {
        sql.prefix(6).uppercased() == "SELECT"
    }

    /// Runs statements on the writer connection that the enclosing transaction already holds.
    private struct TransactionExecutor: SQLExecutor {
        let connection: Connection

        @discardableResult
        func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
            try connection.execute(sql, binds)
        }
    }

    /// One SQLite connection with its statement cache. Only used while holding `lock`.
    final class Connection: @unchecked Sendable {
        let lock = AsyncLock()
        private var handle: OpaquePointer?
        /// Prepared statements by SQL text, with their column index.
        private var statements: [String: (statement: OpaquePointer, columns: [String: Int])] = [:]

        init(path: String) throws {
            SQLiteLibrary.configure()
            let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
            guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK else {
                let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
                sqlite3_close(handle)
                throw SQLError.failure("SQLite: \(message)")
            }
            sqlite3_busy_timeout(handle, 10_000)
            try run("PRAGMA foreign_keys=ON")
        }

        /// Whether a transaction is open (SQLite is out of autocommit mode).
        var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

        func run(_ sql: String) throws {
            guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw lastError() }
        }

        @discardableResult
        func execute(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow] {
            let prepared = try self.prepared(sql)
            let statement = prepared.statement
            defer {
                sqlite3_reset(statement)
                sqlite3_clear_bindings(statement)
            }
            for (offset, value) in binds.enumerated() {
                let index = Int32(offset + 1)
                let status: Int32
                switch value {
                case .null: status = sqlite3_bind_null(statement, index)
                case .int(let number): status = sqlite3_bind_int64(statement, index, number)
                case .text(let text): status = sqlite3_bind_text(statement, index, text, -1, sqliteTransient)
                }
                guard status == SQLITE_OK else { throw lastError() }
            }
            var rows: [SQLRow] = []
            let columnCount = sqlite3_column_count(statement)
            while true {
                let status = sqlite3_step(statement)
                if status == SQLITE_DONE { break }
                guard status == SQLITE_ROW else { throw lastError() }
                var values: [SQLValue] = []
                values.reserveCapacity(Int(columnCount))
                for column in 0..<columnCount {
                    switch sqlite3_column_type(statement, column) {
                    case SQLITE_NULL: values.append(.null)
                    case SQLITE_INTEGER: values.append(.int(sqlite3_column_int64(statement, column)))
                    default: values.append(.text(String(cString: sqlite3_column_text(statement, column))))
                    }
                }
                rows.append(SQLRow(index: prepared.columns, values: values))
            }
            return rows
        }

        /// Has SQLite call `hook` with `context` after each commit on this connection (with the log's size in pages).
        func setWALHook(
            context: UnsafeMutableRawPointer,
            _ hook: @escaping @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32
        ) {
            sqlite3_wal_hook(handle, hook, context)
        }

        /// `PRAGMA data_version` of this connection.
        func dataVersion() throws -> Int64 {
            try execute("PRAGMA data_version", []).first?.int("data_version") ?? 0
        }

        func close() {
            for prepared in statements.values { sqlite3_finalize(prepared.statement) }
            statements = [:]
            sqlite3_close(handle)
            handle = nil
        }

        private func prepared(_ sql: String) throws -> (statement: OpaquePointer, columns: [String: Int]) {
            if let prepared = statements[sql] { return prepared }
            var statement: OpaquePointer?
            guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
                  let statement
            else { throw lastError() }
            var columns: [String: Int] = [:]
            for column in 0..<sqlite3_column_count(statement) {
                columns[String(cString: sqlite3_column_name(statement, column))] = Int(column)
            }
            statements[sql] = (statement, columns)
            return (statement, columns)
        }

        private func lastError() -> SQLError {
            let message = String(cString: sqlite3_errmsg(handle))
            let extended = sqlite3_extended_errcode(handle)
            if extended == constraintUnique || extended == constraintPrimaryKey {
                return .uniqueViolation(detail: message)
            }
            return .failure("SQLite: \(message)")
        }
    }
}

/// SQLite's "copy this text now" destructor marker, which the C macro `SQLITE_TRANSIENT` spells as -1.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

// Extended result codes, which the C header defines as macros Swift does not import.
private let constraintUnique = SQLITE_CONSTRAINT | (8 << 8)
private let constraintPrimaryKey = SQLITE_CONSTRAINT | (6 << 8)

/// The SQLite library's process-wide settings, applied before the first connection opens (SQLite takes them only
/// before it initializes; later calls change nothing).
///
/// Memory statistics are off. With them on, SQLite's default, every allocation and free takes one process-wide mutex,
/// and Debian's build (without lookaside memory) allocates for most steps of a statement: connections used at once
/// from several threads (one per event loop) queued for that mutex. Flint reads no SQLite memory statistics.
enum SQLiteLibrary {
    static func configure() { _ = configured }

    private static let configured: Void = {
        _ = flint_sqlite3_config_int(SQLITE_CONFIG_MEMSTATUS, 0)
    }()
}
