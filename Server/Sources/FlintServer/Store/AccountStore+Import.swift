import Foundation

/// Bulk import: many users per transaction, each entry still standing alone.
extension AccountStore {
    /// Entries per transaction of `importUsers`: few enough that a batch rewritten entry by entry (see there) stays
    /// short, and that a SQLite writer lets other writers in between batches.
    public static let importBatchSize = 250

    /// An entry of `importUsers` that another account, or an earlier entry, collides with: nothing of it was written.
    public struct ImportConflict: Sendable, Equatable {
        /// The entry's position in the users given.
        public let index: Int
        public let field: UniqueField
    }

    /// Inserts the users with their identities and passkeys, `batchSize` of them per transaction, with the outcome of
    /// creating them one after the other as `createUser` does (or, `replacing`, after deleting the account of each one's
    /// local id, with its identities and sessions): an entry whose
    /// local id (unless replacing), email, phone number, provider account or passkey credential is held already is
    /// returned as a conflict and nothing of it is written; the other entries are.
    ///
    /// A batch is first written whole, in a savepoint, with a few multi-row INSERTs (on PostgreSQL a round trip is most
    /// of a user's cost). If a unique constraint refuses it, or, replacing, an entry replaces an existing account (a
    /// later entry could free a value an earlier one collided with), the savepoint is rolled back and the batch is
    /// written again entry by entry, each in a savepoint of its own, which finds the entries that collide.
    public func importUsers(_ users: [UserAccount], replacing: Bool, batchSize: Int = importBatchSize) async throws
        -> [ImportConflict] {
        precondition(batchSize > 0)
        var conflicts: [ImportConflict] = []
        for start in stride(from: 0, to: users.count, by: batchSize) {
            let batch = users[start..<min(start + batchSize, users.count)]
            // The rows are built before the transaction, so that a SQLite writer holds its lock for the writes alone.
            let rows = AccountRows.rows(of: batch)
            let refused = try await retryingConflicts {
                try await database.transaction { tx in
                    let refused = try await self.importBatch(Array(batch), rows: rows, replacing: replacing, tx)
                    try await AuditStore.append(Self.imported(batch, refused: refused.count), tx)
                    return refused
                }
            }
            conflicts += refused.map { ImportConflict(index: start + $0.index, field: $0.field) }
        }
        return conflicts
    }

    /// One batch of `importUsers` in transaction `tx`; the conflicts' indexes are the batch's.
    private func importBatch(_ users: [UserAccount], rows: [AccountRows], replacing: Bool, _ tx: any SQLExecutor)
        async throws -> [ImportConflict] {
        try await tx.query("SAVEPOINT import_batch")
        do {
            // Replacing, the batch is written whole only where it replaces nothing (each entry then is a creation).
            let replaced = replacing ? try await Self.deleteUsers(users, tx) : 0
            if replaced == 0 {
                try await AccountRows(merging: rows).insert(tx)
                try await tx.query("RELEASE SAVEPOINT import_batch")
                return []
            }
        } catch SQLError.uniqueViolation {}
        try await tx.query("ROLLBACK TO SAVEPOINT import_batch")
        try await tx.query("RELEASE SAVEPOINT import_batch")
        var conflicts: [ImportConflict] = []
        for (index, user) in users.enumerated() {
            try await tx.query("SAVEPOINT import_entry")
            do {
                try await mapUniqueViolations {
                    if replacing { try await Self.deleteUsers([user], tx) }
                    try await rows[index].insert(tx)
                }
            } catch StoreError.duplicate(let field) {
                try await tx.query("ROLLBACK TO SAVEPOINT import_entry")
                conflicts.append(ImportConflict(index: index, field: field))
            }
            try await tx.query("RELEASE SAVEPOINT import_entry")
        }
        return conflicts
    }

    /// The event of an imported batch: one a realm, counting its users that went in.
    static func imported(_ users: some Collection<UserAccount>, refused: Int = 0) -> [AuditEntry] {
        let realms = Dictionary(grouping: users, by: \.projectID)
        return realms.keys.sorted().map { realm in
            let count = realms[realm]!.count - (realms.count == 1 ? refused : 0)
            return AuditEntry(.usersImported, realm: realm, detail: ["count": String(count)])
        }
    }

    /// Deletes the users' accounts (their identities, passkeys and sessions cascade); returns how many there were.
    @discardableResult
    static func deleteUsers(_ users: [UserAccount], _ tx: any SQLExecutor) async throws -> Int {
        var deleted = 0
        for (projectID, realmUsers) in Dictionary(grouping: users, by: \.projectID) {
            for range in AccountRows.statementRanges(realmUsers.count) {
                deleted += try await tx.query(
                    "DELETE FROM users WHERE project_id = ? AND local_id IN (\(AccountRows.placeholders(range.count))) RETURNING local_id",
                    [.text(projectID)] + realmUsers[range].map { .text($0.localID) }
                ).count
            }
        }
        return deleted
    }
}

