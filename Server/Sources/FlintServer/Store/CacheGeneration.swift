import NIOConcurrencyHelpers

/// The cache generation: a stored number that every write of something nodes cache (project settings, signing
/// keys) moves in the same transaction. On PostgreSQL a node follows it in memory, notified at each commit
/// (`PostgresGenerationListener`); while it cannot (its listening connection is down), it reads the generation
/// instead, once per request, and checks its cached versions only when it moved: one small query a request
/// instead of one per cache.
///
/// Reading it once per request keeps the guarantee the per-cache checks gave: a change committed on any node
/// before a request starts holds for all of that request.
public enum CacheGeneration {
    /// The generation one request has read, shared by everything the request does (its child tasks too).
    public final class RequestScope: Sendable {
        fileprivate let value = NIOLockedValueBox<Int64?>(nil)
        public init() {}
    }

    /// The current request's scope; nil outside requests (background work then reads the generation each time).
    @TaskLocal public static var scope: RequestScope?

    /// The generation, read through `read` at most once in the current request's scope.
    static func current(read: () async throws -> Int64) async throws -> Int64 {
        guard let scope else { return try await read() }
        if let value = scope.value.withLockedValue({ $0 }) { return value }
        let value = try await read()
        scope.value.withLockedValue { $0 = $0 ?? value }
        return value
    }
}
