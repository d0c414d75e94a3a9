import FlintWire
import Foundation

/// One event of the audit trail as the store writes it. Made where the change it records is made (in the store's
/// transaction for a change, on its own for a refusal); who, from where, through which endpoint and when come from
/// the work's `AuditScope`.
public struct AuditEntry: Sendable, Equatable {
    public var type: AuditEventType
    /// The realm's store key (a project's ID, or a tenant's `{project}/tenants/{tenant}`).
    public var realm: String
    public var localID: String?
    public var sessionID: String?
    /// What a change changed: names only, never values.
    public var fields: [String]?
    public var detail: [String: String]?
    public var time: Int64
    public var principal: String
    public var ipAddress: String?
    public var userAgent: String?
    public var operation: String?

    public init(_ type: AuditEventType, realm: String, localID: String? = nil, sessionID: String? = nil,
                fields: [String]? = nil, detail: [String: String]? = nil, scope: AuditScope? = AuditScope.current) {
        self.type = type
        self.realm = realm
        self.localID = localID
        self.sessionID = sessionID
        self.fields = fields
        self.detail = detail
        time = scope?.time ?? AuditScope.clock.milliseconds
        principal = (scope?.principal ?? .server).description
        ipAddress = scope?.ipAddress
        userAgent = scope?.userAgent
        operation = scope?.operation
    }
}

/// A stored event: its ID (the order of the trail) and the entry.
public struct StoredAuditEvent: Sendable, Equatable {
    public var id: Int64
    public var entry: AuditEntry
}

/// Where a page of the trail ends: its last event's time and ID. Pages run newest first in (time, ID) order, so that
/// every filter, a time range too, is a range of one index (an event's time is taken when its request began and its ID
/// when it committed, so the two orders differ a little).
public struct AuditPosition: Sendable, Equatable {
    public var time: Int64
    public var id: Int64

    public init(time: Int64, id: Int64) {
        self.time = time
        self.id = id
    }

    /// The page token the API gives: `<time>.<id>`.
    public var token: String { "\(time).\(id)" }

    /// The position a page token names; nil for a text that is not one.
    public init?(token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let time = Int64(parts[0]), let id = Int64(parts[1]), id > 0 else { return nil }
        self.init(time: time, id: id)
    }
}

extension StoredAuditEvent {
    public var position: AuditPosition { AuditPosition(time: entry.time, id: id) }
}

/// What a reader of the trail asks for; every filter is optional and they combine.
public struct AuditFilter: Sendable, Equatable {
    public var localID: String?
    public var types: [AuditEventType] = []
    /// Epoch milliseconds: from (inclusive) and until (exclusive).
    public var from: Int64?
    public var until: Int64?
    public var ipAddress: String?

    public init(localID: String? = nil, types: [AuditEventType] = [], from: Int64? = nil, until: Int64? = nil,
                ipAddress: String? = nil) {
        self.localID = localID
        self.types = types
        self.from = from
        self.until = until
        self.ipAddress = ipAddress
    }
}

