import Foundation

/// A stored client of the OpenID provider: its settings as JSON (the feature's to read) and its secret's hash.
public struct OAuthClientRow: Sendable {
    public let clientID: String
    public let realm: String
    public let settings: String
    public let secretHash: String?
    public let createdAt: Int64
    /// A self-registered client's (RFC 7591): when it is deleted if it never got a token.
    public var unusedExpiry: Int64? = nil
}

/// A token family: what one authorization code began (its grant, as JSON), revoked as one.
public struct OAuthFamilyRow: Sendable {
    public let familyID: String
    public let realm: String
    public let localID: String
    public let clientID: String
    public let grant: String
    public let createdAt: Int64
    public let revokedAt: Int64?
}

/// A browser session of the provider's sign-in page.
public struct ProviderSessionRow: Sendable {
    public let sid: String
    public let realm: String
    public let localID: String
    /// How the user signed in, as JSON (the feature's to read).
    public let signIn: String
    public let createdAt: Int64
    public let expiresAt: Int64
}

/// What redeeming an authorization code found.
public enum CodeRedemption<Redeemed: Sendable>: Sendable {
    /// The code was live and is now spent: what the redemption made of its payload (and the family begun for it).
    case redeemed(Redeemed)
    /// The code had been spent before: the family it began (if any) has just been revoked.
    case reused
    /// No live code of that hash for that client.
    case unknown
}

/// What presenting a refresh token found.
public enum RefreshTokenUse: Sendable {
    /// A live token of a live family.
    case live(OAuthFamilyRow)
    /// A token that was rotated away before: its family has just been revoked.
    case reused
    /// Unknown, or its family revoked.
    case unknown
}

extension OAuthStore {
    // MARK: Clients

