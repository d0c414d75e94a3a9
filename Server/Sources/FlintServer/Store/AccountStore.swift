import Foundation

extension AccountStore {
    static let userColumns = """
        project_id, local_id, email, email_verified, display_name, photo_url, phone_number, password_hash,
        password_salt, password_updated_at, disabled, custom_attributes, valid_since, created_at, last_login_at,
        last_refresh_at, email_link_signin, mfa_factors, password_hash_params, session_epoch, passkeys
        """

    /// Inserts a new user and its identities, and the session it signs in with if any, in one transaction; `extra`
    /// runs last in it (a budget's count, which holds its counter's row lock for the shortest time there).
    public func createUser(_ user: UserAccount, session: NewSession? = nil,
                           alsoRunning extra: (@Sendable (any SQLExecutor) async throws -> Void)? = nil) async throws {
        try await mapUniqueViolations {
            try await database.transaction { tx in
                try await Self.insert(user, tx)
                if let session { try await SessionStore.insert(session, tx) }
                try await extra?(tx)
                try await AuditStore.append([.signUp(user, session: session)], tx)
            }
        }
    }

    /// A user of `replaceUsers` whose email, phone number or provider account another account of its realm holds.
    public struct BatchConflict: Error {
        /// The user's position in the batch.
        public let index: Int
        public let field: UniqueField
    }

    /// Replaces or inserts every user in one transaction (an existing account of the same local id goes with its
    /// identities and sessions): all of them or, when one collides with another account (`BatchConflict`), none.
    public func replaceUsers(_ users: [UserAccount]) async throws {
        try await database.transaction { tx in
            for (index, user) in users.enumerated() {
                do {
                    try await mapUniqueViolations { try await Self.replace(user, tx) }
                } catch StoreError.duplicate(let field) {
                    throw BatchConflict(index: index, field: field)
                }
            }
            try await AuditStore.append(Self.imported(users), tx)
        }
    }

    private static func replace(_ user: UserAccount, _ tx: any SQLExecutor) async throws {
        try await deleteUsers([user], tx)
        try await insert(user, tx)
    }

    /// A user before and after a change.
    public struct Modification: Sendable {
        public let before: UserAccount
        public let after: UserAccount
    }

    /// The one way to change an existing account. Reads the user under a row lock, asks `decide` what to
    /// change given that current state (it may also throw, to refuse), and applies exactly those fields in
    /// the same transaction. Nothing else of the row is written, and no other writer can slip between the
    /// read and the write, on one node or many. `session`, given the account as changed, names a session to
    /// begin in the same transaction (a sign-in's), in the account's session epoch as the change left it.
    /// Returns nil when there is no such user.
    public func modifyUser(projectID: String, localID: String,
                           startingSession session: (@Sendable (UserAccount) -> NewSession?)? = nil,
                           _ decide: @escaping @Sendable (UserAccount) throws -> AccountChange) async throws -> Modification? {
        try await retryingConflicts {
            try await mapUniqueViolations {
                try await database.transaction { tx in
                    guard let (modification, change) = try await self.modify(projectID: projectID, localID: localID, decide, tx)
                    else { return nil }
                    var events = AuditEntry.changes(modification, change)
                    if var started = session?(modification.after) {
                        started.record.sessionEpoch = modification.after.sessionEpoch
                        try await SessionStore.insert(started, tx)
                        events.append(.signIn(started))
                    }
                    try await AuditStore.append(events, tx)
                    return modification
                }
            }
        }
    }

    static let conflictRetries = 3

    /// Runs `transaction` again, a few times, when the database aborted it to resolve a deadlock with another one
    /// (PostgreSQL does).
    func retryingConflicts<T>(_ transaction: () async throws -> T) async throws -> T {
        for attempt in 1...Self.conflictRetries {
            do {
                return try await transaction()
            } catch SQLError.transactionConflict where attempt < Self.conflictRetries {
                continue
            }
        }
        throw StoreError.contended
    }

    private func modify(projectID: String, localID: String, _ decide: (UserAccount) throws -> AccountChange,
                        _ tx: any SQLExecutor) async throws -> (Modification, AccountChange)? {
        // One query reads the user with its identities and locks the user's row (not the identities').
        guard let before = try await Self.fetchUserRows(
            from: "users u", where: "u.project_id = ? AND u.local_id = ?", [.text(projectID), .text(localID)], tx,
            lock: database.rowLockClause.map { "\($0) OF u" }
        ).first?.user else { return nil }
        let change = try decide(before)
        try await Self.apply(change, to: before, tx)
        return (Modification(before: before, after: change.applied(to: before)), change)
    }

