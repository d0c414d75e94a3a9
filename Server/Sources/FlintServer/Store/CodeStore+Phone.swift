/// A phone verification code as stored: hashes only (see migration 3).
public struct VerificationCodeRecord: Sendable, Equatable {
    public var id: String
    public var projectID: String
    public var phoneNumber: String
    /// What the code is for: `signIn` here; the multi-factor flows add their own.
    public var purpose: String
    public var codeHash: String
    public var attempts: Int64
    public var createdAt: Int64
    public var expiresAt: Int64
    /// Emulator mode only: the code and its sessionInfo in clear, for the emulator's code listing.
    public var emulatorSessionInfo: String?
    public var emulatorCode: String?
}

/// Phone verification codes and APNs app credentials.
extension CodeStore {
    public func insertVerificationCode(_ record: VerificationCodeRecord) async throws {
        try await database.query(
            """
            INSERT INTO verification_codes (id, project_id, phone_number, purpose, code_hash, attempts, created_at,
                expires_at, emulator_session_info, emulator_code) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            .text(record.id), .text(record.projectID), .text(record.phoneNumber), .text(record.purpose),
            .text(record.codeHash), .int(record.attempts), .int(record.createdAt), .int(record.expiresAt),
            SQLValue(record.emulatorSessionInfo), SQLValue(record.emulatorCode))
    }

    public func verificationCode(id: String) async throws -> VerificationCodeRecord? {
        try await database.query("SELECT * FROM verification_codes WHERE id = ?", .text(id)).first.map(Self.code(from:))
    }

    /// Takes one of the tries of the code `id` of `projectID` and `purpose` that has not expired at `now`
    /// (epoch milliseconds), in one atomic increment-and-compare, and returns the code with the try counted; nil
    /// when there is no such code or all `maxAttempts` are taken. However many requests race, at most
    /// `maxAttempts` of them get the code, on one node or many.
    public func takeCodeAttempt(id: String, projectID: String, purpose: String, now: Int64, maxAttempts: Int64) async throws
        -> VerificationCodeRecord? {
        try await database.query(
            """
            UPDATE verification_codes SET attempts = attempts + 1
            WHERE id = ? AND project_id = ? AND purpose = ? AND expires_at > ? AND attempts < ? RETURNING *
            """,
            .text(id), .text(projectID), .text(purpose), .int(now), .int(maxAttempts)
        ).first.map(Self.code(from:))
    }

    /// Removes the code; true for exactly one caller, which has used it.
    public func consumeVerificationCode(id: String) async throws -> Bool {
        try await !database.query("DELETE FROM verification_codes WHERE id = ? RETURNING id", .text(id)).isEmpty
    }

    public func deleteVerificationCode(id: String) async throws {
        try await database.query("DELETE FROM verification_codes WHERE id = ?", .text(id))
    }

    /// When a code was last sent to `phoneNumber` for `purpose` (epoch milliseconds), if one still exists.
    public func lastVerificationCodeSent(projectID: String, phoneNumber: String, purpose: String) async throws -> Int64? {
        try await database.query(
            """
            SELECT created_at FROM verification_codes WHERE project_id = ? AND phone_number = ? AND purpose = ?
            ORDER BY created_at DESC LIMIT 1
            """,
            .text(projectID), .text(phoneNumber), .text(purpose)
        ).first?.int("created_at")
    }

    /// The emulator's listing: every live code of the project, oldest first.
    public func emulatorVerificationCodes(projectID: String) async throws -> [VerificationCodeRecord] {
        try await database.query(
            """
            SELECT * FROM verification_codes WHERE project_id = ? AND emulator_code IS NOT NULL
            ORDER BY created_at, id
            """,
            .text(projectID)
        ).map(Self.code(from:))
    }

    /// Deletes codes that expired before `milliseconds`; returns how many.
    @discardableResult
    public func deleteExpiredVerificationCodes(before milliseconds: Int64) async throws -> Int {
        try await database.query(
            "DELETE FROM verification_codes WHERE expires_at < ? RETURNING id", .int(milliseconds)).count
    }

    // MARK: App credentials

    public func insertAppCredential(receiptHash: String, projectID: String, secretHash: String, expiresAt: Int64) async throws {
        try await database.query(
            "INSERT INTO app_credentials (receipt_hash, project_id, secret_hash, expires_at) VALUES (?, ?, ?, ?)",
            .text(receiptHash), .text(projectID), .text(secretHash), .int(expiresAt))
    }

    /// The secret hash and expiry stored for a receipt of `projectID`.
    public func appCredential(receiptHash: String, projectID: String) async throws -> (secretHash: String, expiresAt: Int64)? {
        guard let row = try await database.query(
            "SELECT secret_hash, expires_at FROM app_credentials WHERE receipt_hash = ? AND project_id = ?",
            .text(receiptHash), .text(projectID)
        ).first, let secretHash = row.string("secret_hash"), let expiresAt = row.int("expires_at") else { return nil }
        return (secretHash, expiresAt)
    }

    @discardableResult
    public func deleteExpiredAppCredentials(before milliseconds: Int64) async throws -> Int {
        try await database.query("DELETE FROM app_credentials WHERE expires_at < ? RETURNING receipt_hash", .int(milliseconds)).count
    }

    private static func code(from row: SQLRow) -> VerificationCodeRecord {
        VerificationCodeRecord(
            id: row.string("id") ?? "", projectID: row.string("project_id") ?? "",
            phoneNumber: row.string("phone_number") ?? "", purpose: row.string("purpose") ?? "",
            codeHash: row.string("code_hash") ?? "", attempts: row.int("attempts") ?? 0,
            createdAt: row.int("created_at") ?? 0, expiresAt: row.int("expires_at") ?? 0,
            emulatorSessionInfo: row.string("emulator_session_info"), emulatorCode: row.string("emulator_code"))
    }
}
