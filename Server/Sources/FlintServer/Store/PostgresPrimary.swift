import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// The connection pool to the server Flint uses among the URL's hosts, moved to another host when the one in use
/// stops being the target (libpq's `target_session_attrs`; see `PostgresURL`): a failover, such as Patroni's.
///
/// With one host and `target_session_attrs=any` (the default) this is one pool for the life of the process, as
/// before. Otherwise the hosts are probed at start-up, and again whenever a query fails in a way that means its
/// server stopped serving (`isOutage`: the connection closed or could not be made, the server is shutting down, or it
/// refused a write because it is read-only — a primary turned standby). Then:
/// - the pool is shut down at once: queries waiting in it fail, and new ones fail fast with `SQLError.unavailable`
///   (a 503) rather than wait for connections to a server that is gone (postgres-nio waits up to a minute);
/// - one probe runs at a time (single flight): each host in the URL's order, one short connection each, asked
///   whether it is the target; the first that is gets a new pool;
/// - when none is, the probe waits (`firstBackoff`, doubling up to `maximumBackoff`, on the injected `sleep`) and
///   passes over the hosts again, at most `maximumPasses` times; then the database counts as down until the next
///   query, which fails fast and starts another probe.
///
/// A failed query is not the only sign: with no query running when the server dies, postgres-nio keeps the next
/// queries waiting while it tries to reconnect (up to a minute), and a demoted primary that still answers only
/// fails writes. So while a pool serves, a watcher asks it every `checkInterval` what a probe asks (through the pool,
/// so it also finds a pool that cannot lease a connection) and stops using it when it answers wrong or not within
/// `checkTimeout`.
///
/// Queries that fail are not retried: a write whose connection broke may or may not have committed, which only the
/// client can decide to repeat.
final class PostgresPrimary: Sendable {
    typealias Endpoint = PostgresURL.Endpoint
    /// Connects to a host and asks it: nil when it is the target, else why not (it is read-only). Throws when no
    /// connection could be made.
    typealias Probe = @Sendable (Endpoint) async throws -> String?
    typealias Sleep = @Sendable (Duration) async throws -> Void

    static let firstBackoff = Duration.milliseconds(100)
    static let maximumBackoff = Duration.seconds(1)
    static let maximumPasses = 20
    static let checkInterval = Duration.seconds(1)
    static let checkTimeout = Duration.seconds(2)
    /// How long a probe waits for a host's TCP connection: a host that is down on another machine may never answer.
    static let probeConnectTimeout = TimeAmount.seconds(3)
    /// The probe connections' number in postgres-nio's log lines (the pool numbers its own from 0).
    private static let probeConnectionID = -2

    /// The connections to one server: a postgres-nio pool per event loop, its connections on that loop, together
    /// `pool_size` of them. A query asked from a loop (where the server's tasks run, see `EventLoopExecutor`) goes to
    /// that loop's pool, so its bytes go out and its answer comes back on the thread that asked, without a hop to
    /// another loop and back (issue 47). A query from elsewhere takes the pools in turn.
    final class Pool: Sendable {
        let clients: [(loop: any EventLoop, client: PostgresClient)]
        let runner: Task<Void, Never>
        private let nextClient = NIOLockedValueBox(0)

        init(configuration: (_ connections: Int) -> PostgresClient.Configuration, poolSize: Int, loops: [any EventLoop],
             logger: Logger) {
            clients = zip(loops, Self.shares(of: poolSize, among: loops.count)).map { loop, connections in
                (loop, PostgresClient(configuration: configuration(connections), eventLoopGroup: loop, backgroundLogger: logger))
            }
            let clients = clients.map(\.client)
            runner = Task {
                await withDiscardingTaskGroup { group in
                    for client in clients { group.addTask { await client.run() } }
                }
            }
        }

        /// How many connections each loop's pool has: `poolSize` shared out, the first taking one more each while the
        /// remainder lasts; fewer pools than loops when there are fewer connections.
        static func shares(of poolSize: Int, among loops: Int) -> [Int] {
            let pools = max(1, min(loops, poolSize))
            return (0..<pools).map { poolSize / pools + ($0 < poolSize % pools ? 1 : 0) }
        }

