/// Where each stream of the trail stands (`AuditStreamer`): the `audit_streams` row of its key holds the last event
/// ID it delivered. The events table is the streams' outbox; the row is a stream's only state.
extension AuditStore {
    /// Stream `key`'s cursor: the ID of the last event it delivered. A new stream starts at 0, the oldest event the
    /// trail keeps: a receiver configured later still gets the retained history, and no event written between the
    /// configuration and the stream's first pass is missed.
    func streamCursor(_ key: String) async throws -> Int64 {
        try await database.query(
            "INSERT INTO audit_streams (project_id, delivered_through) VALUES (?, 0) ON CONFLICT (project_id) DO NOTHING",
            .text(key))
        return try await Self.cursor(key, lock: "", database) ?? 0
    }

    /// Runs `deliver`, then moves stream `key`'s cursor from `cursor` to `through`. Returns false without calling
    /// `deliver` when another node is delivering the stream, or has moved its cursor since `cursor` was read.
    ///
    /// On PostgreSQL the row stays locked (`FOR UPDATE SKIP LOCKED`) from before `deliver` until the cursor has moved,
    /// across the call to the receiver, so one node at a time delivers a stream and its batches arrive in order; the
    /// lock goes with the connection if the node dies. That holds one pooled connection, and a lock nothing else
    /// takes, for at most the outside-call timeout. A lease (an expiry in the row) would free the connection, but would
    /// trust the nodes' clocks to agree, and a holder that overran its lease could post an older batch after its
    /// successor's newer one. SQLite's transactions exclude every writer, so none is held across the call there: its
    /// one node's streamer delivers one stream at a time by itself.
    func deliver(_ key: String, from cursor: Int64, through: Int64,
                 _ deliver: @Sendable () async throws -> Void) async throws -> Bool {
        guard let lock = database.rowLockClause else {
            try await deliver()
            return try await Self.advance(key, from: cursor, to: through, database)
        }
        return try await database.transaction { tx in
            guard try await Self.cursor(key, lock: "\(lock) SKIP LOCKED", tx) == cursor else { return false }
            try await deliver()
            return try await Self.advance(key, from: cursor, to: through, tx)
        }
    }

    /// The IDs of every realm's events after `after` and through `through`, in order: where the sequence has gaps.
    func eventIDs(after: Int64, through: Int64) async throws -> [Int64] {
        try await database.query("SELECT id FROM audit_events WHERE id > ? AND id <= ? ORDER BY id", .int(after), .int(through))
            .compactMap { $0.int("id") }
    }

    private static func cursor(_ key: String, lock: String, _ executor: any SQLExecutor) async throws -> Int64? {
        try await executor.query("SELECT delivered_through FROM audit_streams WHERE project_id = ? \(lock)", .text(key))
            .first?.int("delivered_through")
    }

    private static func advance(_ key: String, from cursor: Int64, to through: Int64, _ executor: any SQLExecutor) async throws -> Bool {
        try await !executor.query(
            "UPDATE audit_streams SET delivered_through = ? WHERE project_id = ? AND delivered_through = ? RETURNING project_id",
            .int(through), .text(key), .int(cursor)
        ).isEmpty
    }
}
