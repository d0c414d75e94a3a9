import ArgumentParser
import FlintAdminCore
import FlintServer
import FlintWire
import Foundation

/// `flint audit`: the audit trail of the project (or of its tenant, `--tenant`), as the admin API's
/// `v2/projects/{p}[/tenants/{t}]/auditEvents` pages it, on the database or `--server`: a table, JSON Lines for
/// export, or the new events as they are written (`--follow`).
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Read the audit trail: sign-ins, refusals and admins' changes, newest first.",
        discussion: """
            The filters combine. --json-lines prints one event a line, the oldest first, for export. --follow prints \
            the events written from now on (with --since, from then on) as they come, the oldest first, until \
            interrupted.
            """)
    @OptionGroup var options: AdminOptions
    @Option(help: ArgumentHelp(
        "Only the events about this user: a uid (a deleted user's too), or an email or phone number to look up.", valueName: "user"))
    var user: String?
    @Option(name: .customLong("type"), help: ArgumentHelp("Only events of these types, comma-separated (signIn,signInFailed).",
                                                          valueName: "types"), transform: Self.types)
    var types: [AuditEventType]?
    @Option(help: ArgumentHelp("Only events from this RFC 3339 time on (2026-12-01T00:00:00Z).", valueName: "time"),
            transform: Self.milliseconds)
    var since: Int64?
    @Option(help: ArgumentHelp("Only events before this RFC 3339 time.", valueName: "time"),
            transform: Self.milliseconds)
    var until: Int64?
    @Option(help: ArgumentHelp("Only events of requests from this client address.", valueName: "address")) var ip: String?
    @Option(help: "The most events to print, the newest of those the filters keep (not with --follow).") var limit = 50
    @Flag(name: .customLong("json-lines"), help: "Print each event as one line of JSON, the oldest first.") var jsonLines = false
    @Flag(help: "Print new events as they are written, polling every second, until interrupted.") var follow = false

    /// How often `--follow` asks for new events.
    static let pollInterval = Duration.seconds(1)

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be positive.") }
        if follow, until != nil { throw ValidationError("--follow and --until exclude each other.") }
    }

    func run() async throws {
        try await options.withBackend { backend in
            var filter = AuditFilter(types: types ?? [], from: since, until: until, ipAddress: ip)
            if let user { filter.localID = try await Self.localID(of: user, backend) }
            guard follow else {
                let events = try await Self.newest(limit, filter, backend)
                return jsonLines ? try Self.printLines(events.reversed()) : Self.printTable(events)
            }
            try await followTrail(filter, backend)
        }
    }

    /// Prints the events `filter` keeps as they are written, the oldest first: those after the newest existing one, or
    /// with `--since` every one from then on. Events are read newest first down to the last one printed, so an event
    /// whose transaction commits after a later event's was printed (concurrent writers on PostgreSQL) is not.
    private func followTrail(_ filter: AuditFilter, _ backend: any AdminBackend) async throws {
        var cursor = since == nil ? try await Self.newest(1, filter, backend).first.map(Self.id) ?? 0 : 0
        Output.note("Following the audit trail (Ctrl-C to stop)…")
        while true {
            let events = try await Self.events(after: cursor, filter, backend)
            if jsonLines {
                try Self.printLines(events)
            } else {
                events.forEach { print(Self.line($0)) }
            }
            fflush(nil) // Standard output is buffered when piped: each batch goes out as it is read.
            cursor = events.last.map(Self.id) ?? cursor
            try await Task.sleep(for: Self.pollInterval)
        }
    }

    /// The uid `user` names: an email or a phone number is looked up (`USER_NOT_FOUND` if nobody has it); a uid is
    /// taken as it is, since the trail of a deleted user outlives the account.
    static func localID(of user: String, _ backend: any AdminBackend) async throws -> String {
        guard user.contains("@") || user.hasPrefix("+") else { return user }
        return try await backend.record(matching: user).localId
    }

    /// The newest `limit` events `filter` keeps, the newest first, read a page (of at most 1,000) at a time.
    static func newest(_ limit: Int, _ filter: AuditFilter, _ backend: any AdminBackend) async throws -> [AuditEvent] {
        var events: [AuditEvent] = []
        var pageToken: String?
        repeat {
            let size = min(limit - events.count, AuditEventQuery.maximumPageSize)
            let page = try await backend.auditEvents(filter, pageSize: size, pageToken: pageToken)
            events += page.events
            pageToken = page.events.isEmpty ? nil : page.nextPageToken
        } while pageToken != nil && events.count < limit
        return events
    }

    /// The events `filter` keeps after event `cursor`, the oldest first: pages read newest first until one reaches it.
    static func events(after cursor: Int64, _ filter: AuditFilter, _ backend: any AdminBackend) async throws -> [AuditEvent] {
        var events: [AuditEvent] = []
        var pageToken: String?
        repeat {
            let page = try await backend.auditEvents(filter, pageSize: AuditEventQuery.defaultPageSize, pageToken: pageToken)
            let newer = page.events.prefix { id($0) > cursor }
            events += newer
            pageToken = newer.count == page.events.count ? page.nextPageToken : nil
        } while pageToken != nil
        return events.reversed()
    }

    static func id(_ event: AuditEvent) -> Int64 { Int64(event.eventId) ?? 0 }

    static let header = ["TIME", "TYPE", "USER", "PRINCIPAL", "ADDRESS", "OPERATION", "DETAIL"]

    static func printTable(_ events: [AuditEvent]) {
        Output.table(header: header, rows: events.map(cells))
    }

    /// A row of `--follow`'s output: the table's cells, the time and the type in columns of their own widths (times
    /// are all as wide), the rest as they come.
    static func line(_ event: AuditEvent) -> String {
        var cells = cells(event)
        cells[1] = cells[1].padding(toLength: typeWidth, withPad: " ", startingAt: 0)
        return cells.joined(separator: "  ")
    }

    private static let typeWidth = AuditEventType.allCases.map(\.rawValue.count).max() ?? 0

    /// An event's cells: what it is about, who acted from where through which endpoint, and what it changed or says
    /// (field names and detail keys, never values the trail does not hold), each on one line.
    static func cells(_ event: AuditEvent) -> [String] {
        let detail = (event.fields.map { ["fields=" + $0.joined(separator: ",")] } ?? [])
            + (event.detail ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return [event.time, event.type.rawValue, event.localId ?? "", event.principal, event.ipAddress ?? "",
                event.operation ?? "", detail.joined(separator: " ")].map(Users.Sessions.oneLine)
    }

    /// One compact JSON object a line, keys sorted, as log shippers and `jq` read them.
    static func printLines(_ events: some Sequence<AuditEvent>) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for event in events { print(String(decoding: try encoder.encode(event), as: UTF8.self)) }
    }

    /// `--type`'s comma-separated types; an unknown one names the types there are.
    static func types(_ text: String) throws -> [AuditEventType] {
        try text.split(separator: ",").map { name in
            guard let type = AuditEventType(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("Unknown event type \(name); the types are \(AuditEventType.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            return type
        }
    }

    /// An RFC 3339 time as the admin API reads it, in epoch milliseconds.
    static func milliseconds(_ text: String) throws -> Int64 {
        do {
            return try AuditRoutes.milliseconds(text, "time")
        } catch is FlintError {
            // The parser prints it after "The value … is invalid for '--since <time>': ".
            throw ValidationError("not an RFC 3339 time, such as 2026-12-01T00:00:00Z.")
        }
    }
}

/// Through `AuditRoutes`, the admin API's own pages.
extension LocalBackend {
    func auditEvents(_ filter: AuditFilter, pageSize: Int, pageToken: String?) async throws -> ListAuditEventsResponse {
        let before = try pageToken.map(AuditRoutes.position)
        return try await AuditRoutes(audit: server.store.audit).page(realm: caller.projectID, filter, before: before, size: pageSize)
    }
}

/// Through FlintAdmin's calls of the trail (`AdminAuth+AuditEvents.swift`).
extension RemoteBackend {
    func auditEvents(_ filter: AuditFilter, pageSize: Int, pageToken: String?) async throws -> ListAuditEventsResponse {
        func date(_ milliseconds: Int64?) -> Date? { milliseconds.map { Date(timeIntervalSince1970: TimeInterval($0) / 1000) } }
        let query = AuditEventQuery(uid: filter.localID, types: filter.types, start: date(filter.from), end: date(filter.until),
                                    ipAddress: filter.ipAddress, pageSize: pageSize)
        return try await remote { try await auth.auditEvents(query, pageToken: pageToken) }
    }
}
