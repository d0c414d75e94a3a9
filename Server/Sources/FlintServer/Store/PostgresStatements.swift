import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// Flint's statements as named prepared statements, each parsed once per connection: an unnamed statement costs
/// a Parse and a Describe on every run (about 150 µs of Flint's CPU in postgres-nio, and the server's planning),
/// a named one only its Bind and Execute after the first run on a connection.
///
/// postgres-nio prepares a named statement on a connection the first time it runs there and remembers it by name
/// for the connection's life, so the connections need no bookkeeping here: this type gives each statement (its
/// text and the types of its values) a name, and the `?` → `$n` translation with it. A statement is named by its
/// text *and* its values' types, because PostgreSQL fixes the parameter types when it parses: a value that is null
/// in one call and a number in the next must not meet one parse.
///
/// Bounded: at most `maximumStatements` names (statements built at run time, such as a change's column list or a
/// batch's rows, may have many spellings; past the bound they run unnamed, as before), none for more than
/// `maximumBindings` values, and at most `maximumVersions` names per statement. A statement gets a new name (a
/// version) when its old one stops working on a connection: postgres-nio keeps a failed preparation as failed
/// for that name, and PostgreSQL refuses a prepared statement whose result columns a schema change altered.
final class PostgresStatements: Sendable {
    /// A statement ready to run: its name and its text with `$n` placeholders, or no name and its text as written
    /// (then translated on each run, as `PostgresDatabase.makeQuery`).
    struct Prepared: Sendable {
        let name: String?
        let sql: String
        let types: [PostgresDataType]
        fileprivate let key: Key?
        fileprivate let version: Int
    }

    fileprivate struct Key: Hashable {
        let sql: String
        /// Two bits a value: null, integer or text (`maximumBindings` values at most).
        let types: UInt64
    }

    private struct Entry {
        let number: Int
        let sql: String
        let types: [PostgresDataType]
        var version: Int
    }

    static let maximumStatements = 1024
    static let maximumBindings = 32
    static let maximumVersions = 8

    private let entries = NIOLockedValueBox<[Key: Entry]>([:])

    /// Runs `sql` on `connection`. A prepared statement a schema change invalidated (another node migrated) is
    /// prepared again: outside a transaction the statement is run again at once; inside one, where the error has
    /// aborted the transaction, the caller is told to run the transaction again (`SQLError.transactionConflict`).
    func run(_ sql: String, _ binds: [SQLValue], on connection: PostgresConnection, inTransaction: Bool,
             logger: Logger) async throws -> [SQLRow] {
        let statement = prepared(sql, binds)
        do {
            return try await execute(statement, binds, on: connection, logger: logger)
        } catch let error as PSQLError where statement.name != nil {
            guard let reason = Self.failure(error) else { throw error }
            retire(statement)
            guard reason == .invalidated else { throw error }
            if inTransaction { throw SQLError.transactionConflict }
            return try await execute(prepared(sql, binds), binds, on: connection, logger: logger)
        }
    }

    /// Runs `send` (one statement) on the connection's event loop, after checking there that the connection is open.
    /// Every statement Flint sends goes through here (`execute`, `PostgresConnection.rows`).
    ///
    /// postgres-nio hands a statement to its connection's channel without a promise for the write. On a channel that
    /// has closed (the server went away between the pool's lease and the statement), the write is dropped before it
    /// reaches postgres-nio's handler, and the statement never answers: not with an error, not when cancelled. A
    /// sweep caught in a PostgreSQL restart that way held the server's shutdown forever. On the loop, nothing can
    /// close the channel between the check and the write. A task already on that loop (the server's, see
    /// `EventLoopExecutor`) pays nothing for this; others hop to the loop for the statement.
    static func sent<T: Sendable>(on connection: PostgresConnection, _ send: () async throws -> T) async throws -> T {
        func checked() async throws -> T {
            guard !connection.isClosed else { throw SQLError.unavailable("PostgreSQL: the connection closed") }
            return try await send()
        }
        if connection.eventLoop.inEventLoop { return try await checked() }
        return try await withTaskExecutorPreference(EventLoopTaskExecutor(connection.eventLoop)) { try await checked() }
    }

