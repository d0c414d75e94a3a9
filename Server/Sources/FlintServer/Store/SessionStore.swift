import Foundation

/// Which of a user's sessions to end.
public enum SessionSelection: Sendable {
    case only(String)
    /// Every session but this one (the caller's own).
    case allBut(String)
}

extension SessionStore {
    static func insert(_ session: NewSession, _ executor: any SQLExecutor) async throws {
        let (hash, record) = (session.tokenHash, session.record)
        try await executor.query(
            """
            INSERT INTO refresh_tokens (token_hash, project_id, local_id, sign_in_provider, auth_time, created_at,
                second_factor, second_factor_id, session_claims, sign_in_attributes, session_epoch, last_used_at,
                session_id, created_ip, created_user_agent, last_used_ip, last_used_user_agent)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            .text(hash), .text(record.projectID), .text(record.localID), .text(record.signInProvider),
            .int(record.authTime), .int(record.createdAt), SQLValue(record.secondFactor?.kind),
            SQLValue(record.secondFactor?.enrollmentID), SQLValue(record.sessionClaims), SQLValue(record.signInAttributes),
            .int(record.sessionEpoch), .int(record.lastUsedAt), .text(Self.sessionID(of: session)),
            SQLValue(record.createdFrom.ipAddress), SQLValue(record.createdFrom.userAgent),
            SQLValue(record.createdFrom.ipAddress), SQLValue(record.createdFrom.userAgent))
    }

    /// A session's public ID: the one it was given, else (a session an import or a test made) one made from its row as
    /// migration 20 made them for the sessions before it.
    static func sessionID(of session: NewSession) -> String {
        session.record.sessionID.isEmpty ? "s" + session.tokenHash.prefix(24) : session.record.sessionID
    }

    /// The session a refresh token stands for, with its user, in one round trip; nil if the token is
    /// unknown (never issued, or its user deleted).
    public func refreshSession(hash: String) async throws -> (record: RefreshTokenRecord, user: UserAccount)? {
        guard let (user, row) = try await AccountStore.fetchUserRows(
            extraColumns: """
                , r.sign_in_provider AS r_sign_in_provider, r.auth_time AS r_auth_time, r.created_at AS r_created_at,
                r.second_factor AS r_second_factor, r.second_factor_id AS r_second_factor_id,
                r.session_claims AS r_session_claims, r.sign_in_attributes AS r_sign_in_attributes, r.session_epoch AS r_session_epoch, r.last_used_at AS r_last_used_at,
                r.session_id AS r_session_id, r.last_used_ip AS r_last_used_ip, r.last_used_user_agent AS r_last_used_user_agent,
                r.ended_at AS r_ended_at
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
        record.sessionID = row.string("r_session_id") ?? ""
        record.lastUsedFrom = SessionOrigin(ipAddress: row.string("r_last_used_ip"), userAgent: row.string("r_last_used_user_agent"))
        record.endedAt = row.int("r_ended_at")
        return (record, user)
    }

    /// Notes that a refresh token was used at `time` (epoch seconds), from `origin`.
    public func touchRefreshToken(hash: String, at time: Int64, from origin: SessionOrigin) async throws {
        try await database.query(
            "UPDATE refresh_tokens SET last_used_at = ?, last_used_ip = ?, last_used_user_agent = ? WHERE token_hash = ?",
            .int(time), SQLValue(origin.ipAddress), SQLValue(origin.userAgent), .text(hash))
    }

    /// The live sessions of a user of `realm` (a project's or a tenant's store key), the most recently used first:
    /// those no revocation has ended (`sessionEpoch`, `validSince`).
    public func sessions(realm: String, localID: String) async throws -> [RefreshTokenRecord] {
        try await database.query(
            """
            SELECT r.* FROM refresh_tokens r JOIN users u ON u.project_id = r.project_id AND u.local_id = r.local_id
            WHERE r.project_id = ? AND r.local_id = ? AND r.ended_at IS NULL
            AND r.session_epoch >= u.session_epoch AND r.created_at >= u.valid_since
            ORDER BY r.last_used_at DESC, r.created_at DESC, r.session_id
            """, .text(realm), .text(localID)
        ).map(Self.session)
    }

    /// The user, and whether its session `sessionID` is live (not ended; revocations are the caller's to check), in one
    /// statement: a lookup asks both for every ID token, and on PostgreSQL each statement is a round trip.
    public func user(realm: String, localID: String, withSession sessionID: String) async throws
        -> (user: UserAccount, sessionIsLive: Bool)? {
        try await AccountStore.fetchUserRows(
            extraColumns: """
                , EXISTS (SELECT 1 FROM refresh_tokens s WHERE s.session_id = ? AND s.project_id = u.project_id
                    AND s.local_id = u.local_id AND s.ended_at IS NULL) AS session_live
                """,
            from: "users u", where: "u.project_id = ? AND u.local_id = ?", [.text(sessionID), .text(realm), .text(localID)],
            database
        ).first.map { ($0.user, $0.row.bool("session_live")) }
    }

    /// Ends the user's sessions `selection` names at `time` (their refresh tokens are refused from now on, on every
    /// node, as expired; the janitor deletes them later); returns the IDs of those that ended.
    public func endSessions(realm: String, localID: String, _ selection: SessionSelection, at time: Int64) async throws -> [String] {
        let (condition, sessionID) = switch selection {
        case .only(let sessionID): ("session_id = ?", sessionID)
        case .allBut(let sessionID): ("session_id <> ?", sessionID)
        }
        return try await database.transaction { tx in
            let ended = try await tx.query(
                """
                UPDATE refresh_tokens SET ended_at = ? WHERE project_id = ? AND local_id = ? AND \(condition) AND ended_at IS NULL
                RETURNING session_id
                """, [.int(time), .text(realm), .text(localID), .text(sessionID)]
            ).compactMap { $0.string("session_id") }.sorted()
            try await AuditStore.append(ended.map { AuditEntry(.sessionEnded, realm: realm, localID: localID, sessionID: $0) }, tx)
            return ended
        }
    }

    private static func session(from row: SQLRow) -> RefreshTokenRecord {
        var record = RefreshTokenRecord(
            projectID: row.string("project_id") ?? "", localID: row.string("local_id") ?? "",
            signInProvider: row.string("sign_in_provider") ?? "", authTime: row.int("auth_time") ?? 0,
            createdAt: row.int("created_at") ?? 0,
            secondFactor: row.string("second_factor").map { PassedSecondFactor(kind: $0, enrollmentID: row.string("second_factor_id") ?? "") },
            sessionEpoch: row.int("session_epoch") ?? 0)
        record.lastUsedAt = row.int("last_used_at") ?? record.createdAt
        record.sessionID = row.string("session_id") ?? ""
        record.createdFrom = SessionOrigin(ipAddress: row.string("created_ip"), userAgent: row.string("created_user_agent"))
        record.lastUsedFrom = SessionOrigin(ipAddress: row.string("last_used_ip"), userAgent: row.string("last_used_user_agent"))
        record.endedAt = row.int("ended_at")
        return record
    }

    /// How long a revoked or ended session's row is kept after its last use, so that its refresh token is answered
    /// `TOKEN_EXPIRED`, as Firebase answers a revoked one, rather than unknown.
    public static let endedRetentionSeconds: Int64 = 30 * 86_400

    /// Deletes refresh tokens that can never be used again, once unused since `endedBefore`: those of revoked sessions
    /// (an older session epoch than their user's, or issued before the user's `validSince`) and of ended ones; and,
    /// when `idleBefore` is given, those not used since then. Returns how many went.
    @discardableResult
    public func deleteDeadRefreshTokens(idleBefore: Int64?, endedBefore: Int64) async throws -> Int {
        let ended = try await database.query(
            "DELETE FROM refresh_tokens WHERE ended_at IS NOT NULL AND last_used_at < ? RETURNING token_hash", .int(endedBefore)).count
        let revoked = try await database.query(
            """
            DELETE FROM refresh_tokens WHERE EXISTS (SELECT 1 FROM users u
                WHERE u.project_id = refresh_tokens.project_id AND u.local_id = refresh_tokens.local_id
                AND (u.session_epoch > refresh_tokens.session_epoch OR u.valid_since > refresh_tokens.created_at))
            AND refresh_tokens.last_used_at < ?
            RETURNING token_hash
            """, .int(endedBefore)).count
        guard let idleBefore else { return ended + revoked }
        let idle = try await database.query(
            "DELETE FROM refresh_tokens WHERE last_used_at < ? RETURNING token_hash", .int(idleBefore)).count
        return ended + revoked + idle
    }
}