    /// Writes `change`: one UPDATE of the columns it names, then its identity rows.
    private static func apply(_ change: AccountChange, to user: UserAccount, _ tx: any SQLExecutor) async throws {
        var assignments: [(column: String, value: SQLValue)] = []
        func set(_ column: String, _ value: SQLValue) {
            assignments.removeAll { $0.column == column }
            assignments.append((column, value))
        }
        var revokes = false
        for edit in change.edits {
            switch edit {
            case .email(let value): set("email", SQLValue(value))
            case .emailVerified(let value): set("email_verified", SQLValue(value))
            case .displayName(let value): set("display_name", SQLValue(value))
            case .photoURL(let value): set("photo_url", SQLValue(value))
            case .phoneNumber(let value): set("phone_number", SQLValue(value))
            case .password(let password):
                set("password_hash", SQLValue(password?.hash))
                set("password_salt", SQLValue(password?.salt))
                set("password_updated_at", SQLValue(password?.updatedAt))
                set("password_hash_params", SQLValue(json(password?.imported)))
            case .disabled(let value): set("disabled", SQLValue(value))
            case .customAttributes(let value): set("custom_attributes", SQLValue(value))
            case .validSince(let value): set("valid_since", .int(value))
            case .revokeSessions: revokes = true
            case .signedIn(let time):
                set("last_login_at", .int(time))
                set("last_refresh_at", .int(time))
            case .emailLinkSignin(let value): set("email_link_signin", SQLValue(value))
            case .secondFactors(let factors): set("mfa_factors", SQLValue(json(factors.isEmpty ? nil : factors)))
            case .passkeys(let passkeys): set("passkeys", SQLValue(json(passkeys.isEmpty ? nil : passkeys)))
            case .link, .refreshIdentity, .unlink: break
            }
        }
        var clauses = assignments.map { "\($0.column) = ?" }
        if revokes { clauses.append("session_epoch = session_epoch + 1") }
        if !clauses.isEmpty {
            try await tx.query(
                "UPDATE users SET \(clauses.joined(separator: ", ")) WHERE project_id = ? AND local_id = ?",
                assignments.map(\.value) + [.text(user.projectID), .text(user.localID)])
        }
        for edit in change.edits {
            switch edit {
            case .link(let identity):
                try await AccountRows.insert(identity, of: user, tx)
            case .refreshIdentity(let identity):
                try await tx.query(
                    """
                    UPDATE user_identities SET email = ?, display_name = ?, photo_url = ?, screen_name = ?
                    WHERE project_id = ? AND provider_id = ? AND raw_id = ? AND local_id = ?
                    """,
                    SQLValue(identity.email), SQLValue(identity.displayName), SQLValue(identity.photoURL),
                    SQLValue(identity.screenName), .text(user.projectID), .text(identity.providerID), .text(identity.rawID),
                    .text(user.localID))
            case .unlink(let providerID):
                try await tx.query(
                    "DELETE FROM user_identities WHERE project_id = ? AND local_id = ? AND provider_id = ?",
                    .text(user.projectID), .text(user.localID), .text(providerID))
            case .passkeys(let passkeys):
                try await tx.query(
                    "DELETE FROM user_passkeys WHERE project_id = ? AND local_id = ?", .text(user.projectID), .text(user.localID))
                for passkey in passkeys { try await AccountRows.insert(passkey, of: user, tx) }
            default: break
            }
        }
    }

    /// Records a token issue without touching the rest of the row.
    public func touchLastRefresh(projectID: String, localID: String, at milliseconds: Int64) async throws {
        try await database.query(
            "UPDATE users SET last_refresh_at = ? WHERE project_id = ? AND local_id = ?",
            .int(milliseconds), .text(projectID), .text(localID))
    }

    public func user(projectID: String, localID: String) async throws -> UserAccount? {
        try await fetchUsers(where: "u.project_id = ? AND u.local_id = ?", [.text(projectID), .text(localID)]).first
    }

