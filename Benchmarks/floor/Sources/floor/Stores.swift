import CSQLite
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOSSL
import PostgresNIO

/// The account a store endpoint writes: one row, in one transaction.
struct AccountRow: Sendable {
    let localId: String
    let email: String
    let displayName: String
    let createdAt: Int
}

/// What Flint writes when an account signs up, in one transaction: the account, its session (a refresh token's hash,
/// its session id), the sign-up budget's counter and the audit event, into tables with the indexes Flint's have
/// (Server/Sources/FlintServer/Store/Migrations.swift: those its sign-up writes, not the columns it leaves empty).
struct SignUpRows: Sendable {
    let localId: String
    /// The account's email, nil for an anonymous one (then, as in Flint's partial index, it indexes nothing).
    let email: String?
    let displayName: String
    let createdAt: Int
    let tokenHash: String
    let sessionID: String
    let budget: String
    let ipAddress: String
}

/// One SQLite connection in WAL mode with `synchronous=NORMAL`, as Flint's writer has, and its prepared statements.
/// A lock lets one write transaction (BEGIN IMMEDIATE, the statements, COMMIT) run at a time, on the task that asks.
final class SQLiteStore: @unchecked Sendable {
    // @unchecked: the connection and the statements are only used under `lock`.
    private let lock = NIOLock()
    private let database: OpaquePointer
    private let insert: OpaquePointer
    /// The account, the session, the counter and the event of `signUp`.
    private let signUpStatements: [OpaquePointer]

    private static let schema = [
        "PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL",
        "CREATE TABLE IF NOT EXISTS accounts (local_id TEXT PRIMARY KEY, email TEXT NOT NULL, display_name TEXT NOT NULL, created_at INTEGER NOT NULL)",
        // Flint's sign-up tables, as far as a sign-up writes them.
        """
        CREATE TABLE IF NOT EXISTS users (project_id TEXT NOT NULL, local_id TEXT NOT NULL, email TEXT, display_name TEXT,
            created_at INTEGER NOT NULL, last_login_at INTEGER, PRIMARY KEY (project_id, local_id))
        """,
        "CREATE UNIQUE INDEX IF NOT EXISTS users_email ON users(project_id, email) WHERE email IS NOT NULL",
        "CREATE INDEX IF NOT EXISTS users_created ON users(project_id, created_at, local_id)",
        """
        CREATE TABLE IF NOT EXISTS sessions (token_hash TEXT PRIMARY KEY, project_id TEXT NOT NULL, local_id TEXT NOT NULL,
            session_id TEXT NOT NULL, created_at INTEGER NOT NULL, last_used_at INTEGER NOT NULL, ip_address TEXT)
        """,
        "CREATE INDEX IF NOT EXISTS sessions_user ON sessions(project_id, local_id)",
        "CREATE INDEX IF NOT EXISTS sessions_last_used ON sessions(last_used_at)",
        "CREATE UNIQUE INDEX IF NOT EXISTS sessions_id ON sessions(session_id)",
        "CREATE TABLE IF NOT EXISTS counters (bucket TEXT PRIMARY KEY, window_start INTEGER NOT NULL, count INTEGER NOT NULL)",
        """
        CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, realm TEXT NOT NULL, time INTEGER NOT NULL, type TEXT NOT NULL,
            local_id TEXT, session_id TEXT, ip_address TEXT)
        """,
        "CREATE INDEX IF NOT EXISTS events_realm ON events(realm, time, id)",
        "CREATE INDEX IF NOT EXISTS events_user ON events(realm, local_id, time, id)",
        "CREATE INDEX IF NOT EXISTS events_type ON events(realm, type, time, id)",
        "CREATE INDEX IF NOT EXISTS events_address ON events(realm, ip_address, time, id)",
    ]

    init(path: String) throws(FloorError) {
        var opened: OpaquePointer?
        guard sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              let opened
        else { throw .sqlite("cannot open \(path)") }
        database = opened
        for statement in Self.schema {
            guard sqlite3_exec(database, statement, nil, nil, nil) == SQLITE_OK else { throw .sqlite(Self.message(of: opened)) }
        }
        func prepare(_ sql: String) throws(FloorError) -> OpaquePointer {
            var prepared: OpaquePointer?
            guard sqlite3_prepare_v2(opened, sql, -1, &prepared, nil) == SQLITE_OK, let prepared else {
                throw .sqlite(Self.message(of: opened))
            }
            return prepared
        }
        insert = try prepare("INSERT INTO accounts VALUES (?, ?, ?, ?)")
        signUpStatements = [
            try prepare("INSERT INTO users VALUES ('floor', ?, ?, ?, ?, ?)"),
            try prepare("INSERT INTO sessions VALUES (?, 'floor', ?, ?, ?, ?, ?)"),
            try prepare("""
                INSERT INTO counters VALUES (?, ?, 1)
                ON CONFLICT (bucket) DO UPDATE SET count = CASE WHEN window_start = excluded.window_start THEN count + 1 ELSE 1 END,
                    window_start = excluded.window_start
                """),
            try prepare("INSERT INTO events (realm, time, type, local_id, session_id, ip_address) VALUES ('floor', ?, 'signUp', ?, ?, ?)"),
        ]
    }

