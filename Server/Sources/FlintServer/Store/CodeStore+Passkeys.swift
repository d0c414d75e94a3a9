/// A WebAuthn challenge the server issued, as stored: its SHA-256 only, never the challenge itself.
public struct PasskeyChallengeRecord: Sendable, Equatable {
    /// What the challenge may finish.
    public enum Ceremony: String, Sendable {
        /// `passkeyEnrollment:*`, bound to the account that asked (`localID`).
        case enrollment
        /// `passkeySignIn:*`, bound to nothing but its realm: whoever holds the passkey may answer it.
        case signIn
    }

    /// Hex SHA-256 of the challenge's bytes.
    public var challengeHash: String
    /// The realm's store key.
    public var projectID: String
    public var ceremony: Ceremony
    public var localID: String?
    /// Epoch milliseconds.
    public var expiresAt: Int64
}

/// Passkey challenges: single use (taking one deletes it) and short-lived.
extension CodeStore {
    public func insertPasskeyChallenge(_ record: PasskeyChallengeRecord) async throws {
        try await database.query(
            "INSERT INTO passkey_challenges (challenge_hash, project_id, ceremony, local_id, expires_at) VALUES (?, ?, ?, ?, ?)",
            .text(record.challengeHash), .text(record.projectID), .text(record.ceremony.rawValue), SQLValue(record.localID),
            .int(record.expiresAt))
    }

    /// Takes (deletes and returns) the challenge of `projectID` with `challengeHash`, expired or not: the caller
    /// judges the expiry, and either way the challenge cannot be answered twice.
    public func takePasskeyChallenge(challengeHash: String, projectID: String) async throws -> PasskeyChallengeRecord? {
        guard let row = try await database.query(
            """
            DELETE FROM passkey_challenges WHERE challenge_hash = ? AND project_id = ?
            RETURNING ceremony, local_id, expires_at
            """,
            .text(challengeHash), .text(projectID)
        ).first, let ceremony = row.string("ceremony").flatMap(PasskeyChallengeRecord.Ceremony.init(rawValue:)),
            let expiresAt = row.int("expires_at")
        else { return nil }
        return PasskeyChallengeRecord(
            challengeHash: challengeHash, projectID: projectID, ceremony: ceremony, localID: row.string("local_id"),
            expiresAt: expiresAt)
    }

    @discardableResult
    public func deleteExpiredPasskeyChallenges(before milliseconds: Int64) async throws -> Int {
        try await database.query(
            "DELETE FROM passkey_challenges WHERE expires_at < ? RETURNING challenge_hash", .int(milliseconds)).count
    }
}
