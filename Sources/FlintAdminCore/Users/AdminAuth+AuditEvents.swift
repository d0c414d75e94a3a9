import FlintWire
import Foundation

/// One event of a Flint server's audit trail: who did what to which user, from where, and when.
public typealias AuditEvent = FlintWire.AuditEvent
/// What an event records; its raw value is the event's `type` on the wire.
public typealias AuditEventType = FlintWire.AuditEventType
/// A page of the trail, the newest event first, and the token of the next (older) page.
public typealias ListAuditEventsResponse = FlintWire.ListAuditEventsResponse

/// What ``AdminAuth/auditEvents(_:pageToken:)`` and ``AdminAuth/allAuditEvents(_:)`` ask for: every filter is
/// optional, and those given combine.
public struct AuditEventQuery: Sendable, Equatable {
    /// The server's page when none is asked for, and the largest it gives.
    public static let defaultPageSize = 100
    public static let maximumPageSize = 1000

    /// Only the events about this user (their `localId`); the user need not exist any more.
    public var uid: String?
    /// Only events of these types; empty for every type.
    public var types: [AuditEventType]
    /// Only events from `start` (inclusive) until `end` (exclusive), to the millisecond.
    public var start: Date?
    public var end: Date?
    /// Only events of requests from this client address.
    public var ipAddress: String?
    /// Events a page: 1 to ``maximumPageSize``.
    public var pageSize: Int

    public init(uid: String? = nil, types: [AuditEventType] = [], start: Date? = nil, end: Date? = nil,
                ipAddress: String? = nil, pageSize: Int = AuditEventQuery.defaultPageSize) {
        self.uid = uid
        self.types = types
        self.start = start
        self.end = end
        self.ipAddress = ipAddress
        self.pageSize = pageSize
    }

    /// `date` in RFC 3339 UTC, cut to the millisecond the trail keeps: a formatter's rounding up would pass over an
    /// event of that very instant.
    static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let whole = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        return whole.dropLast() + String(format: ".%03dZ", Int(fraction))
    }

    /// The admin API's query parameters for the page after `pageToken`, once the arguments pass the checks (an
    /// invalid uid is `invalidUID`, a page size out of range or a time before 1970 `invalidArgument`).
    func parameters(pageToken: String?) throws -> [(String, String)] {
        try Check.pageSize(pageSize, atMost: Self.maximumPageSize)
        var parameters = [("pageSize", String(pageSize))]
        if let uid {
            try Check.uid(uid)
            parameters.append(("localId", uid))
        }
        if !types.isEmpty { parameters.append(("type", types.map(\.rawValue).joined(separator: ","))) }
        for (name, date) in [("startTime", start), ("endTime", end)] {
            guard let date else { continue }
            try Check.timestamp(date, code: .invalidArgument)
            parameters.append((name, Self.timestamp(date)))
        }
        if let ipAddress { parameters.append(("ipAddress", ipAddress)) }
        if let pageToken { parameters.append(("pageToken", pageToken)) }
        return parameters
    }
}

/// The audit trail of the client's project, or of its tenant for a tenant's `AdminAuth`
/// (`v2/projects/{p}[/tenants/{t}]/auditEvents`, a Flint extension in the v2 style): the security events the server
/// wrote with the changes they record (sign-ins, refusals, admins' changes), newest first.
extension AdminAuth {
    /// One page of the events `query` keeps, the newest first; its `nextPageToken`, given back as `pageToken`, asks
    /// for the older ones after it (none after the last page).
    ///
    /// Flint servers only: Firebase and the official emulator have no such endpoint.
    ///
    /// - Throws: `invalidUID` or `invalidArgument` for a query that fails its checks, before anything is sent
    ///   (see ``AuditEventQuery``); `invalidPageToken` for a page token the server did not give.
    public func auditEvents(_ query: AuditEventQuery = .init(), pageToken: String? = nil) async throws -> ListAuditEventsResponse {
        let path = "/v2/" + resourceName + "/auditEvents?" + FormURLEncoding.encode(try query.parameters(pageToken: pageToken))
        do {
            return try await connection.call("GET", path, as: ListAuditEventsResponse.self)
        } catch let error as AdminError where pageToken != nil && error.serverCode == ServerErrorCode.invalidArgument.rawValue {
            // The checks leave the server nothing else to refuse: firebase-admin's table has no name for
            // `INVALID_ARGUMENT`, and it would be `internalError`.
            throw AdminError(.invalidPageToken, error.message, serverCode: error.serverCode, httpStatus: error.httpStatus)
        }
    }

    /// Every event `query` keeps, the newest first, fetched a page (`query.pageSize`) at a time as the sequence is
    /// iterated. Events written while it runs are not in it: pages go back from the first page's newest event.
    ///
    /// Flint servers only. A query that fails its checks throws from the first page, before anything is sent.
    public func allAuditEvents(_ query: AuditEventQuery = .init()) -> AuditEventSequence {
        AuditEventSequence(pages: Pages { pageToken in
            let page = try await self.auditEvents(query, pageToken: pageToken)
            return (page.events, page.nextPageToken)
        })
    }
}

/// The events of ``AdminAuth/allAuditEvents(_:)`` one by one, over the pages the server gives.
public struct AuditEventSequence: AsyncSequence, Sendable {
    public typealias Element = AuditEvent
    let pages: Pages<AuditEvent>

    public func makeAsyncIterator() -> Iterator { Iterator(pages: pages.makeAsyncIterator()) }

    public struct Iterator: AsyncIteratorProtocol {
        var pages: Pages<AuditEvent>.Iterator
        /// What is left of the page last fetched.
        var page: ArraySlice<AuditEvent> = []

        public mutating func next() async throws -> AuditEvent? {
            while page.isEmpty {
                guard let next = try await pages.next() else { return nil }
                page = next[...]
            }
            return page.popFirst()
        }
    }
}