    /// Looks a user up by email; `email` must already be normalised (lowercased).
    public func user(projectID: String, email: String) async throws -> UserAccount? {
        try await fetchUsers(where: "u.project_id = ? AND u.email = ?", [.text(projectID), .text(email)]).first
    }

    public func user(projectID: String, phoneNumber: String) async throws -> UserAccount? {
        try await fetchUsers(where: "u.project_id = ? AND u.phone_number = ?", [.text(projectID), .text(phoneNumber)]).first
    }

    /// The user a passkey's credential ID belongs to.
    public func user(projectID: String, passkeyCredentialID credentialID: String) async throws -> UserAccount? {
        try await fetchUsers(
            where: """
                u.project_id = ? AND u.local_id IN (SELECT local_id FROM user_passkeys
                    WHERE project_id = ? AND credential_id = ?)
                """,
            [.text(projectID), .text(projectID), .text(credentialID)]
        ).first
    }

    public func user(projectID: String, providerID: String, rawID: String) async throws -> UserAccount? {
        try await fetchUsers(
            where: """
                u.project_id = ? AND u.local_id IN (SELECT local_id FROM user_identities
                    WHERE project_id = ? AND provider_id = ? AND raw_id = ?)
                """,
            [.text(projectID), .text(projectID), .text(providerID), .text(rawID)]
        ).first
    }

    /// Up to `limit` of the provider accounts linked to the project's users for `providerID`, by provider user ID
    /// (the emulator's account chooser lists them).
    public func identities(projectID: String, providerID: String, limit: Int) async throws -> [FederatedIdentity] {
        try await database.query(
            """
            SELECT raw_id, email, display_name, photo_url, screen_name FROM user_identities
            WHERE project_id = ? AND provider_id = ? ORDER BY raw_id LIMIT ?
            """,
            [.text(projectID), .text(providerID), .int(Int64(limit))]
        ).compactMap { row in
            row.string("raw_id").map {
                FederatedIdentity(providerID: providerID, rawID: $0, email: row.string("email"), displayName: row.string("display_name"),
                                  photoURL: row.string("photo_url"), screenName: row.string("screen_name"))
            }
        }
    }

    /// The users an address leads to: the one whose email it is, then any with a linked provider account
    /// of that email (when a project allows several accounts per email, or a link changed the account's).
    public func users(projectID: String, emailOrProviderEmail email: String) async throws -> [UserAccount] {
        let found = try await fetchUsers(
            where: """
                u.project_id = ? AND (u.email = ? OR u.local_id IN (SELECT local_id FROM user_identities
                    WHERE project_id = ? AND email = ?))
                """,
            [.text(projectID), .text(email), .text(projectID), .text(email)])
        return found.filter { $0.email == email } + found.filter { $0.email != email }
    }

    /// A page of users ordered by local id, starting after `afterLocalID`.
    public func users(projectID: String, afterLocalID: String?, limit: Int) async throws -> [UserAccount] {
        try await fetchUsers(
            where: """
                u.project_id = ? AND u.local_id IN (SELECT local_id FROM users
                    WHERE project_id = ? AND local_id > ? ORDER BY local_id LIMIT ?)
                """,
            [.text(projectID), .text(projectID), .text(afterLocalID ?? ""), .int(Int64(limit))])
    }

    /// A page of users ordered by local id, skipping the first `offset`.
    public func users(projectID: String, offset: Int, limit: Int) async throws -> [UserAccount] {
        try await fetchUsers(
            where: """
                u.project_id = ? AND u.local_id IN (SELECT local_id FROM users
                    WHERE project_id = ? ORDER BY local_id LIMIT ? OFFSET ?)
                """,
            [.text(projectID), .text(projectID), .int(Int64(limit)), .int(Int64(offset))])
    }

    /// A user's place in the newest-first listing: its creation time, then (for users created in the same millisecond)
    /// its local id, both descending.
    public struct ListingKey: Sendable, Hashable {
        public var createdAt: Int64
        public var localID: String

        public init(createdAt: Int64, localID: String) {
            self.createdAt = createdAt
            self.localID = localID
        }

        var binds: [SQLValue] { [.int(createdAt), .text(localID)] }
    }

    /// Which page of the newest-first listing to read.
    public enum ListingPage: Sendable, Hashable {
        case newest
        /// The users just after a key (the next page).
        case olderThan(ListingKey)
        /// The users just before a key (the previous page).
        case newerThan(ListingKey)
    }

