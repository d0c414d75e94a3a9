import Foundation

/// A device authorization (RFC 8628) as stored: what the device asked for, and where the user's decision stands.
public struct OAuthDeviceCodeRow: Sendable {
    public let deviceCodeHash: String
    public let userCodeHash: String
    public let realm: String
    public let clientID: String
    /// The request's scopes and resources (JSON).
    public let request: String
    public let expiresAt: Int64
    public let pollInterval: Int64
}

/// What a device's poll found.
public enum DeviceCodePoll: Sendable {
    /// The user approved: the grant (JSON), now spent.
    case approved(grant: String)
    /// Still waiting; `slowDown` when the device polled sooner than its interval (which has just grown by five seconds).
    case pending(slowDown: Bool)
    case denied
    case expired
    /// Unknown, another client's, or spent before.
    case unknown
}

extension OAuthStore {
    // MARK: Device codes

    public func insertDeviceCode(_ row: OAuthDeviceCodeRow) async throws {
        try await database.query(
            """
            INSERT INTO oauth_device_codes (device_code_hash, user_code_hash, realm, client_id, request, status, poll_interval,
                                            expires_at)
            VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)
            """,
            .text(row.deviceCodeHash), .text(row.userCodeHash), .text(row.realm), .text(row.clientID), .text(row.request),
            .int(row.pollInterval), .int(row.expiresAt))
    }

    /// The live, undecided authorization of a user code in `realm`.
    public func pendingDeviceCode(userCodeHash: String, realm: String, now: Int64) async throws -> OAuthDeviceCodeRow? {
        try await database.query(
            """
            SELECT * FROM oauth_device_codes
            WHERE user_code_hash = ? AND realm = ? AND status = 'pending' AND expires_at > ?
            """, .text(userCodeHash), .text(realm), .int(now)
        ).first.map { row in
            OAuthDeviceCodeRow(
                deviceCodeHash: row.string("device_code_hash") ?? "", userCodeHash: row.string("user_code_hash") ?? "",
                realm: row.string("realm") ?? "", clientID: row.string("client_id") ?? "", request: row.string("request") ?? "",
                expiresAt: row.int("expires_at") ?? 0, pollInterval: row.int("poll_interval") ?? 0)
        }
    }

    /// Records the user's decision on a live, undecided authorization: its grant (JSON) if approved, nil if denied.
    /// False when it was decided, or expired, before.
    public func decideDeviceCode(userCodeHash: String, grant: String?, now: Int64) async throws -> Bool {
        try await !database.query(
            """
            UPDATE oauth_device_codes SET status = ?, grant_payload = ?
            WHERE user_code_hash = ? AND status = 'pending' AND expires_at > ? RETURNING device_code_hash
            """, .text(grant == nil ? "denied" : "approved"), SQLValue(grant), .text(userCodeHash), .int(now)
        ).isEmpty
    }

    /// A poll by `clientID` for its device code: an approval is spent by the first poll that finds it, which begins its
    /// token family with `begin` (given the grant) in the same transaction.
    public func pollDeviceCode(hash: String, clientID: String, now: Int64,
                               begin: @Sendable (String, any SQLExecutor) async throws -> Void) async throws -> DeviceCodePoll {
        try await database.transaction { tx in
            guard let row = try await tx.query(
                "SELECT * FROM oauth_device_codes WHERE device_code_hash = ? AND client_id = ?", [.text(hash), .text(clientID)]
            ).first, let status = row.string("status") else { return .unknown }
            guard (row.int("expires_at") ?? 0) > now else { return status == "redeemed" ? .unknown : .expired }
            switch status {
            case "approved":
                guard let grant = try await tx.query(
                    """
                    UPDATE oauth_device_codes SET status = 'redeemed'
                    WHERE device_code_hash = ? AND status = 'approved' RETURNING grant_payload
                    """, [.text(hash)]
                ).first?.string("grant_payload") else { return .unknown }
                try await begin(grant, tx)
                return .approved(grant: grant)
            case "denied":
                return .denied
            case "pending":
                let interval = row.int("poll_interval") ?? 5
                let early = row.int("polled_at").map { now - $0 < interval } ?? false
                try await tx.query(
                    "UPDATE oauth_device_codes SET polled_at = ?, poll_interval = ? WHERE device_code_hash = ?",
                    [.int(now), .int(early ? interval + 5 : interval), .text(hash)])
                return .pending(slowDown: early)
            default:
                return .unknown
            }
        }
    }
}