    public func insertClient(_ row: OAuthClientRow) async throws {
        try await database.transaction { tx in
            try await tx.query(
                """
                INSERT INTO oauth_clients (client_id, realm, settings, secret_hash, created_at, unused_expiry)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
                [.text(row.clientID), .text(row.realm), .text(row.settings), SQLValue(row.secretHash), .int(row.createdAt),
                 SQLValue(row.unusedExpiry)])
            try await AuditStore.append([AuditEntry(.oauthClientCreated, realm: row.realm, detail: ["clientId": row.clientID])], tx)
        }
    }

    /// Records a client named by its metadata document (`client_id` its URL), or refreshes the record: what the grants
    /// and tokens of its users refer to. Its `unused_expiry` moves on with every fetch, so the janitor removes only a
    /// record no one has used for that long.
    public func keepDocumentClient(_ row: OAuthClientRow) async throws {
        try await database.query(
            """
            INSERT INTO oauth_clients (client_id, realm, settings, secret_hash, created_at, unused_expiry)
            VALUES (?, ?, ?, NULL, ?, ?)
            ON CONFLICT (client_id) DO UPDATE SET settings = excluded.settings, unused_expiry = excluded.unused_expiry
            """,
            .text(row.clientID), .text(row.realm), .text(row.settings), .int(row.createdAt), SQLValue(row.unusedExpiry))
    }

    public func client(_ clientID: String) async throws -> OAuthClientRow? {
        try await database.query("SELECT * FROM oauth_clients WHERE client_id = ?", .text(clientID)).first.map(Self.client)
    }

    /// A realm's registered clients in `client_id` order, after `after`.
    public func clients(realm: String, after: String?, limit: Int) async throws -> [OAuthClientRow] {
        try await database.query(
            // Clients named by a metadata document are not registered: not listed.
            "SELECT * FROM oauth_clients WHERE realm = ? AND client_id > ? AND client_id NOT LIKE 'https://%' ORDER BY client_id LIMIT ?",
            .text(realm), .text(after ?? ""), .int(Int64(limit))
        ).map(Self.client)
    }

    /// Replaces a client's settings (and, when given, its secret's hash); false if there is no such client.
    public func updateClient(_ clientID: String, settings: String, secretHash: String??) async throws -> Bool {
        try await database.transaction { tx in
            guard let old = try await tx.query("SELECT realm, settings FROM oauth_clients WHERE client_id = ?", [.text(clientID)]).first,
                  let realm = old.string("realm")
            else { return false }
            var fields = AuditEntry.configChanged(realm: realm, from: old.string("settings"), to: settings).fields ?? []
            if let secretHash {
                try await tx.query("UPDATE oauth_clients SET settings = ?, secret_hash = ? WHERE client_id = ?",
                                   [.text(settings), SQLValue(secretHash), .text(clientID)])
                fields.append("clientSecret")
            } else {
                try await tx.query("UPDATE oauth_clients SET settings = ? WHERE client_id = ?", [.text(settings), .text(clientID)])
            }
            try await AuditStore.append(
                [AuditEntry(.oauthClientUpdated, realm: realm, fields: fields, detail: ["clientId": clientID])], tx)
            return true
        }
    }

    /// Deletes a client with everything it was granted (consents, token families and their refresh tokens).
    public func deleteClient(_ clientID: String) async throws -> Bool {
        try await database.transaction { tx in
            try await tx.query(
                "DELETE FROM oauth_refresh_tokens WHERE family_id IN (SELECT family_id FROM oauth_token_families WHERE client_id = ?)",
                [.text(clientID)])
            try await tx.query("DELETE FROM oauth_token_families WHERE client_id = ?", [.text(clientID)])
            try await tx.query("DELETE FROM oauth_grants WHERE client_id = ?", [.text(clientID)])
            try await tx.query("DELETE FROM oauth_codes WHERE client_id = ?", [.text(clientID)])
            guard let realm = try await tx.query(
                "DELETE FROM oauth_clients WHERE client_id = ? RETURNING realm", [.text(clientID)]).first?.string("realm")
            else { return false }
            try await AuditStore.append([AuditEntry(.oauthClientDeleted, realm: realm, detail: ["clientId": clientID])], tx)
            return true
        }
    }

    private static func client(_ row: SQLRow) -> OAuthClientRow {
        OAuthClientRow(clientID: row.string("client_id") ?? "", realm: row.string("realm") ?? "",
                       settings: row.string("settings") ?? "{}", secretHash: row.string("secret_hash"),
                       createdAt: row.int("created_at") ?? 0)
    }

    // MARK: Consents

    /// The scopes a user has granted a client (empty: none).
    public func grantedScopes(realm: String, localID: String, clientID: String) async throws -> String? {
        try await database.query(
            "SELECT scopes FROM oauth_grants WHERE realm = ? AND local_id = ? AND client_id = ?",
            .text(realm), .text(localID), .text(clientID)
        ).first?.string("scopes")
    }

    /// Records (or widens) a user's consent to a client.
    public func saveGrant(realm: String, localID: String, clientID: String, scopes: String, at time: Int64) async throws {
        try await database.query(
            """
            INSERT INTO oauth_grants (realm, local_id, client_id, scopes, granted_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (realm, local_id, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at
            """,
            .text(realm), .text(localID), .text(clientID), .text(scopes), .int(time))
    }

    /// A user's consents: client, scopes, when.
    public func grants(realm: String, localID: String) async throws -> [(clientID: String, scopes: String, grantedAt: Int64)] {
        try await database.query(
            "SELECT client_id, scopes, granted_at FROM oauth_grants WHERE realm = ? AND local_id = ? ORDER BY client_id",
            .text(realm), .text(localID)
        ).map { ($0.string("client_id") ?? "", $0.string("scopes") ?? "", $0.int("granted_at") ?? 0) }
    }

    /// Withdraws a user's consent to a client, and revokes every token the client holds for the user; false if there
    /// was no consent and no token.
    public func revokeGrant(realm: String, localID: String, clientID: String, at time: Int64) async throws -> Bool {
        try await database.transaction { tx in
            let grants = try await tx.query(
                "DELETE FROM oauth_grants WHERE realm = ? AND local_id = ? AND client_id = ? RETURNING client_id",
                [.text(realm), .text(localID), .text(clientID)])
            let families = try await tx.query(
                """
                UPDATE oauth_token_families SET revoked_at = ?
                WHERE realm = ? AND local_id = ? AND client_id = ? AND revoked_at IS NULL RETURNING family_id
                """, [.int(time), .text(realm), .text(localID), .text(clientID)])
            guard !grants.isEmpty || !families.isEmpty else { return false }
            try await AuditStore.append(
                [AuditEntry(.oauthGrantRevoked, realm: realm, localID: localID, detail: ["clientId": clientID])], tx)
            return true
        }
    }

    // MARK: Codes

    public func insertCode(hash: String, clientID: String, payload: String, expiresAt: Int64) async throws {
        try await database.query(
            "INSERT INTO oauth_codes (code_hash, client_id, payload, expires_at) VALUES (?, ?, ?, ?)",
            .text(hash), .text(clientID), .text(payload), .int(expiresAt))
    }

    /// Spends a live code of `clientID` and, in the same transaction, begins its token family with `begin` (given the
    /// code's payload); of two redeemers, one wins. A code spent before revokes the family it began.
    public func redeemCode<Redeemed: Sendable>(
        hash: String, clientID: String, familyID: String, now: Int64,
        begin: @Sendable (String, any SQLExecutor) async throws -> Redeemed
    ) async throws -> CodeRedemption<Redeemed> {
        try await database.transaction { tx in
            if let payload = try await tx.query(
                """
                UPDATE oauth_codes SET used_at = ?, family_id = ?
                WHERE code_hash = ? AND client_id = ? AND used_at IS NULL AND expires_at > ? RETURNING payload
                """, [.int(now), .text(familyID), .text(hash), .text(clientID), .int(now)]
            ).first?.string("payload") {
                return .redeemed(try await begin(payload, tx))
            }
            guard let spent = try await tx.query(
                "SELECT family_id FROM oauth_codes WHERE code_hash = ? AND used_at IS NOT NULL", [.text(hash)]
            ).first else { return .unknown }
            if let family = spent.string("family_id") {
                try await tx.query(
                    "UPDATE oauth_token_families SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL",
                    [.int(now), .text(family)])
            }
            return .reused
        }
    }

    // MARK: Token families and refresh tokens

    /// Begins a family in `executor` (the code's redemption), with its first refresh token if one is given.
    public static func insertFamily(_ family: OAuthFamilyRow, refreshTokenHash: String?, _ executor: any SQLExecutor)
        async throws {
        try await executor.query(
            """
            INSERT INTO oauth_token_families (family_id, realm, local_id, client_id, grant_payload, created_at)
            VALUES (?, ?, ?, ?, ?, ?)
            """,
            [.text(family.familyID), .text(family.realm), .text(family.localID), .text(family.clientID), .text(family.grant),
             .int(family.createdAt)])
        if let refreshTokenHash {
            try await insertRefreshToken(hash: refreshTokenHash, familyID: family.familyID, at: family.createdAt, executor)
        }
    }

    private static func insertRefreshToken(hash: String, familyID: String, at time: Int64, _ executor: any SQLExecutor)
        async throws {
        try await executor.query(
            "INSERT INTO oauth_refresh_tokens (token_hash, family_id, created_at) VALUES (?, ?, ?)",
            [.text(hash), .text(familyID), .int(time)])
    }

    /// A live family.
    public func family(_ familyID: String) async throws -> OAuthFamilyRow? {
        try await database.query(
            "SELECT * FROM oauth_token_families WHERE family_id = ? AND revoked_at IS NULL", .text(familyID)
        ).first.map(Self.family)
    }

    /// Presents a refresh token of `clientID`. With `rotatingTo`, the token is spent and the new one (its hash) takes
    /// its place in the family, atomically; a token spent before revokes its family.
    public func useRefreshToken(hash: String, clientID: String, rotatingTo newHash: String?, now: Int64) async throws
        -> RefreshTokenUse {
        try await database.transaction { tx in
            guard let row = try await tx.query(
                """
                SELECT f.*, r.rotated_at AS r_rotated_at FROM oauth_refresh_tokens r
                JOIN oauth_token_families f ON f.family_id = r.family_id
                WHERE r.token_hash = ? AND f.client_id = ?
                """, [.text(hash), .text(clientID)]
            ).first else { return .unknown }
            let family = Self.family(row)
            if family.revokedAt != nil { return .unknown }
            if row.int("r_rotated_at") != nil {
                try await tx.query(
                    "UPDATE oauth_token_families SET revoked_at = ? WHERE family_id = ?", [.int(now), .text(family.familyID)])
                return .reused
            }
            // Written at most hourly, as a Firebase session's last use is (`TokenService.lastUsedGranularity`): a client
            // that refreshes often does not make every refresh a write.
            if now - (row.int("last_used_at") ?? 0) >= Self.lastUsedGranularity {
                try await tx.query(
                    "UPDATE oauth_token_families SET last_used_at = ? WHERE family_id = ?", [.int(now), .text(family.familyID)])
            }
            if let newHash {
                let spent = try await tx.query(
                    "UPDATE oauth_refresh_tokens SET rotated_at = ? WHERE token_hash = ? AND rotated_at IS NULL RETURNING token_hash",
                    [.int(now), .text(hash)])
                // Another request rotated it a moment ago: a second use, as above.
                if spent.isEmpty {
                    try await tx.query(
                        "UPDATE oauth_token_families SET revoked_at = ? WHERE family_id = ?", [.int(now), .text(family.familyID)])
                    return .reused
                }
                try await Self.insertRefreshToken(hash: newHash, familyID: family.familyID, at: now, tx)
            }
            return .live(family)
        }
    }

    /// The family a refresh token (its hash) belongs to, revoked or not, for revocation and introspection.
    public func familyOfRefreshToken(hash: String) async throws -> (family: OAuthFamilyRow, rotated: Bool)? {
        guard let row = try await database.query(
            """
            SELECT f.*, r.rotated_at AS r_rotated_at FROM oauth_refresh_tokens r
            JOIN oauth_token_families f ON f.family_id = r.family_id WHERE r.token_hash = ?
            """, .text(hash)
        ).first else { return nil }
        return (Self.family(row), row.int("r_rotated_at") != nil)
    }

    /// Revokes a family; false if it was not live.
    @discardableResult
    public func revokeFamily(_ familyID: String, at time: Int64) async throws -> Bool {
        !(try await database.query(
            "UPDATE oauth_token_families SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL RETURNING family_id",
            .int(time), .text(familyID))).isEmpty
    }

    /// The user's families that still hold, the sessions of the provider's clients, each with when it last got
    /// tokens: not revoked, and with a refresh token not yet spent or, without one, issued at or after
    /// `accessTokensSince` (its access token may be in date).
    public func liveFamilies(realm: String, localID: String, accessTokensSince: Int64) async throws
        -> [(family: OAuthFamilyRow, lastUsedAt: Int64)] {
        try await database.query(
            """
            SELECT * FROM oauth_token_families WHERE realm = ? AND local_id = ? AND \(Self.holds)
            ORDER BY last_used_at DESC, family_id
            """, .text(realm), .text(localID), .int(accessTokensSince)
        ).map { (Self.family($0), $0.int("last_used_at") ?? 0) }
    }

    /// The condition of a family that still holds (bind: `accessTokensSince`).
    /// How stale a family's `last_used_at` may get (seconds) before a refresh writes it again.
    static let lastUsedGranularity: Int64 = 3600

    private static let holds = """
        revoked_at IS NULL AND (created_at >= ? OR EXISTS (SELECT 1 FROM oauth_refresh_tokens r
            WHERE r.family_id = oauth_token_families.family_id AND r.rotated_at IS NULL))
        """

    /// Revokes the user's families that still hold (as `liveFamilies` has them) and `selection` names, each with a
    /// `sessionEnded` event naming its client, in one transaction; returns their IDs.
    public func revokeFamilies(realm: String, localID: String, _ selection: SessionSelection, accessTokensSince: Int64,
                               at time: Int64) async throws -> [String] {
        let (condition, familyID) = switch selection {
        case .only(let familyID): ("family_id = ?", familyID)
        case .allBut(let familyID): ("family_id <> ?", familyID)
        }
        return try await database.transaction { tx in
            let revoked = try await tx.query(
                """
                UPDATE oauth_token_families SET revoked_at = ?
                WHERE realm = ? AND local_id = ? AND \(condition) AND \(Self.holds) RETURNING family_id, client_id
                """, [.int(time), .text(realm), .text(localID), .text(familyID), .int(accessTokensSince)]
            ).map { (family: $0.string("family_id") ?? "", client: $0.string("client_id") ?? "") }.sorted { $0.family < $1.family }
            try await AuditStore.append(revoked.map {
                AuditEntry(.sessionEnded, realm: realm, localID: localID, sessionID: $0.family, detail: ["clientId": $0.client])
            }, tx)
            return revoked.map(\.family)
        }
    }

    private static func family(_ row: SQLRow) -> OAuthFamilyRow {
        OAuthFamilyRow(familyID: row.string("family_id") ?? "", realm: row.string("realm") ?? "",
                       localID: row.string("local_id") ?? "", clientID: row.string("client_id") ?? "",
                       grant: row.string("grant_payload") ?? "{}", createdAt: row.int("created_at") ?? 0,
                       revokedAt: row.int("revoked_at"))
    }

    // MARK: Browser sessions

    public func insertProviderSession(cookieHash: String, _ session: ProviderSessionRow) async throws {
        try await database.query(
            """
            INSERT INTO provider_sessions (cookie_hash, sid, realm, local_id, sign_in, created_at, expires_at)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """,
            .text(cookieHash), .text(session.sid), .text(session.realm), .text(session.localID), .text(session.signIn),
            .int(session.createdAt), .int(session.expiresAt))
    }

    /// The live session a cookie (its hash) stands for.
    public func providerSession(cookieHash: String, liveAt now: Int64) async throws -> ProviderSessionRow? {
        try await database.query(
            "SELECT * FROM provider_sessions WHERE cookie_hash = ? AND expires_at > ?", .text(cookieHash), .int(now)
        ).first.map { row in
            ProviderSessionRow(sid: row.string("sid") ?? "", realm: row.string("realm") ?? "", localID: row.string("local_id") ?? "",
                               signIn: row.string("sign_in") ?? "{}", createdAt: row.int("created_at") ?? 0,
                               expiresAt: row.int("expires_at") ?? 0)
        }
    }

    /// Ends a session by its cookie's hash or by its `sid`: the user signed out of the provider.
    public func endProviderSession(cookieHash: String? = nil, sid: String? = nil) async throws {
        try await database.transaction { tx in
            var ended: [SQLRow] = []
            if let cookieHash {
                ended += try await tx.query(
                    "DELETE FROM provider_sessions WHERE cookie_hash = ? RETURNING realm, local_id, sid", [.text(cookieHash)])
            }
            if let sid {
                ended += try await tx.query("DELETE FROM provider_sessions WHERE sid = ? RETURNING realm, local_id, sid", [.text(sid)])
            }
            try await AuditStore.append(ended.map {
                AuditEntry(.signOut, realm: $0.string("realm") ?? "", localID: $0.string("local_id"), sessionID: $0.string("sid"))
            }, tx)
        }
    }

    /// Deletes expired sessions, codes and device codes that expired a day ago (kept that long so that a second use is
    /// still known as one, and revokes what the first issued), families revoked before `now`, and self-registered
    /// clients past their expiry that never got a token; returns how many rows went.
    @discardableResult
    public func deleteExpired(before now: Int64) async throws -> Int {
        let sessions = try await database.query(
            "DELETE FROM provider_sessions WHERE expires_at <= ? RETURNING sid", .int(now)).count
        let codes = try await database.query(
            "DELETE FROM oauth_codes WHERE expires_at <= ? RETURNING code_hash", .int(now - 86_400)).count
        try await database.query(
            "DELETE FROM oauth_refresh_tokens WHERE family_id IN (SELECT family_id FROM oauth_token_families WHERE revoked_at <= ?)",
            .int(now))
        let families = try await database.query(
            "DELETE FROM oauth_token_families WHERE revoked_at <= ? RETURNING family_id", .int(now)).count
        let deviceCodes = try await database.query(
            "DELETE FROM oauth_device_codes WHERE expires_at <= ? RETURNING device_code_hash", .int(now - 86_400)).count
        let unusedClients = try await database.query(
            """
            DELETE FROM oauth_clients WHERE unused_expiry IS NOT NULL AND unused_expiry <= ?
            AND NOT EXISTS (SELECT 1 FROM oauth_token_families f WHERE f.client_id = oauth_clients.client_id)
            RETURNING client_id
            """, .int(now)).count
        return sessions + codes + families + deviceCodes + unusedClients
    }
}