/// The rows an account has in the account tables (`users`, `user_identities`, `user_passkeys`), as bound values, for
/// one account or many: how every insert of an account writes it.
struct AccountRows: Sendable {
    private var users: [[SQLValue]] = []
    private var identities: [[SQLValue]] = []
    private var passkeys: [[SQLValue]] = []

    init(_ user: UserAccount) {
        self.init(user, hashParameters: AccountStore.json(user.importedPasswordHash))
    }

    /// `hashParameters`: `user.importedPasswordHash` as JSON.
    private init(_ user: UserAccount, hashParameters: String?) {
        users = [AccountStore.binds(user, hashParameters: hashParameters)]
        identities = user.identities.map { Self.binds($0, of: user) }
        passkeys = user.passkeys.map { Self.binds($0, of: user) }
    }

    /// Each user's rows. Password-hash parameters are encoded once for a run of users that share them, as an import's
    /// users do (encoding them for each user was a third of an import's CPU).
    static func rows(of users: some Sequence<UserAccount>) -> [AccountRows] {
        var encoded: (parameters: ImportedPasswordHash?, json: String?) = (nil, nil)
        return users.map { user in
            if user.importedPasswordHash != encoded.parameters {
                encoded = (user.importedPasswordHash, AccountStore.json(user.importedPasswordHash))
            }
            return AccountRows(user, hashParameters: encoded.json)
        }
    }

    /// The rows of several accounts together, inserted by a few multi-row statements.
    init(merging parts: [AccountRows]) {
        users = parts.flatMap(\.users)
        identities = parts.flatMap(\.identities)
        passkeys = parts.flatMap(\.passkeys)
    }

    func insert(_ tx: any SQLExecutor) async throws {
        try await Self.insert(users, into: "users", columns: AccountStore.userColumns, tx)
        try await Self.insert(identities, into: "user_identities", columns: Self.identityColumns, tx)
        try await Self.insert(passkeys, into: "user_passkeys", columns: Self.passkeyColumns, tx)
    }

    /// Inserts one identity of `user` (an account's link).
    static func insert(_ identity: FederatedIdentity, of user: UserAccount, _ tx: any SQLExecutor) async throws {
        try await insert([binds(identity, of: user)], into: "user_identities", columns: identityColumns, tx)
    }

    /// Inserts one passkey of `user`.
    static func insert(_ passkey: Passkey, of user: UserAccount, _ tx: any SQLExecutor) async throws {
        try await insert([binds(passkey, of: user)], into: "user_passkeys", columns: passkeyColumns, tx)
    }

    private static let identityColumns = "project_id, provider_id, raw_id, local_id, email, display_name, photo_url, screen_name"
    private static let passkeyColumns = "project_id, credential_id, local_id"

    private static func binds(_ identity: FederatedIdentity, of user: UserAccount) -> [SQLValue] {
        [
            .text(user.projectID), .text(identity.providerID), .text(identity.rawID), .text(user.localID),
            SQLValue(identity.email), SQLValue(identity.displayName), SQLValue(identity.photoURL), SQLValue(identity.screenName),
        ]
    }

    private static func binds(_ passkey: Passkey, of user: UserAccount) -> [SQLValue] {
        [.text(user.projectID), .text(passkey.credentialID), .text(user.localID)]
    }

    private static func insert(_ rows: [[SQLValue]], into table: String, columns: String, _ tx: any SQLExecutor) async throws {
        for range in statementRanges(rows.count) {
            let row = "(" + placeholders(rows[range.lowerBound].count) + ")"
            try await tx.query(
                "INSERT INTO \(table) (\(columns)) VALUES " + Array(repeating: row, count: range.count).joined(separator: ", "),
                Array(rows[range].joined()))
        }
    }

    /// Rows per statement at most (on PostgreSQL, 21 columns of users make 2,688 binds of its 65,535).
    private static let rowsPerStatement = 128

    /// How `count` rows are split into statements: `rowsPerStatement` at a time, then the rest in powers of two, so that
    /// a database caching its statements by text (SQLite here) holds eight shapes of a statement, not one per row count.
    static func statementRanges(_ count: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        while start < count {
            let remaining = count - start
            let size = remaining >= rowsPerStatement ? rowsPerStatement : 1 << (Int.bitWidth - 1 - remaining.leadingZeroBitCount)
            ranges.append(start..<start + size)
            start += size
        }
        return ranges
    }

    /// `count` placeholders: "?, ?, ?".
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
