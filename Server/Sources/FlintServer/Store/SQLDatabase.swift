/// A value bound to, or read from, a SQL statement. Flint's schema only uses text and 64-bit integers
/// (booleans are 0/1), so both databases store exactly the same thing.
public enum SQLValue: Sendable, Equatable {
    case null
    case int(Int64)
    case text(String)

    public init(_ value: String?) { self = value.map { .text($0) } ?? .null }
    public init(_ value: Int64?) { self = value.map { .int($0) } ?? .null }
    public init(_ value: Bool) { self = .int(value ? 1 : 0) }
}

/// One result row: values by column name. Rows of one result share their column index.
public struct SQLRow: Sendable {
    private let index: [String: Int]
    private let values: [SQLValue]

    public init(index: [String: Int], values: [SQLValue]) {
        self.index = index
        self.values = values
    }

    public subscript(name: String) -> SQLValue {
        index[name].map { values[$0] } ?? .null
    }

    public func string(_ name: String) -> String? {
        if case .text(let value) = self[name] { return value }
        return nil
    }

    public func int(_ name: String) -> Int64? {
        switch self[name] {
        case .int(let value): return value
        case .text(let value): return Int64(value)
        case .null: return nil
        }
    }

    public func bool(_ name: String) -> Bool { (int(name) ?? 0) != 0 }
}

/// Errors of the database layer, with the one distinction the features need: a unique constraint.
public enum SQLError: Error, CustomStringConvertible {
    /// A unique or primary-key constraint failed; `detail` names the constraint or its columns.
    case uniqueViolation(detail: String)
    /// The database gave up on the transaction to resolve a conflict with another one (a deadlock);
    /// running it again is safe.
    case transactionConflict
    /// The database cannot serve now (its server is down, or a failover is under way: see `PostgresPrimary`);
    /// the request may succeed later. Answered as a 503.
    case unavailable(String)
    case failure(String)

    public var description: String {
        switch self {
        case .uniqueViolation(let detail): "unique constraint violated: \(detail)"
        case .transactionConflict: "transaction conflict (deadlock or serialization failure)"
        case .unavailable(let message): message
        case .failure(let message): message
        }
    }
}

/// Something that runs SQL. Statements are written once, with `?` placeholders, for both databases.
public protocol SQLExecutor: Sendable {
    /// Runs one statement and returns its rows (none for statements without a result).
    @discardableResult
    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow]
}

/// A database Flint can keep its state in: embedded SQLite or a PostgreSQL server.
public protocol SQLDatabase: SQLExecutor {
    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    func transaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T
    /// A statement that, inside a transaction, keeps concurrent migrators out (nil where the
    /// transaction itself already does, as SQLite's `BEGIN IMMEDIATE`).
    var migrationLockStatement: String? { get }
    /// What a SELECT inside a transaction appends to lock the rows it reads until the commit
    /// (`FOR UPDATE`, to which `OF table` may be added), or nil where the transaction itself already
    /// excludes other writers (SQLite's `BEGIN IMMEDIATE`).
    var rowLockClause: String? { get }
    /// The column definition of a primary key the database numbers itself, in insertion order (`{identity}` in a
    /// migration's statement).
    var identityPrimaryKey: String { get }
    /// A number that moves whenever another process or node may have committed to the database since it
    /// was last read: callers that cache what they read (project settings, signing keys) check it first and
    /// query only when it moved. SQLite's stays put for this process's own commits; PostgreSQL's is the cache
    /// generation (`CacheGeneration`) kept in memory, nil while it cannot be vouched for: callers then read
    /// the generation from the database.
    func externalChangeToken() async throws -> Int64?
    /// Runs inside the transaction that moved the cache generation to `generation`, to tell the other nodes at
    /// its commit (PostgreSQL's NOTIFY); nothing where they notice by themselves (SQLite's change token).
    func announceCacheGeneration(_ generation: Int64, in transaction: any SQLExecutor) async throws
    /// Called when that transaction committed: returns once this node's own follower has seen `generation`, or
    /// after a bounded wait (see `PostgresGenerationListener`); at once on SQLite.
    func cacheGenerationCommitted(_ generation: Int64) async
    func close() async throws
}

extension SQLDatabase {
    /// SQLite's: `AUTOINCREMENT` never reuses a number, even after the newest row was deleted.
    public var identityPrimaryKey: String { "INTEGER PRIMARY KEY AUTOINCREMENT" }
}

extension SQLExecutor {
    @discardableResult
    public func query(_ sql: String, _ binds: SQLValue...) async throws -> [SQLRow] {
        try await query(sql, binds)
    }
}
