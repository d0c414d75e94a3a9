import CSQLite
import Foundation

/// Moves SQLite's write-ahead log into the database file on a thread of its own, so no commit pays for it.
///
/// By default SQLite checkpoints inside the commit that takes the log past 1000 pages: that commit keeps the
/// writer (every other write waits for it) while pages are copied and the file is synced, and it does so on one of
/// Swift's few concurrency threads (two on these machines). Here the writer's auto-checkpoint is off; its WAL hook,
/// which SQLite calls after each commit with the log's size, wakes this thread once the log passes `thresholdPages`,
/// and a PASSIVE checkpoint on the thread's own connection copies back what no reader still needs while writers go
/// on.
///
/// The log restarts from its beginning only after a checkpoint that caught up with its end, which a checkpoint
/// running beside a busy writer never does. So once the log passes `catchUpPages`, the committing writer itself
/// runs a RESTART checkpoint (as SQLite would have run one) — cheap by then, since the thread has copied nearly every
/// page — and the log restarts: it stays within about `catchUpPages`.
///
/// SQLite refuses a second checkpoint at once, without a busy wait, while one runs. A writer faster than the thread's
/// checkpoint (a slow or loaded disk) would meet it at every commit and the log would grow without end; so past
/// `ceilingPages` the committing writer waits for the thread's checkpoint to end and then restarts the log — the
/// back-pressure SQLite's own inline checkpoints give.
final class SQLiteCheckpointer: @unchecked Sendable {
    // @unchecked: `wanted`, `checkpointing` and `stopping` are only touched under `condition`; the connection only on
    // the thread.
    /// Log size (pages) that wakes the checkpointer: SQLite's own default threshold.
    static let thresholdPages: Int32 = 1000
    /// Log size (pages) at which the writer finishes the checkpoint itself, so the log can restart.
    static let catchUpPages: Int32 = 2 * thresholdPages
    /// Log size (pages) past which the writer waits for a running checkpoint rather than go on.
    static let ceilingPages: Int32 = 2 * catchUpPages

    private let connection: SQLiteDatabase.Connection
    private let condition = NSCondition()
    private var wanted = false
    private var checkpointing = false
    private var stopping = false
    private let stopped = DispatchSemaphore(value: 0)

    init(path: String) throws {
        connection = try SQLiteDatabase.Connection(path: path)
        let thread = Thread { [self] in run() }
        thread.name = "flint-sqlite-checkpoint"
        thread.start()
    }

    /// Turns off `writer`'s own checkpoints and has its commits wake this checkpointer instead.
    func take(over writer: SQLiteDatabase.Connection) throws {
        try writer.run("PRAGMA wal_autocheckpoint=0")
        writer.setWALHook(context: Unmanaged.passUnretained(self).toOpaque()) { context, connection, database, pages in
            if pages >= SQLiteCheckpointer.catchUpPages {
                // RESTART waits (the busy timeout) for readers of older snapshots, so the next commit starts the log
                // over. It fails at once while the thread checkpoints: the next commit tries again, or past the
                // ceiling this one waits for the thread and tries once more.
                let result = sqlite3_wal_checkpoint_v2(connection, database, SQLITE_CHECKPOINT_RESTART, nil, nil)
                if result == SQLITE_BUSY, pages >= SQLiteCheckpointer.ceilingPages, let context {
                    Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue().waitUntilIdle()
                    sqlite3_wal_checkpoint_v2(connection, database, SQLITE_CHECKPOINT_RESTART, nil, nil)
                }
            } else if pages >= SQLiteCheckpointer.thresholdPages, let context {
                Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue().wake()
            }
            return SQLITE_OK
        }
    }

    /// Stops the thread (after a last checkpoint, so the log is folded back at a clean shutdown) and closes its
    /// connection. Call after the writer is closed: its hook points here. Only the first call waits.
    func stop() {
        let first = condition.withLock {
            defer { stopping = true }
            condition.broadcast()
            return !stopping
        }
        if first { stopped.wait() }
    }

    /// Waits for the thread's running checkpoint, if any, and keeps it from starting another until the caller's own
    /// checkpoint (which copies what a new one would) has begun.
    private func waitUntilIdle() {
        condition.withLock {
            while checkpointing { condition.wait() }
            wanted = false
        }
    }

    private func wake() {
        condition.withLock {
            wanted = true
            condition.broadcast()
        }
    }

    private func run() {
        while true {
            let stop = condition.withLock {
                while !wanted && !stopping { condition.wait() }
                wanted = false
                checkpointing = true
                return stopping
            }
            // A busy database (another process's checkpoint) only postpones this one to the next wake.
            try? connection.run("PRAGMA wal_checkpoint(PASSIVE)")
            condition.withLock {
                checkpointing = false
                condition.broadcast()
            }
            if stop { break }
        }
        connection.close()
        stopped.signal()
    }
}