        /// The pool of the loop this runs on, else the next in turn.
        var client: PostgresClient {
            if let own = clients.first(where: { $0.loop.inEventLoop }) { return own.client }
            let index = nextClient.withLockedValue { next in
                defer { next = (next + 1) % clients.count }
                return next
            }
            return clients[index].client
        }
    }

    private enum Phase: Sendable {
        case serving(Pool)
        /// A probe is running; why the last server stopped being used.
        case probing(String)
        /// The last probe found no host that is the target; why not.
        case down(String)
        case closed
    }

    private struct State: Sendable {
        var phase: Phase
        /// The host in use, or last used.
        var endpoint: Endpoint
        var probe: Task<Void, Never>?
        var watcher: Task<Void, Never>?
    }

    private let settings: PostgresURL
    private let tls: TLSConfiguration?
    private let logger: Logger
    private let probe: Probe
    private let sleep: Sleep
    private let state: NIOLockedValueBox<State>

    /// Whether a failed query may mean another host is now the one to use.
    var follows: Bool { settings.hosts.count > 1 || settings.targetSessionAttributes != .any }

    /// The host in use (or last used, while a probe runs). A connection outside the pool that must reach the same
    /// server (the cache generation's LISTEN) connects here each time it connects.
    var endpoint: Endpoint { state.withLockedValue { $0.endpoint } }

    /// Finds the target among `settings.hosts` and opens a pool to it. Fails at once when no host is the target:
    /// with one host and any target, with `PostgresConnectError` (where and why), else with `PostgresNoTargetError`
    /// (every host and why). `probe` and `sleep` are for tests; by default hosts are really probed, and the clock
    /// really waited on.
    static func connect(settings: PostgresURL, tls: TLSConfiguration?, logger: Logger, probe: Probe? = nil,
                        sleep: @escaping Sleep = { try await Task.sleep(for: $0) }) async throws -> PostgresPrimary {
        let probe = probe ?? Self.probe(settings, tls: tls, logger: logger)
        switch await pass(over: settings.hosts, probe: probe) {
        case .found(let endpoint):
            return PostgresPrimary(settings: settings, tls: tls, logger: logger, endpoint: endpoint, probe: probe, sleep: sleep)
        case .none(let attempts):
            if settings.hosts.count == 1, settings.targetSessionAttributes == .any, case .failed(let error) = attempts[0].outcome {
                throw PostgresConnectError(host: settings.host, port: settings.port, sslMode: settings.sslMode, error: error)
            }
            throw PostgresNoTargetError(target: settings.targetSessionAttributes, attempts: attempts.map { ($0.endpoint, $0.reason) })
        }
    }

    private init(settings: PostgresURL, tls: TLSConfiguration?, logger: Logger, endpoint: Endpoint, probe: @escaping Probe,
                 sleep: @escaping Sleep) {
        self.settings = settings
        self.tls = tls
        self.logger = logger
        self.probe = probe
        self.sleep = sleep
        state = NIOLockedValueBox(State(phase: .closed, endpoint: endpoint))
        state.withLockedValue { $0.phase = .serving(makePool(endpoint)) }
        if follows {
            let watcher = Task { await self.watch() }
            state.withLockedValue { $0.watcher = watcher }
        }
    }

