import Foundation

/// A service-account key as stored: its public half and whom it belongs to.
public struct ServiceAccountRecord: Sendable, Equatable {
    public var keyID: String
    public var projectID: String
    public var clientEmail: String
    public var publicKeyPEM: String
    /// Epoch seconds.
    public var createdAt: Int64
    public var revokedAt: Int64?

    public init(keyID: String, projectID: String, clientEmail: String, publicKeyPEM: String, createdAt: Int64,
                revokedAt: Int64? = nil) {
        self.keyID = keyID
        self.projectID = projectID
        self.clientEmail = clientEmail
        self.publicKeyPEM = publicKeyPEM
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

extension ServiceAccountStore {
    public func insertServiceAccount(_ record: ServiceAccountRecord) async throws {
        try await database.transaction { tx in
            try await tx.query(
                """
                INSERT INTO service_accounts (key_id, project_id, client_email, public_key_pem, created_at, revoked_at)
                VALUES (?, ?, ?, ?, ?, NULL)
                """,
                [.text(record.keyID), .text(record.projectID), .text(record.clientEmail), .text(record.publicKeyPEM),
                 .int(record.createdAt)])
            try await AuditStore.append([AuditEntry(.serviceAccountCreated, realm: record.projectID,
                                                    detail: ["keyId": record.keyID, "clientEmail": record.clientEmail])], tx)
        }
    }

    public func serviceAccount(keyID: String) async throws -> ServiceAccountRecord? {
        try await database.query("SELECT * FROM service_accounts WHERE key_id = ?", .text(keyID)).first.map(Self.serviceAccount)
    }

    /// The project's keys, oldest first, revoked ones included.
    public func serviceAccounts(projectID: String) async throws -> [ServiceAccountRecord] {
        try await database.query(
            "SELECT * FROM service_accounts WHERE project_id = ? ORDER BY created_at, key_id", .text(projectID)
        ).map(Self.serviceAccount)
    }

    /// Marks a key revoked; returns whether an active key was revoked.
    @discardableResult
    public func revokeServiceAccount(keyID: String, at seconds: Int64) async throws -> Bool {
        try await database.transaction { tx in
            guard let projectID = try await tx.query(
                "UPDATE service_accounts SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL RETURNING project_id",
                [.int(seconds), .text(keyID)]
            ).first?.string("project_id") else { return false }
            try await AuditStore.append([AuditEntry(.serviceAccountRevoked, realm: projectID, detail: ["keyId": keyID])], tx)
            return true
        }
    }

    private static func serviceAccount(from row: SQLRow) -> ServiceAccountRecord {
        ServiceAccountRecord(
            keyID: row.string("key_id") ?? "", projectID: row.string("project_id") ?? "",
            clientEmail: row.string("client_email") ?? "", publicKeyPEM: row.string("public_key_pem") ?? "",
            createdAt: row.int("created_at") ?? 0, revokedAt: row.int("revoked_at"))
    }
}
