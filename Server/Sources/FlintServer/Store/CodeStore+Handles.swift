/// Values kept under a short handle (`StoredHandles`): sealed, stored by the handle's SHA-256, until they expire.
extension CodeStore {
    public func insertHandle(hash: String, purpose: String, sealedValue: String, expiresAt: Int64) async throws {
        try await database.query(
            "INSERT INTO stored_handles (handle_hash, purpose, sealed_value, expires_at) VALUES (?, ?, ?, ?)",
            .text(hash), .text(purpose), .text(sealedValue), .int(expiresAt))
    }

    /// The sealed value of a live handle of `purpose` (expiry in epoch seconds), left in place.
    public func handle(hash: String, purpose: String, liveAt now: Int64) async throws -> String? {
        try await database.query(
            "SELECT sealed_value FROM stored_handles WHERE handle_hash = ? AND purpose = ? AND expires_at > ?",
            .text(hash), .text(purpose), .int(now)
        ).first?.string("sealed_value")
    }

    /// Takes (deletes and returns) the sealed value of a live handle of `purpose`: of two takers, one gets it.
    public func takeHandle(hash: String, purpose: String, liveAt now: Int64) async throws -> String? {
        try await database.query(
            "DELETE FROM stored_handles WHERE handle_hash = ? AND purpose = ? AND expires_at > ? RETURNING sealed_value",
            .text(hash), .text(purpose), .int(now)
        ).first?.string("sealed_value")
    }

    /// Deletes handles that expired before `now` (epoch seconds); returns how many went.
    @discardableResult
    public func deleteExpiredHandles(before now: Int64) async throws -> Int {
        try await database.query("DELETE FROM stored_handles WHERE expires_at <= ? RETURNING handle_hash", .int(now)).count
    }
}
