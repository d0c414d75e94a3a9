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

/// One SQLite connection in WAL mode with `synchronous=NORMAL`, as Flint's writer has, and one prepared INSERT.
/// A lock lets one insert transaction (BEGIN IMMEDIATE, INSERT, COMMIT) run at a time, on the task that asks.
final class SQLiteStore: @unchecked Sendable {
    // @unchecked: the connection and the statement are only used under `lock`.
    private let lock = NIOLock()
    private let database: OpaquePointer
    private let insert: OpaquePointer

    init(path: String) throws(FloorError) {
        var opened: OpaquePointer?
        guard sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              let opened
        else { throw .sqlite("cannot open \(path)") }
        database = opened
        for statement in [
            "PRAGMA journal_mode=WAL", "PRAGMA synchronous=NORMAL",
            "CREATE TABLE IF NOT EXISTS accounts (local_id TEXT PRIMARY KEY, email TEXT NOT NULL, display_name TEXT NOT NULL, created_at INTEGER NOT NULL)",
        ] {
            guard sqlite3_exec(database, statement, nil, nil, nil) == SQLITE_OK else { throw .sqlite(Self.message(of: opened)) }
        }
        var prepared: OpaquePointer?
        guard sqlite3_prepare_v2(database, "INSERT INTO accounts VALUES (?, ?, ?, ?)", -1, &prepared, nil) == SQLITE_OK,
              let prepared
        else { throw .sqlite(Self.message(of: opened)) }
        insert = prepared
    }

    deinit {
        sqlite3_finalize(insert)
        sqlite3_close_v2(database)
    }

    func insert(_ row: AccountRow) throws {
        try lock.withLock {
            try run("BEGIN IMMEDIATE")
            sqlite3_bind_text(insert, 1, row.localId, -1, Self.transient)
            sqlite3_bind_text(insert, 2, row.email, -1, Self.transient)
            sqlite3_bind_text(insert, 3, row.displayName, -1, Self.transient)
            sqlite3_bind_int64(insert, 4, Int64(row.createdAt))
            let stepped = sqlite3_step(insert)
            sqlite3_reset(insert)
            guard stepped == SQLITE_DONE else {
                let message = Self.message(of: database)
                try run("ROLLBACK")
                throw FloorError.sqlite(message)
            }
            try run("COMMIT")
        }
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
