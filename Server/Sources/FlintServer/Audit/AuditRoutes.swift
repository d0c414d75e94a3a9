import FlintWire
import Foundation
import Hummingbird

/// Reading the audit trail: `GET v2/projects/{p}[/tenants/{t}]/auditEvents` (a Flint extension in the v2 style), for
/// admins. Filters combine: `localId`, `type` (comma-separated types), `startTime` and `endTime` (RFC 3339),
/// `ipAddress`; pages newest first, `pageSize` (≤ 1000, default 100) at a time, `pageToken` from the last page.
public struct AuditRoutes: Sendable {
    let audit: AuditStore

    static let defaultPageSize = 100
    static let maximumPageSize = 1000
    static let queryParameters = ["localId", "type", "startTime", "endTime", "ipAddress", "pageSize", "pageToken"]

    init(core: ServerCore) {
        audit = core.store.audit
    }

    /// For `flint audit` on the database, which reads the pages the API gives.
    public init(audit: AuditStore) {
        self.audit = audit
    }

    var endpoints: [Endpoint] {
        let routes = self
        return [
            Endpoint(method: .get, paths: Endpoint.projectPaths(version: "v2", "auditEvents"),
                     contract: EndpointContract(credentials: .admin, query: Self.queryParameters,
                                                response: .json(ListAuditEventsResponse.self))) { request, context, callers in
                let caller = try await callers.resolve(request, context: context, access: .admin)
                return try JSONBody.response(try await routes.page(realm: caller.projectID, request.uri.queryParameters))
            },
        ]
    }

    /// One page of `realm`'s trail as `query` asks.
    func page(realm: String, _ query: Hummingbird.Parameters) async throws -> ListAuditEventsResponse {
        let (filter, before, size) = try Self.request(query)
        return try await page(realm: realm, filter, before: before, size: size)
    }

    /// The first `size` events of `realm`'s trail that `filter` keeps, the newest first, after position `before` if
    /// given; the page token names the last one's position when more are left.
    public func page(realm: String, _ filter: AuditFilter, before: AuditPosition?, size: Int) async throws
        -> ListAuditEventsResponse {
        let events = try await audit.events(realm: realm, filter, before: before, limit: size + 1)
        let shown = events.prefix(size)
        return ListAuditEventsResponse(
            events: shown.map(Self.wire), nextPageToken: events.count > size ? shown.last?.position.token : nil)
    }

    /// The filter, the page token's position and the page size a query names; a malformed one is `INVALID_ARGUMENT`.
    static func request(_ query: Hummingbird.Parameters) throws -> (AuditFilter, AuditPosition?, Int) {
        var filter = AuditFilter()
        filter.localID = nonEmpty(query.get("localId"))
        filter.ipAddress = nonEmpty(query.get("ipAddress"))
        if let types = nonEmpty(query.get("type")) {
            filter.types = try types.split(separator: ",").map {
                guard let type = AuditEventType(rawValue: String($0)) else { throw FlintError(.invalidArgument, "Unknown event type \($0).") }
                return type
            }
        }
        filter.from = try nonEmpty(query.get("startTime")).map { try milliseconds($0, "startTime") }
        filter.until = try nonEmpty(query.get("endTime")).map { try milliseconds($0, "endTime") }
        let before = try nonEmpty(query.get("pageToken")).map(Self.position)
        var size = defaultPageSize
        if let text = nonEmpty(query.get("pageSize")) {
            guard let value = Int(text), (1...maximumPageSize).contains(value) else {
                throw FlintError(.invalidArgument, "pageSize must be 1…\(maximumPageSize).")
            }
            size = value
        }
        return (filter, before, size)
    }

    /// An event as the API shows it.
    static func wire(_ event: StoredAuditEvent) -> AuditEvent {
        let entry = event.entry
        return AuditEvent(
            eventId: String(event.id), time: timestamp(entry.time), type: entry.type, tenantId: Realm(key: entry.realm).tenantID,
            localId: entry.localID, sessionId: entry.sessionID, ipAddress: entry.ipAddress, userAgent: entry.userAgent,
            principal: entry.principal, operation: entry.operation, fields: entry.fields, detail: entry.detail)
    }

    /// `2026-12-02T09:14:03.120Z`, exact to the millisecond the trail keeps.
    static func timestamp(_ milliseconds: Int64) -> String {
        UserRecord.iso8601(milliseconds: milliseconds)
    }

    /// The epoch milliseconds of an RFC 3339 time (`2026-12-01T00:00:00Z`, fractional seconds or not); another text is
    /// `INVALID_ARGUMENT` naming `name`. The API's filters, and `flint audit`'s.
    public static func milliseconds(_ text: String, _ name: String) throws -> Int64 {
        let formats = [Date.ISO8601FormatStyle(), Date.ISO8601FormatStyle(includingFractionalSeconds: true)]
        for format in formats {
            if let date = try? format.parse(text) { return Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
        }
        throw FlintError(.invalidArgument, "\(name) must be an RFC 3339 time.")
    }

    /// The position a page token names; another text is `INVALID_ARGUMENT`.
    public static func position(_ token: String) throws -> AuditPosition {
        guard let position = AuditPosition(token: token) else { throw FlintError(.invalidArgument, "pageToken is not one this API gave.") }
        return position
    }

    private static func nonEmpty(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }
}
