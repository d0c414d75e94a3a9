import Foundation
import Logging
import NIOPosix
import NIOSSL
import PostgresNIO

/// PostgreSQL through postgres-nio's connection pool. Many stateless `flint` nodes may share one server.
///
/// The pool is fixed-size (`pool_size` in the URL) and sends no keep-alive queries. postgres-nio arms an idle timer
/// for every connection above the minimum and a keep-alive timer for every idle connection, each time a query hands
/// its connection back; a cancelled timer is a `Task.sleep` whose memory Swift's runtime on Linux keeps until the
/// deadline would have passed (60 and 30 s). Under load that held about 1.5 KB a query, over 100 MB at a few
/// thousand requests a second. With every connection inside the minimum and no keep-alive, no timer is armed.
/// A connection the server closes is replaced at once; one that dies silently fails the query that finds it.
public final class PostgresDatabase: SQLDatabase {
    /// The pool, on the server the URL's `target_session_attrs` picks among its hosts (see `PostgresPrimary`).
    let primary: PostgresPrimary
    private let logger: Logger
    /// Flint's statements as prepared statements, each parsed once per connection.
    private let statements = PostgresStatements()
    /// The cache generation in memory, followed on a connection of its own.
    let listener: PostgresGenerationListener

    /// Serialises concurrent migrators (several nodes starting at once). The number is arbitrary but fixed.
    public let migrationLockStatement: String? = "SELECT pg_advisory_xact_lock(7310583)"
    public let rowLockClause: String? = "FOR UPDATE"
    public let identityPrimaryKey = "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"

    /// The cache generation while the listener vouches for it (see `PostgresGenerationListener`), else nil: callers
    /// then read it from the database.
    public func externalChangeToken() async throws -> Int64? { listener.generation() }

    /// Sends the new generation to every listening node, at the commit.
    public func announceCacheGeneration(_ generation: Int64, in transaction: any SQLExecutor) async throws {
        try await transaction.query(
            "SELECT 1 AS sent FROM pg_notify('\(PostgresGenerationListener.channel)', ?)", [.text(String(generation))])
    }

    public func cacheGenerationCommitted(_ generation: Int64) async {
        await listener.committed(generation)
    }

    /// Connects to `url` (`postgres://user:password@host:port/database`, with libpq's TLS parameters: see
    /// `PostgresURL`) and checks the server answers.
    ///
    /// The first check is one connection of its own to each host until one is the target, made before the pool's:
    /// the pool retries a failing connection for a minute and then reports only that it gave up, while this one
    /// fails at once with the reason (a certificate that does not verify, a server without TLS, a wrong password).
    public static func connect(url: String, logger: Logger) async throws -> PostgresDatabase {
        let settings = try PostgresURL(url)
        let tls = try settings.tlsConfiguration()
        let primary = try await PostgresPrimary.connect(settings: settings, tls: tls, logger: logger)
        let database = PostgresDatabase(settings: settings, tls: tls, primary: primary, logger: logger)
        // The pool's run loop starts in a task; this first query may reach the pool before it does, which
        // postgres-nio reports as a warning although the query then proceeds. Keep that one quiet.
        var quiet = logger
        quiet.logLevel = .error
        do {
            _ = try await mapErrors { try await database.primary.withConnection { try await $0.rows("SELECT 1", logger: quiet) } }
        } catch {
            try? await database.close()
            throw error
        }
        return database
    }

    private init(settings: PostgresURL, tls: TLSConfiguration?, primary: PostgresPrimary, logger: Logger) {
        self.primary = primary
        self.logger = logger
        listener = PostgresGenerationListener(logger: logger) {
            // To the server the pool uses, as of each (re)connection.
            try await Self.connection(to: primary.endpoint, settings, tls: tls, id: Self.listenerConnectionID, logger: logger)
        }
    }