    deinit {
        sqlite3_finalize(insert)
        signUpStatements.forEach { sqlite3_finalize($0) }
        sqlite3_close_v2(database)
    }

    /// One account row in a transaction of its own.
    func insert(_ row: AccountRow) throws {
        try write { () throws(FloorError) in
            try step(insert, [.text(row.localId), .text(row.email), .text(row.displayName), .int(row.createdAt)])
        }
    }

    /// Flint's four sign-up statements in one transaction.
    func signUp(_ rows: SignUpRows) throws {
        let hour = rows.createdAt / 3_600_000 * 3_600_000
        try write { () throws(FloorError) in
            try step(signUpStatements[0], [.text(rows.localId), rows.email.map(Value.text) ?? .null,
                                           .text(rows.displayName), .int(rows.createdAt), .int(rows.createdAt)])
            try step(signUpStatements[1], [.text(rows.tokenHash), .text(rows.localId), .text(rows.sessionID),
                                           .int(rows.createdAt), .int(rows.createdAt), .text(rows.ipAddress)])
            try step(signUpStatements[2], [.text(rows.budget), .int(hour)])
            try step(signUpStatements[3], [.int(rows.createdAt), .text(rows.localId), .text(rows.sessionID),
                                           .text(rows.ipAddress)])
        }
    }

    /// A value bound to a statement's next parameter.
    private enum Value {
        case text(String)
        case int(Int)
        case null
    }

    /// `body` between BEGIN IMMEDIATE and COMMIT, under the lock; a failure rolls the transaction back.
    private func write(_ body: () throws(FloorError) -> Void) throws {
        try lock.withLock {
            try run("BEGIN IMMEDIATE")
            do {
                try body()
            } catch {
                try run("ROLLBACK")
                throw error
            }
            try run("COMMIT")
        }
    }

    /// Binds `values` to `statement`, runs it to its end and resets it.
    private func step(_ statement: OpaquePointer, _ values: [Value]) throws(FloorError) {
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            switch value {
            case .text(let text): sqlite3_bind_text(statement, position, text, -1, Self.transient)
            case .int(let number): sqlite3_bind_int64(statement, position, Int64(number))
            case .null: sqlite3_bind_null(statement, position)
            }
        }
        let stepped = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard stepped == SQLITE_DONE else { throw .sqlite(Self.message(of: database)) }
    }

    private func run(_ statement: String) throws(FloorError) {
        guard sqlite3_exec(database, statement, nil, nil, nil) == SQLITE_OK else { throw .sqlite(Self.message(of: database)) }
    }

    /// SQLite's SQLITE_TRANSIENT: copy the bound text (the Swift strings do not outlive the call).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func message(of database: OpaquePointer) -> String { String(cString: sqlite3_errmsg(database)) }
}

/// The same insert transaction on PostgreSQL, through a postgres-nio pool of 10 connections (Flint's default pool
/// size), into its own table `floor_accounts` so that it can share a database with Flint's.
struct PostgresStore: Sendable {
    let client: PostgresClient
    private let logger = Logger(label: "floor.postgres")

    /// - Parameter url: `postgres://user:password@host:port/database`, with `?sslmode=disable` for no TLS; otherwise
    ///   TLS is used when the server offers it, its certificate not checked (the floor measures cost, not trust).
    init(url: String) throws(FloorError) {
        guard let components = URLComponents(string: url), components.scheme?.hasPrefix("postgres") == true,
              let host = components.host, let user = components.user
        else { throw .usage("--database-url must be postgres://user:password@host:port/database") }
        var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
        tlsConfiguration.certificateVerification = .none
        let plain = components.queryItems?.contains { $0.name == "sslmode" && $0.value == "disable" } == true
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: components.path.isEmpty ? nil : String(components.path.dropFirst()),
            tls: plain ? .disable : .prefer(tlsConfiguration))
        configuration.options.maximumConnections = 10
        client = PostgresClient(configuration: configuration)
    }

    /// Creates the table; the client must be running.
    func prepare() async throws {
        try await client.query(
            "CREATE TABLE IF NOT EXISTS floor_accounts (local_id TEXT PRIMARY KEY, email TEXT NOT NULL, display_name TEXT NOT NULL, created_at BIGINT NOT NULL)",
            logger: logger)
    }

    func insert(_ row: AccountRow) async throws {
        try await client.withTransaction(logger: logger) { connection in
            _ = try await connection.query(
                "INSERT INTO floor_accounts VALUES (\(row.localId), \(row.email), \(row.displayName), \(row.createdAt))",
                logger: logger)
        }
    }
}
