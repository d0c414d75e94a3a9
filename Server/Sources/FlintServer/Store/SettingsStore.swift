import Foundation

extension SettingsStore {
    /// The stored settings JSON of a project with its version, or nil if the project does not exist.
    public func projectSettings(projectID: String) async throws -> (settings: String, version: Int64)? {
        guard let row = try await database.query(
            "SELECT settings, version FROM projects WHERE project_id = ?", .text(projectID)).first,
            let settings = row.string("settings")
        else { return nil }
        return (settings, row.int("version") ?? 0)
    }

    /// The version of a project's settings (one more with every change), or nil if it does not exist: a
    /// cheap check of whether a cached copy is still current.
    public func projectVersion(projectID: String) async throws -> Int64? {
        try await database.query("SELECT version FROM projects WHERE project_id = ?", .text(projectID)).first?.int("version")
    }

    /// Creates the project if it does not exist yet; returns whether it was created.
    @discardableResult
    public func createProject(projectID: String, settings: String, createdAt: Int64) async throws -> Bool {
        try await changingCached { tx in
            let created = !(try await tx.query(
                "INSERT INTO projects (project_id, settings, created_at) VALUES (?, ?, ?) ON CONFLICT (project_id) DO NOTHING RETURNING project_id",
                [.text(projectID), .text(settings), .int(createdAt)])).isEmpty
            if created { try await AuditStore.append([.created(realm: projectID)], tx) }
            return created
        }
    }

    /// Stores new settings if they are still at `version` (compare-and-swap); returns the new version, or
    /// nil when another writer changed them first.
    public func updateProjectSettings(projectID: String, settings: String, ifVersion version: Int64) async throws -> Int64? {
        try await changingCached { tx in
            let old = try await tx.query(
                "SELECT settings FROM projects WHERE project_id = ? AND version = ?", [.text(projectID), .int(version)]).first
            guard let updated = try await tx.query(
                "UPDATE projects SET settings = ?, version = version + 1 WHERE project_id = ? AND version = ? RETURNING version",
                [.text(settings), .text(projectID), .int(version)]
            ).first?.int("version") else { return nil }
            let change = AuditEntry.configChanged(realm: projectID, from: old?.string("settings"), to: settings)
            if change.fields?.isEmpty == false { try await AuditStore.append([change], tx) }
            return updated
        }
    }

    /// Every project's ID (not its tenants').
    public func projectIDs() async throws -> [String] {
        try await database.query("SELECT project_id FROM projects WHERE project_id NOT LIKE '%/%' ORDER BY project_id", [])
            .compactMap { $0.string("project_id") }
    }

    /// The keys of a project's tenants (`Realm.key`) in order, those after `afterKey` only, at most `limit`.
    public func tenantKeys(projectID: String, after afterKey: String?, limit: Int) async throws -> [String] {
        // Every tenant key sorts between the prefix `{p}/tenants/` and the same prefix with its last `/` raised to `0`.
        let prefix = Realm.tenantKeyPrefix(of: projectID)
        let end = String(prefix.dropLast()) + "0"
        return try await database.query(
            "SELECT project_id FROM projects WHERE project_id > ? AND project_id < ? ORDER BY project_id LIMIT ?",
            .text(max(prefix, afterKey ?? prefix)), .text(end), .int(Int64(limit))
        ).compactMap { $0.string("project_id") }
    }

    /// Deletes a tenant's settings and every record stored under its key, in one transaction; false if it did not exist.
    public func deleteRealm(key: String) async throws -> Bool {
        let rows = try await changingCached { tx in
            try await AccountStore.deleteAccounts(projectID: key, tx)
            for table in ["app_credentials", "usage_daily"] {
                try await tx.query("DELETE FROM \(table) WHERE project_id = ?", [.text(key)])
            }
            let deleted = try await tx.query("DELETE FROM projects WHERE project_id = ? RETURNING project_id", [.text(key)])
            if !deleted.isEmpty { try await AuditStore.append([.deleted(realm: key)], tx) }
            return deleted
        }
        return !rows.isEmpty
    }

    public func insertAPIKey(_ key: String, projectID: String, createdAt: Int64) async throws {
        try await database.transaction { tx in
            try await tx.query(
                "INSERT INTO api_keys (api_key, project_id, created_at) VALUES (?, ?, ?)", [.text(key), .text(projectID), .int(createdAt)])
            try await AuditStore.append([AuditEntry(.apiKeyCreated, realm: projectID)], tx)
        }
    }

    public func projectID(forAPIKey key: String) async throws -> String? {
        try await database.query("SELECT project_id FROM api_keys WHERE api_key = ?", .text(key)).first?.string("project_id")
    }

    public func apiKeys(projectID: String) async throws -> [String] {
        try await database.query(
            "SELECT api_key FROM api_keys WHERE project_id = ? ORDER BY created_at, api_key", .text(projectID)
        ).compactMap { $0.string("api_key") }
    }
}