    /// Up to `limit` users of a realm, newest first, as `ListingKey` orders them. A page is one range scan of the index
    /// `users_created` (project_id, created_at, local_id) from its key, backwards for the next page and forwards for the
    /// previous one; both databases seek to a row-value bound such as `(created_at, local_id) < (?, ?)`. No OFFSET and no
    /// count: the millionth user's page costs what the first one does. The page's keys are read first, then its users
    /// by primary key: asked for in one query, ordered by creation time, both databases may scan `users_created` for
    /// the order and test every user of the realm against the page (SQLite did, 0.6 s for a million users).
    public func users(projectID: String, newestFirst page: ListingPage, limit: Int) async throws -> [UserAccount] {
        let (range, order, binds): (String, String, [SQLValue])
        switch page {
        case .newest: (range, order, binds) = ("", "DESC", [])
        case .olderThan(let key): (range, order, binds) = ("AND (created_at, local_id) < (?, ?)", "DESC", key.binds)
        case .newerThan(let key): (range, order, binds) = ("AND (created_at, local_id) > (?, ?)", "ASC", key.binds)
        }
        let localIDs = try await database.query(
            "SELECT local_id FROM users WHERE project_id = ? \(range) ORDER BY created_at \(order), local_id \(order) LIMIT ?",
            [.text(projectID)] + binds + [.int(Int64(limit))]
        ).compactMap { $0.string("local_id") }
        guard !localIDs.isEmpty else { return [] }
        let users = try await fetchUsers(
            where: "u.project_id = ? AND u.local_id IN (\(localIDs.map { _ in "?" }.joined(separator: ", ")))",
            [.text(projectID)] + localIDs.map(SQLValue.text))
        let byLocalID = Dictionary(users.map { ($0.localID, $0) }) { first, _ in first }
        return (order == "DESC" ? localIDs : localIDs.reversed()).compactMap { byLocalID[$0] }
    }

    /// Users of a realm whose local id, email or phone number is `text` or starts with it (the email's lowercased, as
    /// emails are stored), and those with a linked provider account of that email, newest first: at most `limit` prefix
    /// matches for each of the three columns, so an exact match never crowds out. Each is a lookup or a range scan of its
    /// column's index (the primary key, `users_email_unique`, `users_phone_unique`, `user_identities_email`). The range
    /// `[text, text + U+10FFFF)` holds the prefix matches where text is ordered by code point (SQLite, a PostgreSQL
    /// database made with the C locale); under a language's collation it may hold others, which `substr` keeps out, and
    /// miss some, but never an exact match, which equality finds in any collation.
    public func users(projectID: String, matching text: String, limit: Int) async throws -> [UserAccount] {
        guard !text.isEmpty else { return [] }
        var matches = ["SELECT local_id FROM user_identities WHERE project_id = ? AND email = ?"]
        var binds: [SQLValue] = [.text(projectID), .text(projectID), .text(text.lowercased())]
        for (column, value) in [("local_id", text), ("email", text.lowercased()), ("phone_number", text)] {
            matches += [
                "SELECT local_id FROM users WHERE project_id = ? AND \(column) = ?",
                """
                SELECT local_id FROM (SELECT local_id FROM users WHERE project_id = ? AND \(column) >= ? AND \(column) < ?
                    AND substr(\(column), 1, length(?)) = ? ORDER BY \(column) LIMIT ?) AS \(column)_prefixed
                """,
            ]
            binds += [.text(projectID), .text(value),
                      .text(projectID), .text(value), .text(value + "\u{10FFFF}"), .text(value), .text(value), .int(Int64(limit))]
        }
        return try await fetchUsers(where: "u.project_id = ? AND u.local_id IN (\(matches.joined(separator: " UNION ")))", binds)
            .sorted { ($0.createdAt, $0.localID) > ($1.createdAt, $1.localID) }
    }

    /// Every project's number of accounts (zero for a project without any), in one query.
    public func userCounts() async throws -> [(projectID: String, count: Int64)] {
        try await database.query("""
            SELECT p.project_id, (SELECT COUNT(*) FROM users u WHERE u.project_id = p.project_id) AS n
            FROM projects p ORDER BY p.project_id
            """).compactMap { row in row.string("project_id").map { ($0, row.int("n") ?? 0) } }
    }

