import FlintWire

/// An email action code as stored: the SHA-256 of the code, never the code (see migration 4).
public struct OobCodeRecord: Sendable, Equatable {
    public var id: String
    public var projectID: String
    public var requestType: OobRequestType
    /// The address the mail went to (for `RECOVER_EMAIL`, the address to restore).
    public var email: String
    /// `VERIFY_AND_CHANGE_EMAIL`: the address to change to; `RECOVER_EMAIL`: the address to undo.
    public var newEmail: String?
    /// The user the code acts on (none for a sign-in link to a new address).
    public var localID: String?
    public var createdAt: Int64
    public var expiresAt: Int64
    /// Emulator mode only: the code and link in clear, for the emulator's listing.
    public var emulatorCode: String?
    public var emulatorLink: String?
}

/// Email action codes.
extension CodeStore {
    /// Keeps the code, and records that it was sent (its kind, never the code).
    public func insertOobCode(_ record: OobCodeRecord) async throws {
        try await database.transaction { tx in
            try await tx.query(
                """
                INSERT INTO oob_codes (id, project_id, request_type, email, new_email, local_id, created_at, expires_at,
                    emulator_code, emulator_link) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [.text(record.id), .text(record.projectID), .text(record.requestType.rawValue), .text(record.email),
                 SQLValue(record.newEmail), SQLValue(record.localID), .int(record.createdAt), .int(record.expiresAt),
                 SQLValue(record.emulatorCode), SQLValue(record.emulatorLink)])
            try await AuditStore.append([AuditEntry(.actionCodeSent, realm: record.projectID, localID: record.localID,
                                                    detail: ["kind": record.requestType.rawValue])], tx)
        }
    }

    public func oobCode(id: String, projectID: String) async throws -> OobCodeRecord? {
        try await database.query(
            "SELECT * FROM oob_codes WHERE id = ? AND project_id = ?", .text(id), .text(projectID)
        ).first.flatMap(Self.oobCode(from:))
    }

    /// Removes the code; true for exactly one caller, which has used it.
    public func consumeOobCode(id: String) async throws -> Bool {
        try await !database.query("DELETE FROM oob_codes WHERE id = ? RETURNING id", .text(id)).isEmpty
    }

    /// The emulator's listing: every live code of the project, oldest first.
    public func emulatorOobCodes(projectID: String) async throws -> [OobCodeRecord] {
        try await database.query(
            "SELECT * FROM oob_codes WHERE project_id = ? AND emulator_code IS NOT NULL ORDER BY created_at, id",
            .text(projectID)
        ).compactMap(Self.oobCode(from:))
    }

    @discardableResult
    public func deleteExpiredOobCodes(before milliseconds: Int64) async throws -> Int {
        try await database.query("DELETE FROM oob_codes WHERE expires_at < ? RETURNING id", .int(milliseconds)).count
    }

    private static func oobCode(from row: SQLRow) -> OobCodeRecord? {
        guard let type = row.string("request_type").flatMap(OobRequestType.init(rawValue:)) else { return nil }
        return OobCodeRecord(
            id: row.string("id") ?? "", projectID: row.string("project_id") ?? "", requestType: type,
            email: row.string("email") ?? "", newEmail: row.string("new_email"), localID: row.string("local_id"),
            createdAt: row.int("created_at") ?? 0, expiresAt: row.int("expires_at") ?? 0,
            emulatorCode: row.string("emulator_code"), emulatorLink: row.string("emulator_link"))
    }
}
