/// Fixed-window counters in the database, so every node sees the same counts.
extension CounterStore {
    /// Adds one to `bucket` in the window starting at `windowStart` (epoch seconds) and returns the new count.
    /// A counter left from an earlier window starts again at one.
    @discardableResult
    public func incrementCounter(_ bucket: String, windowStart: Int64) async throws -> Int64 {
        try await Self.incrementCounter(bucket, windowStart: windowStart, in: database)
    }

    /// `incrementCounter` inside a transaction (or on any executor): the count commits or rolls back with the rest.
    public static func incrementCounter(_ bucket: String, windowStart: Int64, in executor: any SQLExecutor) async throws -> Int64 {
        let rows = try await executor.query(
            """
            INSERT INTO rate_limits (bucket, window_start, count) VALUES (?, ?, 1)
            ON CONFLICT (bucket) DO UPDATE SET
                count = CASE WHEN rate_limits.window_start = excluded.window_start THEN rate_limits.count + 1 ELSE 1 END,
                window_start = excluded.window_start
            RETURNING count
            """,
            .text(bucket), .int(windowStart))
        return rows.first?.int("count") ?? 1
    }

    /// Takes the single-use `marker`: true for the first caller only, false for every later one while the marker is
    /// kept, whatever `keepUntil` each names (one atomic upsert, so two at the same instant get one true). The marker
    /// is kept at least until the latest `keepUntil` (epoch seconds) any caller named; the janitor sweeps it after that.
    public func claimOnce(_ marker: String, keepUntil: Int64) async throws -> Bool {
        let rows = try await database.query(
            """
            INSERT INTO rate_limits (bucket, window_start, count) VALUES (?, ?, 1)
            ON CONFLICT (bucket) DO UPDATE SET
                count = rate_limits.count + 1,
                window_start = CASE WHEN excluded.window_start > rate_limits.window_start
                                    THEN excluded.window_start ELSE rate_limits.window_start END
            RETURNING count
            """,
            .text(marker), .int(keepUntil))
        return rows.first?.int("count") == 1
    }

    /// The count of `bucket` in the window starting at `windowStart` (0 if none).
    public func counter(_ bucket: String, windowStart: Int64) async throws -> Int64 {
        try await database.query(
            "SELECT count FROM rate_limits WHERE bucket = ? AND window_start = ?", .text(bucket), .int(windowStart)
        ).first?.int("count") ?? 0
    }

    public func resetCounter(_ bucket: String) async throws {
        try await database.query("DELETE FROM rate_limits WHERE bucket = ?", .text(bucket))
    }
}

extension CounterStore {
    /// Deletes counters whose window started before `windowStart` (epoch seconds): they no longer count.
    /// Single-use markers store their expiry as the window start, so they go once they are useless.
    @discardableResult
    public func deleteCounters(windowStartedBefore windowStart: Int64) async throws -> Int {
        try await database.query("DELETE FROM rate_limits WHERE window_start < ? RETURNING bucket", .int(windowStart)).count
    }
}