    public func userCount(projectID: String) async throws -> Int {
        Int(try await database.query("SELECT COUNT(*) AS n FROM users WHERE project_id = ?", .text(projectID)).first?.int("n") ?? 0)
    }

    /// Deletes the user and everything that names it, in one transaction: its identities, second factors
    /// and refresh tokens (cascaded), its pending email action codes, and pending phone codes sent to its
    /// numbers. Returns the deleted user, nil if there was none. (Rate-limit counters stay until they
    /// expire: deleting an account must not reset the limits on its address or number.)
    @discardableResult
    public func deleteUser(projectID: String, localID: String) async throws -> UserAccount? {
        guard let user = try await user(projectID: projectID, localID: localID) else { return nil }
        let deleted = try await database.transaction { tx in
            let rows = try await tx.query(
                "DELETE FROM users WHERE project_id = ? AND local_id = ? RETURNING local_id", .text(projectID), .text(localID))
            guard !rows.isEmpty else { return false }
            try await tx.query(
                "DELETE FROM oob_codes WHERE project_id = ? AND (local_id = ? OR email = ? OR new_email = ?)",
                .text(projectID), .text(localID), SQLValue(user.email), SQLValue(user.email))
            let numbers = Set([user.phoneNumber].compactMap { $0 } + user.mfaFactors.compactMap(\.phoneNumber))
            for number in numbers {
                try await tx.query(
                    "DELETE FROM verification_codes WHERE project_id = ? AND phone_number = ?", .text(projectID), .text(number))
            }
            try await AuditStore.append([.deleted(user)], tx)
            return true
        }
        return deleted ? user : nil
    }

    /// The emulator's reset: every user of the project goes, and with them every pending email action code
    /// and phone verification code of the project, in one transaction (a listing of codes after a reset
    /// holds only codes sent after it, as the official emulator's does).
    public func deleteAllAccounts(projectID: String) async throws {
        try await database.transaction { tx in try await Self.deleteAccounts(projectID: projectID, tx) }
    }

    /// Deletes a realm's users (their identities and sessions cascade) and its pending email and phone codes.
    static func deleteAccounts(projectID: String, _ tx: any SQLExecutor) async throws {
        for table in ["users", "oob_codes", "verification_codes"] {
            try await tx.query("DELETE FROM \(table) WHERE project_id = ?", [.text(projectID)])
        }
    }

    /// Users with their identities in one query (one round trip): a row per identity, joined on the user.
    private func fetchUsers(where condition: String, _ binds: [SQLValue]) async throws -> [UserAccount] {
        try await Self.fetchUserRows(from: "users u", where: condition, binds, database).map(\.user)
    }

    /// The query behind `fetchUsers`, with the first row of each user for callers that join more
    /// tables in `from` and select `extraColumns` from them; run on `executor` (a transaction's, to read
    /// under `lock`, a row-lock clause).
    static func fetchUserRows(extraColumns: String = "", from source: String, where condition: String,
                                      _ binds: [SQLValue], _ executor: any SQLExecutor, lock: String? = nil) async throws
        -> [(user: UserAccount, row: SQLRow)] {
        let rows = try await executor.query(
            """
            SELECT \(Self.selectedUserColumns)\(extraColumns), i.provider_id AS i_provider_id, i.raw_id AS i_raw_id,
                i.email AS i_email, i.display_name AS i_display_name, i.photo_url AS i_photo_url, i.screen_name AS i_screen_name
            FROM \(source) LEFT JOIN user_identities i ON i.project_id = u.project_id AND i.local_id = u.local_id
            WHERE \(condition)
            ORDER BY u.local_id, i.provider_id, i.raw_id \(lock ?? "")
            """,
            binds)
        var users: [(user: UserAccount, row: SQLRow)] = []
        for row in rows {
            if users.last?.user.localID != row.string("local_id") { users.append((user(from: row), row)) }
            if let providerID = row.string("i_provider_id"), let rawID = row.string("i_raw_id") {
                users[users.count - 1].user.identities.append(FederatedIdentity(
                    providerID: providerID, rawID: rawID, email: row.string("i_email"),
                    displayName: row.string("i_display_name"), photoURL: row.string("i_photo_url"),
                    screenName: row.string("i_screen_name")))
            }
        }
        return users
    }