    /// The statement for `sql` with these values: named when there is room, with its translation remembered.
    func prepared(_ sql: String, _ binds: [SQLValue]) -> Prepared {
        guard binds.count <= Self.maximumBindings else { return Self.unnamed(sql) }
        var signature: UInt64 = 0
        for (position, value) in binds.enumerated() {
            let code: UInt64 = switch value {
            case .null: 1
            case .int: 2
            case .text: 3
            }
            signature |= code << (2 * UInt64(position))
        }
        let key = Key(sql: sql, types: signature)
        let entry = entries.withLockedValue { entries -> Entry? in
            if let entry = entries[key] { return entry }
            guard entries.count < Self.maximumStatements else { return nil }
            let entry = Entry(number: entries.count, sql: Self.numbered(sql), types: binds.map(Self.type), version: 0)
            entries[key] = entry
            return entry
        }
        guard let entry, entry.version < Self.maximumVersions else { return Self.unnamed(sql) }
        return Prepared(name: "flint_\(entry.number)_\(entry.version)", sql: entry.sql, types: entry.types, key: key,
                        version: entry.version)
    }

    /// Gives `statement` a new name for its next run (once, however many connections saw the old one fail).
    private func retire(_ statement: Prepared) {
        guard let key = statement.key else { return }
        entries.withLockedValue { entries in
            if entries[key]?.version == statement.version { entries[key]?.version += 1 }
        }
    }

    private enum Failure { case invalidated, unparsed }

    /// Why a named statement failed, when the name is at fault: PostgreSQL no longer has the statement (26000) or
    /// refuses it after a schema change (0A000, "cached plan must not change result type"), or its preparation
    /// failed (class 42: a table or column that does not exist yet, which postgres-nio would otherwise report for
    /// that name forever). nil for every other error (a unique violation, a deadlock), which leaves the name be.
    private static func failure(_ error: PSQLError) -> Failure? {
        guard let state = error.serverInfo?[.sqlState] else { return nil }
        if state == "0A000" || state == "26000" { return .invalidated }
        return state.hasPrefix("42") ? .unparsed : nil
    }

    private func execute(_ statement: Prepared, _ binds: [SQLValue], on connection: PostgresConnection,
                         logger: Logger) async throws -> [SQLRow] {
        guard statement.name != nil else {
            return try await connection.rows(PostgresDatabase.makeQuery(statement.sql, binds), logger: logger)
        }
        let current = CurrentStatement(bindings: Self.bindings(binds))
        return try await Self.sent(on: connection) {
            try await CurrentStatement.$current.withValue(statement) {
                try await PostgresDatabase.collect(connection.execute(current, logger: logger))
            }
        }
    }

    private static func unnamed(_ sql: String) -> Prepared {
        Prepared(name: nil, sql: sql, types: [], key: nil, version: 0)
    }

    private static func type(_ value: SQLValue) -> PostgresDataType {
        switch value {
        case .null: .null
        case .int: .int8
        case .text: .text
        }
    }

    static func bindings(_ binds: [SQLValue]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: binds.count)
        for value in binds {
            switch value {
            case .null: bindings.appendNull()
            case .int(let number): bindings.append(number)
            case .text(let string): bindings.append(string)
            }
        }
        return bindings
    }

    /// Turns `?` placeholders into `$1…$n`. Works on UTF-8 bytes (`?` never occurs inside a multi-byte sequence):
    /// walking the text as Characters cost about 5 % of a lookup's CPU.
    static func numbered(_ sql: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(sql.utf8.count + 8)
        var index = 0
        for byte in sql.utf8 {
            if byte == UInt8(ascii: "?") {
                index += 1
                bytes.append(UInt8(ascii: "$"))
                bytes.append(contentsOf: String(index).utf8)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension PostgresConnection {
    /// The rows of `query`, sent as Flint's statements are (`PostgresStatements.sent`): for the checks Flint makes on
    /// connections of its own (the cache generation's listener, the probes of the URL's hosts).
    func rows(_ query: PostgresQuery, logger: Logger) async throws -> [SQLRow] {
        try await PostgresStatements.sent(on: self) { try await PostgresDatabase.collect(self.query(query, logger: logger)) }
    }
}

/// The statement being run, as postgres-nio's `PostgresPreparedStatement`. That protocol takes the name, text and
/// parameter types from the type (static properties), meant for statements written out as types; Flint's are
/// strings. postgres-nio reads the three synchronously in `execute`, in the calling task, so they come from a
/// task-local value that `PostgresStatements.execute` sets around the call.
private struct CurrentStatement: PostgresPreparedStatement {
    typealias Row = PostgresRow

    @TaskLocal static var current = PostgresStatements.Prepared(name: nil, sql: "", types: [], key: nil, version: 0)

    static var name: String { current.name ?? "" }
    static var sql: String { current.sql }
    static var bindingDataTypes: [PostgresDataType] { current.types }

    let bindings: PostgresBindings

    func makeBindings() -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}
