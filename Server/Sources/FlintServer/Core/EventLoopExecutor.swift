import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Where Swift concurrency runs the server's tasks. By default it has its own pool of threads, one per core, beside
/// NIO's event loops, one per core too: every request then hops from an event loop to a pool thread and back, and a
/// short request pays more for those hops (context switches, wake-ups, kernel time) than for its own work (issue 47,
/// BENCHMARKS.md). With the event loops as concurrency's global executor, a request's task runs on a loop.
///
/// NIO's hook keeps a task on the loop that made it, and Hummingbird makes every connection's task on its accept loop:
/// so each connection's task prefers its own connection's loop instead (`ConnectionLoopChannel`), and the work spreads
/// over the loops as the connections do. RS256 signatures run on `signingThreads`, one thread per core, so that a
/// signature does not hold up every other connection of its loop. Password hashing runs on NIO's thread pool as
/// before, and a SQLite statement blocks the loop's thread just as it blocked a pool thread.
///
/// The hook is process-wide, so this is too: it is set once, by `main`, and only read afterwards.
public enum EventLoopExecutor {
    /// `FLINT_EXECUTOR`: `event-loops` (the default), or `swift` (Swift's own pool: how Flint ran before, kept for
    /// comparison and as a way out).
    public static let environmentVariable = "FLINT_EXECUTOR"

    private static let installed = NIOLockedValueBox(false)

    /// Makes the event loops concurrency's global executor unless the environment says `swift`. Call it first thing in
    /// `main`, on the main thread, once, before any task is made. Returns whether the loops now run the tasks.
    @discardableResult
    public static func install(environment: [String: String]) -> Bool {
        guard environment[environmentVariable] != "swift",
              NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        else { return false }
        installed.withLockedValue { $0 = true }
        return true
    }

    /// The threads RS256 signatures run on: one per core while the loops run the tasks, nil (sign on the asking task)
    /// otherwise.
    public static var signingThreads: NIOThreadPool? {
        runsTasks ? sharedSigningThreads : nil
    }

    /// Whether the event loops run the tasks (`install` succeeded).
    static var runsTasks: Bool { installed.withLockedValue { $0 } }

    private static let sharedSigningThreads: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: System.coreCount)
        pool.start()
        return pool
    }()
}

/// Runs Swift concurrency's jobs on one event loop (NIO's loops are not task executors themselves).
final class EventLoopTaskExecutor: TaskExecutor {
    private let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