    private static let selectedUserColumns = userColumns.split(separator: ",")
        .map { "u." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", ")

    private static func insert(_ user: UserAccount, _ tx: any SQLExecutor) async throws {
        try await AccountRows(user).insert(tx)
    }

    /// The values of a `users` row, in the order of `userColumns`; `hashParameters` is `json(user.importedPasswordHash)`,
    /// which the users of an import share (see `AccountRows.rows`).
    static func binds(_ user: UserAccount, hashParameters: String?) -> [SQLValue] {
        [
            .text(user.projectID), .text(user.localID), SQLValue(user.email), SQLValue(user.emailVerified),
            SQLValue(user.displayName), SQLValue(user.photoURL), SQLValue(user.phoneNumber), SQLValue(user.passwordHash),
            SQLValue(user.passwordSalt), SQLValue(user.passwordUpdatedAt), SQLValue(user.disabled),
            SQLValue(user.customAttributes), .int(user.validSince), .int(user.createdAt), SQLValue(user.lastLoginAt),
            SQLValue(user.lastRefreshAt), SQLValue(user.emailLinkSignin), SQLValue(Self.json(user.mfaFactors.isEmpty ? nil : user.mfaFactors)),
            SQLValue(hashParameters), .int(user.sessionEpoch),
            SQLValue(Self.json(user.passkeys.isEmpty ? nil : user.passkeys)),
        ]
    }

    private static func user(from row: SQLRow) -> UserAccount {
        var user = UserAccount(
            projectID: row.string("project_id") ?? "", localID: row.string("local_id") ?? "",
            createdAt: row.int("created_at") ?? 0)
        user.email = row.string("email")
        user.emailVerified = row.bool("email_verified")
        user.displayName = row.string("display_name")
        user.photoURL = row.string("photo_url")
        user.phoneNumber = row.string("phone_number")
        user.passwordHash = row.string("password_hash")
        user.passwordSalt = row.string("password_salt")
        user.passwordUpdatedAt = row.int("password_updated_at")
        user.disabled = row.bool("disabled")
        user.customAttributes = row.string("custom_attributes")
        user.validSince = row.int("valid_since") ?? 0
        user.sessionEpoch = row.int("session_epoch") ?? 0
        user.lastLoginAt = row.int("last_login_at")
        user.lastRefreshAt = row.int("last_refresh_at")
        user.emailLinkSignin = row.bool("email_link_signin")
        user.mfaFactors = row.string("mfa_factors").flatMap {
            try? JSONDecoder().decode([SecondFactor].self, from: Data($0.utf8))
        } ?? []
        user.passkeys = row.string("passkeys").flatMap { try? JSONDecoder().decode([Passkey].self, from: Data($0.utf8)) } ?? []
        user.importedPasswordHash = row.string("password_hash_params").flatMap {
            try? JSONDecoder().decode(ImportedPasswordHash.self, from: Data($0.utf8))
        }
        return user
    }

    /// A JSON column's text; NULL for nil.
    static func json(_ value: (some Encodable)?) -> String? {
        guard let value, let data = try? JSONEncoder().encode(value) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The same for a list of names (an audit event's fields), written without `JSONEncoder`: every event has one.
    static func json(_ value: [String]?) -> String? {
        guard let value else { return nil }
        var writer = JSONWriter(capacity: 64)
        writer.beginArray()
        for element in value { writer.string(element) }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The same for string pairs (an audit event's detail), keys in sorted order.
    static func json(_ value: [String: String]?) -> String? {
        guard let value else { return nil }
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        for (key, element) in value.sorted(by: { $0.key < $1.key }) { writer.member(key, element) }
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Translates the databases' unique-constraint errors into the field that collided.
    func mapUniqueViolations<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch SQLError.uniqueViolation(let detail) {
            // SQLite names the columns ("users.project_id, users.email"), PostgreSQL the index ("users_email_unique").
            if detail.contains("passkeys") { throw StoreError.duplicate(.passkeyCredential) }
            if detail.contains("identities") { throw StoreError.duplicate(.federatedIdentity) }
            if detail.contains("email") { throw StoreError.duplicate(.email) }
            if detail.contains("phone") { throw StoreError.duplicate(.phoneNumber) }
            throw StoreError.duplicate(.localID)
        }
    }
}