extension AuditStore {
    /// Appends `entries` in `executor`'s transaction: they commit with the change they record, or not at all.
    static func append(_ entries: [AuditEntry], _ executor: any SQLExecutor) async throws {
        for entry in entries {
            try await executor.query(
                """
                INSERT INTO audit_events (realm, time, type, local_id, session_id, ip_address, user_agent, principal,
                    operation, fields, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                .text(entry.realm), .int(entry.time), .text(entry.type.rawValue), SQLValue(entry.localID),
                SQLValue(entry.sessionID), SQLValue(entry.ipAddress), SQLValue(entry.userAgent), .text(entry.principal),
                SQLValue(entry.operation), SQLValue(AccountStore.json(entry.fields)), SQLValue(AccountStore.json(entry.detail)))
        }
    }

    /// Appends `entry` to the trail of every project (not its tenants'): for changes all projects share (signing keys).
    static func appendToEveryProject(_ entry: AuditEntry, _ executor: any SQLExecutor) async throws {
        try await executor.query(
            """
            INSERT INTO audit_events (realm, time, type, local_id, session_id, ip_address, user_agent, principal,
                operation, fields, detail)
            SELECT project_id, ?, ?, NULL, NULL, ?, ?, ?, ?, NULL, ? FROM projects WHERE project_id NOT LIKE '%/%'
            """,
            [.int(entry.time), .text(entry.type.rawValue), SQLValue(entry.ipAddress), SQLValue(entry.userAgent),
             .text(entry.principal), SQLValue(entry.operation), SQLValue(AccountStore.json(entry.detail))])
    }

    /// Appends an event that records no change of its own (a refused sign-in, a spent budget).
    public func append(_ entry: AuditEntry) async throws {
        try await Self.append([entry], database)
    }

    /// The events of `realm` that `filter` keeps, the newest first, after position `before` if given: at most `limit`.
    /// Each filter has an index that leads with the realm and ends with the time and the ID, so a page costs its own
    /// rows, with a time range or without.
    public func events(realm: String, _ filter: AuditFilter, before: AuditPosition?, limit: Int) async throws
        -> [StoredAuditEvent] {
        var conditions = ["realm = ?"]
        var binds: [SQLValue] = [.text(realm)]
        func add(_ condition: String, _ values: SQLValue...) {
            conditions.append(condition)
            binds += values
        }
        if let localID = filter.localID { add("local_id = ?", .text(localID)) }
        if let ipAddress = filter.ipAddress { add("ip_address = ?", .text(ipAddress)) }
        if !filter.types.isEmpty {
            conditions.append("type IN (\(filter.types.map { _ in "?" }.joined(separator: ", ")))")
            binds += filter.types.map { .text($0.rawValue) }
        }
        if let from = filter.from { add("time >= ?", .int(from)) }
        if let until = filter.until { add("time < ?", .int(until)) }
        if let before { add("(time, id) < (?, ?)", .int(before.time), .int(before.id)) }
        binds.append(.int(Int64(limit)))
        return try await database.query(
            "SELECT * FROM audit_events WHERE \(conditions.joined(separator: " AND ")) ORDER BY time DESC, id DESC LIMIT ?", binds
        ).map(Self.event)
    }

    /// The events of `projectID` and its tenants after event `after`, the oldest first: at most `limit`. For streams.
    public func events(ofProject projectID: String, after: Int64, limit: Int) async throws -> [StoredAuditEvent] {
        try await database.query(
            """
            SELECT * FROM audit_events WHERE id > ? AND \(Self.ofProject) ORDER BY id LIMIT ?
            """, .int(after), .text(projectID), .text(Realm.tenantKeyPrefix(of: projectID)),
            .text(Realm.tenantKeyPrefix(of: projectID)), .int(Int64(limit))
        ).map(Self.event)
    }

    /// The newest event's ID (0 when there is none).
    public func latestEventID() async throws -> Int64 {
        try await database.query("SELECT MAX(id) AS id FROM audit_events").first?.int("id") ?? 0
    }

    /// Every realm that has events, each found by one seek of `audit_events_realm` (the next realm after the last),
    /// in the database's order of text: the retention sweep's list, without an index on time alone.
    public func realmsWithEvents() async throws -> [String] {
        var realms: [String] = []
        var next = try await database.query("SELECT MIN(realm) AS realm FROM audit_events").first?.string("realm")
        while let realm = next {
            realms.append(realm)
            next = try await database.query("SELECT MIN(realm) AS realm FROM audit_events WHERE realm > ?", .text(realm))
                .first?.string("realm")
        }
        return realms
    }

    /// Deletes the events of `realm` older than `before` (epoch ms): a range of `audit_events_realm`. Returns how many
    /// went.
    @discardableResult
    public func deleteEvents(realm: String, before: Int64) async throws -> Int {
        try await database.query(
            "DELETE FROM audit_events WHERE realm = ? AND time < ? RETURNING id", .text(realm), .int(before)).count
    }

    /// The condition of a project's realms (binds: the project's ID, then its tenant key prefix twice). A prefix
    /// compared as such, not `LIKE`, whose `_` would match any character.
    private static let ofProject = "(realm = ? OR substr(realm, 1, length(?)) = ?)"

    private static func event(from row: SQLRow) -> StoredAuditEvent {
        var entry = AuditEntry(
            AuditEventType(rawValue: row.string("type") ?? "") ?? .configChanged, realm: row.string("realm") ?? "",
            localID: row.string("local_id"), sessionID: row.string("session_id"),
            fields: row.string("fields").flatMap { decoded([String].self, $0) },
            detail: row.string("detail").flatMap { decoded([String: String].self, $0) }, scope: nil)
        entry.time = row.int("time") ?? 0
        entry.principal = row.string("principal") ?? ""
        entry.ipAddress = row.string("ip_address")
        entry.userAgent = row.string("user_agent")
        entry.operation = row.string("operation")
        return StoredAuditEvent(id: row.int("id") ?? 0, entry: entry)
    }

    private static func decoded<T: Decodable>(_ type: T.Type, _ text: String) -> T? {
        try? JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
