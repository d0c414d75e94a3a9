import Metrics
import NIOConcurrencyHelpers
import Tracing

/// A database that times and traces every statement and transaction it runs: each statement in a client span
/// and in `flint_store_query_duration_seconds{operation}`, each transaction likewise as `TRANSACTION` (its
/// statements are its child spans).
///
/// A statement's operation is its kind and the first table it names, as OpenTelemetry names database spans:
/// `SELECT users`, `INSERT refresh_tokens`, `DELETE oob_codes`. Read off the SQL here, it needs nothing from
/// the Store's many call sites, it names what the database did (a Store method may run several statements),
/// and it stays low-cardinality: Flint's statements are written in code, never built from input. A subquery in
/// a SELECT's column list would lend its table to the name; Flint has none there.
struct InstrumentedDatabase: SQLDatabase {
    let base: any SQLDatabase
    private let instruments: StatementInstruments

    init(_ base: any SQLDatabase, telemetry: Telemetry) {
        self.base = base
        instruments = StatementInstruments(telemetry: telemetry, system: base is PostgresDatabase ? "postgresql" : "sqlite")
    }

    @discardableResult
    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await instruments.measure(sql) { try await base.query(sql, binds) }
    }

    func transaction<T: Sendable>(_ body: @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        let instruments = self.instruments
        return try await instruments.measureTransaction {
            try await base.transaction { executor in
                try await body(InstrumentedExecutor(base: executor, instruments: instruments))
            }
        }
    }

    var migrationLockStatement: String? { base.migrationLockStatement }
    var rowLockClause: String? { base.rowLockClause }
    var identityPrimaryKey: String { base.identityPrimaryKey }

    /// Not measured: no query at all on PostgreSQL, and on SQLite a read of a counter in shared memory.
    func externalChangeToken() async throws -> Int64? { try await base.externalChangeToken() }

    func announceCacheGeneration(_ generation: Int64, in transaction: any SQLExecutor) async throws {
        try await base.announceCacheGeneration(generation, in: transaction)
    }

    func cacheGenerationCommitted(_ generation: Int64) async { await base.cacheGenerationCommitted(generation) }

    func close() async throws { try await base.close() }
}

/// The statements of a transaction, measured like the database's own.
private struct InstrumentedExecutor: SQLExecutor {
    let base: any SQLExecutor
    let instruments: StatementInstruments

    @discardableResult
    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await instruments.measure(sql) { try await base.query(sql, binds) }
    }
}

/// The timer and span name of each operation, made on first sight and found by the statement's words (no
/// string is built per statement).
private final class StatementInstruments: Sendable {
    private struct Operation: Sendable {
        let name: String
        /// `db.operation.name` and `db.collection.name` (empty when none).
        let kind: String
        let table: String
        let timer: Metrics.Timer
    }

    private struct Key: Hashable {
        let kind: Substring
        let table: Substring
    }

    private let telemetry: Telemetry
    /// `db.system.name`: `sqlite` or `postgresql`.
    private let system: String
    private let operations = NIOLockedValueBox<[Key: Operation]>([:])
    /// Operations by statement text, so a statement seen before is not read word by word again (that cost a few
    /// percent of a lookup's CPU). Bounded: a statement built at run time (a change's column list) may have many
    /// spellings; past the bound they are read each time.
    private let operationsByStatement = NIOLockedValueBox<[String: Operation]>([:])
    private static let maximumRememberedStatements = 1024
    private let transaction: Operation

    init(telemetry: Telemetry, system: String) {
        self.telemetry = telemetry
        self.system = system
        transaction = Operation(name: "TRANSACTION", kind: "TRANSACTION", table: "", timer: Self.timer(telemetry, "TRANSACTION"))
    }

    private static func timer(_ telemetry: Telemetry, _ operation: String) -> Metrics.Timer {
        telemetry.metrics.timer(ServerMetrics.storeQueryDuration, dimensions: [("operation", operation)])
    }

    /// A statement is a leaf: its span is never made current, so nothing builds a context for it.
    func measure(_ sql: String, _ run: () async throws -> [SQLRow]) async throws -> [SQLRow] {
        let operation = operation(of: sql)
        let span = telemetry.tracer.startSpan(operation.name, ofKind: .client)
        if span.isRecording {
            span.attributes["db.system.name"] = system
            span.attributes["db.operation.name"] = operation.kind
            if !operation.table.isEmpty { span.attributes["db.collection.name"] = operation.table }
        }
        return try await timed(operation, span, run)
    }

    /// The operation `sql` performs, remembered by its text.
    private func operation(of sql: String) -> Operation {
        if let known = operationsByStatement.withLockedValue({ $0[sql] }) { return known }
        let key = Self.key(of: sql)
        let operation = operations.withLockedValue { operations in
            if let known = operations[key] { return known }
            let name = key.table.isEmpty ? String(key.kind) : "\(key.kind) \(key.table)"
            let made = Operation(name: name, kind: String(key.kind), table: String(key.table), timer: Self.timer(telemetry, name))
            operations[key] = made
            return made
        }
        operationsByStatement.withLockedValue { remembered in
            if remembered.count < Self.maximumRememberedStatements { remembered[sql] = operation }
        }
        return operation
    }

    /// A transaction's span is current while it runs, so its statements' spans are its children.
    func measureTransaction<T>(_ run: () async throws -> T) async throws -> T {
        let span = telemetry.tracer.startSpan(transaction.name, ofKind: .client)
        if span.isRecording { span.attributes["db.system.name"] = system }
        return try await ServiceContext.withValue(span.context) {
            try await timed(transaction, span, run)
        }
    }

    private func timed<T>(_ operation: Operation, _ span: any Span, _ run: () async throws -> T) async throws -> T {
        let start = ContinuousClock.now
        defer {
            operation.timer.record(duration: ContinuousClock.now - start)
            span.end()
        }
        do {
            return try await run()
        } catch {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }

    /// The statement's first word and the table after its first `FROM` (`INTO` for INSERT; the next word for
    /// UPDATE); an empty table when there is none.
    private static func key(of sql: String) -> Key {
        var words = Words(sql)
        guard let kind = words.next() else { return Key(kind: "", table: "") }
        var table: Substring?
        if Words.matches(kind, "UPDATE") {
            table = words.next()
        } else {
            let marker: StaticString = Words.matches(kind, "INSERT") ? "INTO" : "FROM"
            while let word = words.next() {
                if Words.matches(word, marker) { table = words.next(); break }
            }
        }
        return Key(kind: kind, table: table ?? "")
    }

    /// The identifiers and keywords of a statement (runs of letters, digits and `_`), as substrings of it.
    private struct Words: IteratorProtocol {
        private let sql: String
        private var position: String.UTF8View.Index

        init(_ sql: String) {
            self.sql = sql
            position = sql.utf8.startIndex
        }

        mutating func next() -> Substring? {
            let utf8 = sql.utf8
            guard let start = utf8[position...].firstIndex(where: Self.isWordByte) else {
                position = utf8.endIndex
                return nil
            }
            let end = utf8[start...].firstIndex { !Self.isWordByte($0) } ?? utf8.endIndex
            position = end
            return Substring(utf8[start..<end])
        }

        private static func isWordByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"): true
            default: false
            }
        }

        /// Whether `word` is the upper-case keyword `keyword`, in any case.
        static func matches(_ word: Substring, _ keyword: StaticString) -> Bool {
            let bytes = UnsafeBufferPointer(start: keyword.utf8Start, count: keyword.utf8CodeUnitCount)
            return word.utf8.elementsEqual(bytes) { $0 & 0xDF == $1 }
        }
    }
}