    /// Runs `body` on a connection of the pool in use; fails fast with `SQLError.unavailable` while there is none.
    /// A failure that means the server stopped serving starts a probe (see the type's comment).
    func withConnection<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let pool = try currentPool()
        var leased = false
        do {
            return try await pool.client.withConnection { connection in
                leased = true
                return try await body(connection)
            }
        } catch {
            // A lease that fails is the pool's doing: it was shut down, or gave up connecting.
            if follows, !leased || Self.isOutage(error) { failed(pool, because: PostgresDatabase.explanation(of: error)) }
            if !leased { throw SQLError.unavailable("PostgreSQL: no connection (\(PostgresDatabase.explanation(of: error)))") }
            throw error
        }
    }

    /// Whether `error` means the server stopped serving this session: the connection failed or closed, the server
    /// is shutting down or starting (SQLSTATE class 57P), refuses connections (class 08), or refused a write
    /// because it is read-only (25006) — what a failover looks like from a node, whether or not it follows one.
    static func isOutage(_ error: any Error) -> Bool {
        if case SQLError.unavailable = error { return true }
        guard let error = error as? PSQLError else { return false }
        switch error.code {
        case .serverClosedConnection, .clientClosedConnection, .connectionError, .uncleanShutdown, .poolClosed: return true
        default: break
        }
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return state == "25006" || state.hasPrefix("57P") || state.hasPrefix("08")
    }

    /// Shuts the pool down and ends the probe and the watcher.
    func close() async {
        let (pool, tasks) = state.withLockedValue { state -> (Pool?, [Task<Void, Never>]) in
            defer { state.phase = .closed }
            let tasks = [state.probe, state.watcher].compactMap { $0 }
            if case .serving(let pool) = state.phase { return (pool, tasks) }
            return (nil, tasks)
        }
        for task in tasks {
            task.cancel()
            await task.value
        }
        pool?.runner.cancel()
        await pool?.runner.value
    }

    /// The probe running now, if any (for tests, which wait for it).
    var runningProbe: Task<Void, Never>? {
        state.withLockedValue { state in
            if case .probing = state.phase { return state.probe }
            return nil
        }
    }

    /// The pool in use; when there is none, fails fast, and after a probe that found nothing starts another.
    private func currentPool() throws(SQLError) -> Pool {
        let (pool, reason, starts) = state.withLockedValue { state -> (Pool?, String, Bool) in
            switch state.phase {
            case .serving(let pool): return (pool, "", false)
            case .probing(let reason): return (nil, reason, false)
            case .down(let reason):
                state.phase = .probing(reason)
                return (nil, reason, true)
            case .closed: return (nil, "the database is closed", false)
            }
        }
        if starts { startProbe() }
        guard let pool else { throw .unavailable("PostgreSQL: looking for the server to use (\(reason))") }
        return pool
    }

    /// Stops using `failing` (whichever pool serves, when nil), unless another failure already did, and starts a
    /// probe.
    func failed(_ failing: Pool?, because reason: String) {
        let retired = state.withLockedValue { state -> Pool? in
            guard case .serving(let pool) = state.phase, failing == nil || pool === failing else { return nil }
            state.phase = .probing(reason)
            return pool
        }
        guard let retired else { return }
        logger.warning("PostgreSQL \(endpoint) stopped serving (\(reason)); looking for the \(settings.targetSessionAttributes.rawValue) server among \(settings.hosts.map(\.description).joined(separator: ", "))")
        retired.runner.cancel()
        startProbe()
    }

    /// Checks the pool in use every `checkInterval` (see the type's comment) until the database closes.
    private func watch() async {
        while (try? await Task.sleep(for: Self.checkInterval)) != nil {
            let pool = state.withLockedValue { state -> Pool?? in
                switch state.phase {
                case .serving(let pool): pool
                case .probing, .down: .some(nil)
                case .closed: nil
                }
            }
            guard let phase = pool else { return }
            guard let serving = phase else { continue }
            for (_, client) in serving.clients where isServing(serving) { await check(client, of: serving) }
        }
    }

    private func isServing(_ pool: Pool) -> Bool {
        state.withLockedValue { state in
            if case .serving(let serving) = state.phase { return serving === pool }
            return false
        }
    }

    /// Asks one of the pool's clients whether its server is still the target; stops using the pool when not, or when
    /// it does not answer within `checkTimeout` (then, from the timer, so that shutting the pool down ends a query
    /// that hangs).
    private func check(_ client: PostgresClient, of pool: Pool) async {
        let target = settings.targetSessionAttributes
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    let reason = try await client.withConnection { try await Self.reasonNotTarget(target, on: $0, logger: self.logger) }
                    if let reason { self.failed(pool, because: reason) }
                } catch {
                    self.failed(pool, because: PostgresDatabase.explanation(of: error))
                }
            }
            group.addTask {
                guard (try? await Task.sleep(for: Self.checkTimeout)) != nil else { return }
                self.failed(pool, because: "no answer within \(Self.checkTimeout)")
            }
            await group.next()
            group.cancelAll()
        }
    }

    private func startProbe() {
        let task = Task { await self.search() }
        state.withLockedValue { $0.probe = task }
    }

    /// Passes over the hosts until one is the target (then serves it) or `maximumPasses` found none (then down).
    private func search() async {
        var delay = Self.firstBackoff
        var reason = ""
        for pass in 1...Self.maximumPasses {
            switch await Self.pass(over: settings.hosts, probe: probe) {
            case .found(let endpoint):
                let pool = makePool(endpoint)
                let installed = state.withLockedValue { state -> Bool in
                    guard case .probing = state.phase else { return false }
                    state.phase = .serving(pool)
                    state.endpoint = endpoint
                    return true
                }
                if installed {
                    logger.notice("PostgreSQL: now using \(endpoint)")
                } else {
                    pool.runner.cancel()
                }
                return
            case .none(let attempts):
                reason = attempts.map { "\($0.endpoint): \($0.reason)" }.joined(separator: "; ")
            }
            guard pass < Self.maximumPasses, (try? await sleep(delay)) != nil, !Task.isCancelled else { break }
            delay = min(delay * 2, Self.maximumBackoff)
        }
        state.withLockedValue { state in
            if case .probing = state.phase { state.phase = .down(reason) }
        }
        logger.error("PostgreSQL: no \(settings.targetSessionAttributes.rawValue) server found (\(reason)); queries fail until one is")
    }

    private func makePool(_ endpoint: Endpoint) -> Pool {
        let settings = settings.only(endpoint)
        return Pool(configuration: { PostgresDatabase.poolConfiguration(settings, connections: $0, tls: self.tls) },
                    poolSize: settings.poolSize, loops: Array(MultiThreadedEventLoopGroup.singleton.makeIterator()), logger: logger)
    }

    // MARK: Probing

    struct Attempt: Sendable {
        enum Outcome: Sendable {
            case failed(any Error)
            case notTarget(String)
        }

        let endpoint: Endpoint
        let outcome: Outcome

        var reason: String {
            switch outcome {
            case .failed(let error): PostgresDatabase.explanation(of: error)
            case .notTarget(let reason): reason
            }
        }
    }

    enum Selection: Sendable {
        case found(Endpoint)
        case none([Attempt])
    }

    /// The first of `hosts` that is the target, else what each answered.
    static func pass(over hosts: [Endpoint], probe: Probe) async -> Selection {
        var attempts: [Attempt] = []
        for endpoint in hosts {
            do {
                guard let reason = try await probe(endpoint) else { return .found(endpoint) }
                attempts.append(Attempt(endpoint: endpoint, outcome: .notTarget(reason)))
            } catch {
                attempts.append(Attempt(endpoint: endpoint, outcome: .failed(error)))
            }
        }
        return .none(attempts)
    }

    /// One short connection to the host, asking what `settings.targetSessionAttributes` needs to know, as libpq
    /// does: `read-write` whether sessions are read-only (a standby's are; so are those of a server set
    /// `default_transaction_read_only`), `primary` whether the server is in recovery; `any` only connects.
    static func probe(_ settings: PostgresURL, tls: TLSConfiguration?, logger: Logger) -> Probe {
        { endpoint in
            let connection = try await PostgresDatabase.connection(
                to: endpoint, settings, tls: tls, id: probeConnectionID, connectTimeout: probeConnectTimeout, logger: logger)
            do {
                let reason = try await reasonNotTarget(settings.targetSessionAttributes, on: connection, logger: logger)
                try? await connection.close()
                return reason
            } catch {
                try? await connection.close()
                throw error
            }
        }
    }

    private static func reasonNotTarget(_ target: PostgresURL.TargetSessionAttributes, on connection: PostgresConnection,
                                        logger: Logger) async throws -> String? {
        switch target {
        case .any:
            return nil
        case .readWrite:
            let rows = try await connection.rows("SHOW transaction_read_only", logger: logger)
            return rows.first?.string("transaction_read_only") == "off" ? nil : "read-only"
        case .primary:
            let rows = try await connection.rows("SELECT pg_is_in_recovery()::int AS recovering", logger: logger)
            return rows.first?.int("recovering") == 0 ? nil : "in recovery (a standby)"
        }
    }
}

/// No host of the PostgreSQL URL is the target (`target_session_attrs`): startup stops with what each answered.
public struct PostgresNoTargetError: Error, CustomStringConvertible {
    public let target: PostgresURL.TargetSessionAttributes
    public let attempts: [(endpoint: PostgresURL.Endpoint, reason: String)]

    public var description: String {
        "no PostgreSQL server for target_session_attrs=\(target.rawValue): "
            + attempts.map { "\($0.endpoint): \($0.reason)" }.joined(separator: "; ")
    }
}
