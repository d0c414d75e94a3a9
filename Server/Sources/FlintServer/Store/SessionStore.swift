import Foundation

extension SessionStore {
    static func insert(_ session: NewSession, _ executor: any SQLExecutor) async throws {
        let (hash, record) = (session.tokenHash, session.record)
        try await executor.query(
            """
            INSERT INTO refresh_tokens (token_hash, project_id, local_id, sign_in_provider, auth_time, created_at,
                second_factor, second_factor_id, session_claims, sign_in_attributes, session_epoch, last_used_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            .text(hash), .text(record.projectID), .text(record.localID), .text(record.signInProvider),
            .int(record.authTime), .int(record.createdAt), SQLValue(record.secondFactor?.kind),
            SQLValue(record.secondFactor?.enrollmentID), SQLValue(record.sessionClaims), SQLValue(record.signInAttributes),
            .int(record.sessionEpoch),
            .int(record.lastUsedAt))
    }

    /// The session a refresh token stands for, with its user, in one round trip; nil if the token is
    /// unknown (never issued, or its user deleted).
    public func refreshSession(hash: String) async throws -> (record: RefreshTokenRecord, user: UserAccount)? {
        guard let (user, row) = try await AccountStore.fetchUserRows(
            extraColumns: """
                , r.sign_in_provider AS r_sign_in_provider, r.auth_time AS r_auth_time, r.created_at AS r_created_at,
                r.second_factor AS r_second_factor, r.second_factor_id AS r_second_factor_id,
                r.session_claims AS r_session_claims, r.sign_in_attributes AS r_sign_in_attributes, r.session_epoch AS r_session_epoch, r.last_used_at AS r_last_used_at
                """,
            from: "refresh_tokens r JOIN users u ON u.project_id = r.project_id AND u.local_id = r.local_id",
            where: "r.token_hash = ?", [.text(hash)], database
        ).first else { return nil }
        var record = RefreshTokenRecord(
            projectID: user.projectID, localID: user.localID, signInProvider: row.string("r_sign_in_provider") ?? "",
            authTime: row.int("r_auth_time") ?? 0, createdAt: row.int("r_created_at") ?? 0,
            secondFactor: row.string("r_second_factor").map {
                PassedSecondFactor(kind: $0, enrollmentID: row.string("r_second_factor_id") ?? "")
            })
        record.sessionClaims = row.string("r_session_claims")
        record.signInAttributes = row.string("r_sign_in_attributes")
        record.sessionEpoch = row.int("r_session_epoch") ?? 0
        record.lastUsedAt = row.int("r_last_used_at") ?? record.createdAt
        return (record, user)
    }

    /// Notes that a refresh token was used at `time` (epoch seconds).
    public func touchRefreshToken(hash: String, at time: Int64) async throws {
        try await database.query("UPDATE refresh_tokens SET last_used_at = ? WHERE token_hash = ?", .int(time), .text(hash))
    }

    /// Deletes refresh tokens that can never be used again: those of revoked sessions (an older session
    /// epoch than their user's, or issued before the user's `validSince`), and, when `idleBefore` is given,
    /// those not used since then. Returns how many went.
    @discardableResult
    public func deleteDeadRefreshTokens(idleBefore: Int64?) async throws -> Int {
        let revoked = try await database.query(
            """
            DELETE FROM refresh_tokens WHERE EXISTS (SELECT 1 FROM users u
                WHERE u.project_id = refresh_tokens.project_id AND u.local_id = refresh_tokens.local_id
                AND (u.session_epoch > refresh_tokens.session_epoch OR u.valid_since > refresh_tokens.created_at))
            RETURNING token_hash
            """, []).count
        guard let idleBefore else { return revoked }
        let idle = try await database.query(
            "DELETE FROM refresh_tokens WHERE last_used_at < ? RETURNING token_hash", .int(idleBefore)).count
        return revoked + idle
    }
}

