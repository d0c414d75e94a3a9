import Foundation
import Logging

/// Flint's persistent state, on either database, in areas: each feature is handed the areas it uses, and none knows
/// which database is underneath. Anything that must hold across nodes (users, tokens, keys, projects) lives here,
/// never only in one process's memory. A `projectID` parameter or column is the key of a realm: a project's ID, or a
/// tenant's `{project}/tenants/{tenant}` (see `Realm`).
///
/// The areas share one database and its transactions: a write that spans areas (deleting a user with its codes,
/// a tenant with its accounts) is one transaction in the area that owns the write.
public final class Store: Sendable {
    public let database: any SQLDatabase
    /// Users, their provider identities and second factors; `AccountStore.modifyUser` is the one way an account changes.
    public let accounts: AccountStore
    /// Refresh-token sessions.
    public let sessions: SessionStore
    /// Projects, tenants and API keys.
    public let settings: SettingsStore
    /// The token-signing keys.
    public let signingKeys: SigningKeyStore
    /// Email action codes, phone verification codes and app credentials.
    public let codes: CodeStore
    /// Fixed-window counters: budgets (`Budget`) and single-use markers.
    public let counters: CounterStore
    /// Per-day usage counts.
    public let usage: UsageStore
    /// Service accounts (admin credentials).
    public let serviceAccounts: ServiceAccountStore
    /// Emails kept between a node's stop and the next start.
    public let outbox: OutboxStore
    /// The OpenID provider's clients, consents, codes, token families and browser sessions.
    public let oauth: OAuthStore
    /// The audit trail: security events, each written with the change it records.
    public let audit: AuditStore

    /// With `telemetry`, every statement and transaction is timed and traced (`InstrumentedDatabase`); without,
    /// nothing is measured (the CLI's stores).
    public init(database: any SQLDatabase, telemetry: Telemetry? = nil) {
        let database = telemetry.map { InstrumentedDatabase(database, telemetry: $0) } ?? database
        self.database = database
        accounts = AccountStore(database: database)
        sessions = SessionStore(database: database)
        settings = SettingsStore(database: database)
        signingKeys = SigningKeyStore(database: database)
        codes = CodeStore(database: database)
        counters = CounterStore(database: database)
        usage = UsageStore(database: database)
        serviceAccounts = ServiceAccountStore(database: database)
        outbox = OutboxStore(database: database)
        oauth = OAuthStore(database: database)
        audit = AuditStore(database: database)
    }

    /// The SQLite store's file in the data directory.
    static let sqliteFileName = "flint.sqlite"

    /// Opens the database `url` names (`postgres://…`), or the SQLite file in `dataDirectory`,
    /// and brings its schema up to date.
    public static func open(databaseURL: String?, dataDirectory: URL, logger: Logger, telemetry: Telemetry? = nil)
        async throws -> Store {
        let database: any SQLDatabase
        if let databaseURL, !databaseURL.isEmpty {
            database = try await PostgresDatabase.connect(url: databaseURL, logger: logger)
        } else {
            // Only the owner may read the database and the master key beside it.
            try FileManager.default.createDirectory(
                at: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            database = try SQLiteDatabase(path: dataDirectory.appendingPathComponent(sqliteFileName).path)
        }
        try await Migrations.migrate(database)
        return Store(database: database, telemetry: telemetry)
    }

    public func close() async throws {
        try await database.close()
    }
}

/// One area of the store: a view of the shared database for one kind of record.
public protocol StoreArea: Sendable {
    var database: any SQLDatabase { get }
}

extension StoreArea {
    /// What a node checks before trusting what it cached: the database's own change token where it has one for
    /// free (SQLite's, PostgreSQL's generation in memory: see `SQLDatabase.externalChangeToken`), else the cache
    /// generation, read once per request.
    public func externalChangeToken() async throws -> Int64? {
        if let token = try await database.externalChangeToken() { return token }
        return try await CacheGeneration.current {
            try await database.query("SELECT value FROM cache_generation WHERE id = 1", []).first?.int("value") ?? 0
        }
    }

    /// Runs a write of something nodes cache, moving the cache generation in the same transaction.
    @discardableResult
    func writingCached(_ sql: String, _ binds: SQLValue...) async throws -> [SQLRow] {
        try await changingCached { tx in try await tx.query(sql, binds) }
    }

    /// Runs `body` in one transaction that also moves the cache generation, telling every node that cached settings
    /// or keys may be stale (see `CacheGeneration`); returns once this node's own follower of the generation has
    /// seen the move, or after a bounded wait (`SQLDatabase.cacheGenerationCommitted`).
    func changingCached<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        let database = database
        let (result, generation) = try await database.transaction { tx in
            let result = try await body(tx)
            let generation = try await tx.query(
                "UPDATE cache_generation SET value = value + 1 WHERE id = 1 RETURNING value", []
            ).first?.int("value") ?? 0
            try await database.announceCacheGeneration(generation, in: tx)
            return (result, generation)
        }
        await database.cacheGenerationCommitted(generation)
        return result
    }
}

/// Users, their provider identities and second factors.
public struct AccountStore: StoreArea {
    public let database: any SQLDatabase
}

/// Refresh-token sessions, each bound to its user's session epoch.
public struct SessionStore: StoreArea {
    public let database: any SQLDatabase
}

/// Projects and tenants (their settings JSON, versioned) and API keys.
public struct SettingsStore: StoreArea {
    public let database: any SQLDatabase
}

/// The keys that sign ID tokens, sealed.
public struct SigningKeyStore: StoreArea {
    public let database: any SQLDatabase
}

/// Single-use codes: email action codes, phone verification codes, APNs app credentials and passkey challenges.
public struct CodeStore: StoreArea {
    public let database: any SQLDatabase
}

/// Fixed-window counters in the database, so every node sees the same counts.
public struct CounterStore: StoreArea {
    public let database: any SQLDatabase
}

/// Per-day usage counts for the console and `/metrics`.
public struct UsageStore: StoreArea {
    public let database: any SQLDatabase
}

/// Service accounts: admin credentials and custom-token signers.
public struct ServiceAccountStore: StoreArea {
    public let database: any SQLDatabase
}

/// The OpenID provider's records (`OAuthServer/`): clients, consents, codes, token families, browser sessions.
public struct OAuthStore: StoreArea {
    public let database: any SQLDatabase
}

/// Emails a node could not send before it stopped (`EmailOutbox`), sealed, until the next node takes them.
public struct OutboxStore: StoreArea {
    public let database: any SQLDatabase
}

/// The audit trail (`AuditEntry`): appended to, read newest first, swept after each project's retention.
public struct AuditStore: StoreArea {
    public let database: any SQLDatabase
}