    /// One connection outside the pool, to `endpoint` of `settings`' hosts (the listener's, a probe's), numbered `id`
    /// in postgres-nio's log lines; `connectTimeout` replaces postgres-nio's default.
    static func connection(to endpoint: PostgresURL.Endpoint, _ settings: PostgresURL, tls: TLSConfiguration?, id: Int,
                           connectTimeout: TimeAmount? = nil, logger: Logger) async throws -> PostgresConnection {
        var configuration = connectionConfiguration(
            settings.only(endpoint), tls: try tls.map { try NIOSSLContext(configuration: $0) })
        if let connectTimeout { configuration.options.connectTimeout = connectTimeout }
        return try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: configuration, id: id, logger: logger
        ).get()
    }

    /// The listener's connection's number in postgres-nio's log lines (the pool numbers its own from 0).
    private static let listenerConnectionID = -1

    /// The settings of one connection outside the pool.
    static func connectionConfiguration(_ settings: PostgresURL, tls: NIOSSLContext?) -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: settings.connectHost, port: settings.port, username: settings.username, password: settings.password,
            database: settings.database, tls: settings.tls(tls))
        configuration.options.tlsServerName = settings.tlsServerName
        return configuration
    }

    /// The settings of a pool of `connections` connections, all kept (see the type's comment).
    ///
    /// Prepared statements (`PostgresStatements`) are planned for their values on every run, as unnamed ones are:
    /// PostgreSQL would otherwise switch a statement to a generic plan after five runs and keep it until the table's
    /// statistics change: a plan made while a table was small, kept through a bulk import, cut lookups at 100,000
    /// users from about 1,400/s to 75/s (`Benchmarks/scale.py`).
    static func poolConfiguration(_ settings: PostgresURL, connections: Int, tls: TLSConfiguration?) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: settings.connectHost, port: settings.port, username: settings.username, password: settings.password,
            database: settings.database, tls: settings.tls(tls))
        configuration.options.tlsServerName = settings.tlsServerName
        configuration.options.maximumConnections = connections
        configuration.options.minimumConnections = connections
        configuration.options.keepAliveBehavior = nil
        configuration.options.additionalStartupParameters = [("plan_cache_mode", "force_custom_plan")]
        return configuration
    }

    @discardableResult
    public func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await Self.mapErrors {
            try await primary.withConnection { connection in
                try await statements.run(sql, binds, on: connection, inTransaction: false, logger: logger)
            }
        }
    }

    public func transaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try await Self.mapErrors {
            try await primary.withConnection { connection in
                let executor = ConnectionExecutor(connection: connection, statements: statements, logger: logger)
                try await executor.query("BEGIN", [])
                do {
                    let result = try await body(executor)
                    try await executor.query("COMMIT", [])
                    return result
                } catch {
                    _ = try? await executor.query("ROLLBACK", [])
                    throw error
                }
            }
        }
    }

    public func close() async throws {
        await listener.stop()
        await primary.close()
    }

    private struct ConnectionExecutor: SQLExecutor, @unchecked Sendable {
        // The connection is only used inside `withConnection`, by one task at a time.
        let connection: PostgresConnection
        let statements: PostgresStatements
        let logger: Logger

        @discardableResult
        func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
            try await PostgresDatabase.mapErrors {
                try await statements.run(sql, binds, on: connection, inTransaction: true, logger: logger)
            }
        }
    }

    /// `sql` as an unnamed statement: `?` placeholders turned into `$1…$n`, and the values bound.
    static func makeQuery(_ sql: String, _ binds: [SQLValue]) -> PostgresQuery {
        PostgresQuery(unsafeSQL: PostgresStatements.numbered(sql), binds: PostgresStatements.bindings(binds))
    }

    static func collect<Rows: AsyncSequence>(_ rows: Rows) async throws -> [SQLRow] where Rows.Element == PostgresRow {
        var result: [SQLRow] = []
        var index: [String: Int]?
        for try await row in rows {
            var values: [SQLValue] = []
            var names: [String: Int] = [:]
            for (position, cell) in row.enumerated() {
                if index == nil { names[cell.columnName] = position }
                guard cell.bytes != nil else {
                    values.append(.null)
                    continue
                }
                switch cell.dataType {
                case .int2, .int4, .int8: values.append(.int(try cell.decode(Int64.self)))
                case .bool: values.append(.int(try cell.decode(Bool.self) ? 1 : 0))
                default: values.append(.text(try cell.decode(String.self)))
                }
            }
            if index == nil { index = names }
            result.append(SQLRow(index: index ?? names, values: values))
        }
        return result
    }

    static func mapErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PSQLError {
            switch error.serverInfo?[.sqlState] {
            case "23505": throw SQLError.uniqueViolation(detail: error.serverInfo?[.constraintName] ?? "unique")
            case "40P01", "40001": throw SQLError.transactionConflict  // deadlock_detected, serialization_failure
            default: break
            }
            if PostgresPrimary.isOutage(error) { throw SQLError.unavailable("PostgreSQL: \(explanation(of: error))") }
            throw SQLError.failure("PostgreSQL: \(explanation(of: error))")
        }
    }

    /// The server's message, else postgres-nio's error code and the error beneath it (a TLS handshake or a
    /// network failure). `PSQLError.description` is deliberately uninformative.
    static func explanation(of error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] { return message }
        if error.code == .sslUnsupported { return "the server does not accept TLS connections" }
        return error.underlying.map { "\(error.code): \($0)" } ?? "\(error.code)"
    }
}

/// postgres-nio's two TLS settings, one for a single connection (made from an SSL context) and one for the pool
/// (made from a TLS configuration), so both come from one rule.
protocol PostgresTLSSetting {
    associatedtype Context
    static var disable: Self { get }
    static func prefer(_ context: Context) -> Self
    static func require(_ context: Context) -> Self
}

extension PostgresConnection.Configuration.TLS: PostgresTLSSetting {}
extension PostgresClient.Configuration.TLS: PostgresTLSSetting {}

extension PostgresURL {
    /// The setting for `tlsPolicy`, given the TLS context made from `tlsConfiguration()` (nil when TLS is off).
    fileprivate func tls<Setting: PostgresTLSSetting>(_ context: Setting.Context?) -> Setting {
        guard let context, let policy = tlsPolicy else { return .disable }
        return policy.required ? .require(context) : .prefer(context)
    }
}

/// The first connection to PostgreSQL failed: startup stops with where it tried to connect and why.
public struct PostgresConnectError: Error, CustomStringConvertible {
    public let host: String
    public let port: Int
    public let sslMode: PostgresURL.SSLMode
    /// What went wrong: the server's message, or the TLS or network error.
    public let reason: String

    init(host: String, port: Int, sslMode: PostgresURL.SSLMode, error: any Error) {
        self.host = host
        self.port = port
        self.sslMode = sslMode
        reason = PostgresDatabase.explanation(of: error)
    }

    public var description: String {
        "cannot connect to PostgreSQL at \(host):\(port) (sslmode=\(sslMode.rawValue)): \(reason)"
    }
}
