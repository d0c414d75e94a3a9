import Foundation

extension SigningKeyStore {
    public func signingKeys() async throws -> [SigningKeyRecord] {
        try await database.query(
            "SELECT kid, public_key_pem, certificate_pem, sealed_private_key, created_at FROM signing_keys ORDER BY created_at, kid", []
        ).map { row in
            SigningKeyRecord(
                kid: row.string("kid") ?? "", publicKeyPEM: row.string("public_key_pem") ?? "",
                certificatePEM: row.string("certificate_pem") ?? "",
                sealedPrivateKey: row.string("sealed_private_key") ?? "", createdAt: row.int("created_at") ?? 0)
        }
    }

    /// Changes whenever a signing key is added or retired: a node compares it with what it loaded.
    public func signingKeySetVersion() async throws -> SigningKeySetVersion {
        let row = try await database.query("SELECT count(*) AS keys, max(created_at) AS newest FROM signing_keys", []).first
        return SigningKeySetVersion(count: row?.int("keys") ?? 0, newest: row?.int("newest"))
    }

    public func insertSigningKey(_ key: SigningKeyRecord) async throws {
        try await changingCached { tx in
            try await tx.query(
                "INSERT INTO signing_keys (kid, public_key_pem, certificate_pem, sealed_private_key, created_at) VALUES (?, ?, ?, ?, ?)",
                [.text(key.kid), .text(key.publicKeyPEM), .text(key.certificatePEM), .text(key.sealedPrivateKey), .int(key.createdAt)])
            try await AuditStore.appendToEveryProject(AuditEntry(.signingKeyAdded, realm: "", detail: ["kid": key.kid]), tx)
        }
    }

    public func deleteSigningKey(kid: String) async throws {
        try await changingCached { tx in
            let deleted = try await tx.query("DELETE FROM signing_keys WHERE kid = ? RETURNING kid", [.text(kid)])
            if !deleted.isEmpty {
                try await AuditStore.appendToEveryProject(AuditEntry(.signingKeyRemoved, realm: "", detail: ["kid": kid]), tx)
            }
        }
    }
}

