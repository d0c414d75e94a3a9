import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// The cache generation (see `CacheGeneration`) kept in memory on PostgreSQL, so a request need not read it with a
/// query: one connection of its own, outside the pool, LISTENs on `channel`, and every transaction that moves the
/// generation sends the new value there (`pg_notify`, delivered at its commit).
///
/// The listener vouches for the value it holds (`generation()` is non-nil) only while its connection is up and has
/// read the generation since it LISTENed, and only once it has seen every generation this node committed. Otherwise
/// callers read the generation from the database, as on every request before: when the connection drops, until it
/// is made again (a second later, then every `reconnectDelay`); when a health check every `checkInterval` gets no
/// answer within `checkTimeout` (a connection that died silently), until one is made again.
///
/// The guarantee across nodes: a node that commits a new generation waits (at most `commitWait`) until its own
/// listener has been notified before it answers. PostgreSQL signals every listening session at the commit, so by
/// then the other nodes' listeners have been sent the notification too, and a client that got the writing node's
/// answer finds another node notified in practice. It is not a proof: a node whose event loop stalls between
/// receiving the notification and reading it could answer one request with the generation before. The node that
/// wrote never does (it falls back to queries until its listener has seen its own commit).
final class PostgresGenerationListener: Sendable {
    static let channel = "flint_cache_generation"
    static let reconnectDelay = Duration.seconds(1)
    static let checkInterval = Duration.seconds(10)
    static let checkTimeout = Duration.seconds(5)
    static let commitWait = Duration.seconds(2)

    /// What the listener knows, and the tasks waiting for it to change.
    struct State: Sendable {
        /// The connection is listening and the generation was read after the LISTEN.
        var live = false
        /// The newest generation read or notified.
        var seen: Int64 = .min
        /// The newest generation this node committed.
        var committed: Int64 = .min
        /// The listening session's process id on the server (for tests, which end it).
        var backendPID: Int64?
        fileprivate var waiters: [Int: (condition: @Sendable (State) -> Bool, continuation: CheckedContinuation<Void, Never>)] = [:]
        fileprivate var nextWaiter = 0
    }

    private let state = NIOLockedValueBox(State())
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)
    private let connect: @Sendable () async throws -> PostgresConnection
    private let logger: Logger

    /// `connect` makes the listening connection (again after each drop).
    init(logger: Logger, connect: @escaping @Sendable () async throws -> PostgresConnection) {
        self.connect = connect
        self.logger = logger
    }

    /// The cache generation when the listener vouches for it, else nil (read it from the database). The first call
    /// starts the listener: a process that never asks (the CLI, a database for administration) opens no connection.
    func generation() -> Int64? {
        let known = state.withLockedValue { $0.live && $0.seen >= $0.committed ? $0.seen : nil }
        if known == nil { start() }
        return known
    }

    /// Notes that this node committed `generation` and waits (at most `commitWait`) until the listener has seen it
    /// or is down. Until it has seen it, `generation()` answers nil, so this node never serves an older one.
    func committed(_ generation: Int64) async {
        let live = state.withLockedValue { state in
            state.committed = max(state.committed, generation)
            return state.live
        }
        guard live else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.wait { !$0.live || $0.seen >= generation } }
            group.addTask { try? await Task.sleep(for: Self.commitWait) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Waits until `condition` holds for the listener's state (or the task is cancelled).
    func wait(until condition: @escaping @Sendable (State) -> Bool) async {
        let id = state.withLockedValue { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLockedValue { state -> Bool in
                    if condition(state) || Task.isCancelled { return true }
                    state.waiters[id] = (condition, continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLockedValue { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
        }
    }

    /// The listener's state now (for tests).
    var current: State { state.withLockedValue { $0 } }

    func stop() async {
        let running = task.withLockedValue { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        running?.cancel()
        await running?.value
    }

    private func start() {
        task.withLockedValue { task in
            guard task == nil else { return }
            task = Task { await run() }
        }
    }

    private func update(_ change: (inout State) -> Void) {
        let ready = state.withLockedValue { state in
            change(&state)
            let ready = state.waiters.filter { $0.value.condition(state) }
            for id in ready.keys { state.waiters.removeValue(forKey: id) }
            return ready.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    private func run() async {
        while !Task.isCancelled {
            do {
                let connection = try await connect()
                do {
                    try await listen(on: connection)
                } catch {
                    try? await connection.close()
                    throw error
                }
            } catch {
                if !Task.isCancelled {
                    logger.warning("cache generation listener: \(PostgresDatabase.explanation(of: error)); reading it per request until it reconnects")
                }
            }
            update { $0.live = false; $0.backendPID = nil }
            try? await Task.sleep(for: Self.reconnectDelay)
        }
    }

    /// LISTENs, reads the generation (after the LISTEN, so no commit falls between the two), then follows the
    /// notifications and checks the connection every `checkInterval`; throws when the connection fails.
    private func listen(on connection: PostgresConnection) async throws {
        try await connection.listen(on: Self.channel) { notifications in
            let (generation, pid) = try await Self.read(connection, logger: logger)
            update { state in
                state.seen = max(state.seen, generation)
                state.backendPID = pid
                state.live = true
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for try await notification in notifications {
                        guard let generation = Int64(notification.payload) else { continue }
                        self.update { $0.seen = max($0.seen, generation) }
                    }
                    throw ListenerError.notificationsEnded
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: Self.checkInterval)
                        let generation = try await self.check(connection)
                        self.update { $0.seen = max($0.seen, generation) }
                    }
                }
                try await group.next()
            }
        }
    }

    /// Reads the generation; closes the connection and fails when the server does not answer within `checkTimeout`
    /// (a query waits for its answer however long; closing the connection ends it).
    private func check(_ connection: PostgresConnection) async throws -> Int64 {
        try await withThrowingTaskGroup(of: Int64.self) { group in
            group.addTask { try await Self.read(connection, logger: self.logger).generation }
            group.addTask {
                try await Task.sleep(for: Self.checkTimeout)
                try? await connection.close()
                throw ListenerError.checkTimedOut
            }
            defer { group.cancelAll() }
            guard let generation = try await group.next() else { throw ListenerError.checkTimedOut }
            return generation
        }
    }

    private static func read(_ connection: PostgresConnection, logger: Logger) async throws -> (generation: Int64, pid: Int64) {
        let rows = try await connection.rows("SELECT value, pg_backend_pid() AS pid FROM cache_generation WHERE id = 1", logger: logger)
        return (rows.first?.int("value") ?? 0, rows.first?.int("pid") ?? 0)
    }

    enum ListenerError: Error {
        case notificationsEnded
        case checkTimedOut
    }
}
