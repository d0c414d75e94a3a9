import FlintWire
import Foundation

/// How `users(_:)` names a user.
public enum UserIdentifier: Sendable, Hashable {
    case uid(String)
    case email(String)
    case phoneNumber(String)
    /// A linked identity: the provider (`google.com`) and the user's id there.
    case provider(providerID: String, providerUID: String)
}

/// The users `users(_:)` found, and the identifiers that matched none.
public struct GetUsersResult: Sendable {
    public let users: [UserRecord]
    public let notFound: [UserIdentifier]
}

/// What a batch call (`deleteUsers`, `importUsers`) did: how many of its users it took, and why it did not take the
/// others (by their index in the list, in index order).
public struct BatchResult: Sendable {
    /// One user not taken: why, and firebase-admin's code for it. A user FlintAdmin refused before sending has the
    /// code of the check it failed (`invalidEmail`, …); one the server refused to import is `invalidUserImport`, one it
    /// did not delete `internalError`, as firebase-admin reports them.
    public typealias Failure = (index: Int, message: String, code: AdminError.Code)

    public let successCount: Int
    public let errors: [Failure]
    public var failureCount: Int { errors.count }

    /// `count` users given, these not taken.
    init(count: Int, errors: [Failure]) {
        successCount = count - errors.count
        self.errors = errors.sorted { $0.index < $1.index }
    }
}

/// firebase-admin's names for the two batch results.
public typealias DeleteUsersResult = BatchResult
public typealias UserImportResult = BatchResult

extension AdminAuth {
    /// The most users one `deleteUsers` or `importUsers` call takes, and the largest page of `listUsers` and
    /// `listTenants`. A batch over it is `maximumUserCountExceeded`, a page over it `invalidArgument`.
    public static let maximumBatch = 1000

    /// The user with this uid; `userNotFound` when there is none.
    public func user(uid: String) async throws -> UserRecord {
        try Check.uid(uid)
        return try await onlyUser(LookupRequest(localId: [uid]), named: "uid \(uid)")
    }

    public func user(email: String) async throws -> UserRecord {
        try Check.email(email)
        return try await onlyUser(LookupRequest(email: [email]), named: "email \(email)")
    }

    public func user(phoneNumber: String) async throws -> UserRecord {
        try Check.phoneNumber(phoneNumber)
        return try await onlyUser(LookupRequest(phoneNumber: [phoneNumber]), named: "phone number \(phoneNumber)")
    }

    private func onlyUser(_ request: LookupRequest, named identifier: String) async throws -> UserRecord {
        guard let user = try await lookup(request).first else {
            throw AdminError(.userNotFound, "no user has the \(identifier)")
        }
        return user
    }

    private func lookup(_ request: LookupRequest) async throws -> [UserRecord] {
        try await connection.call("POST", resource + "/accounts:lookup", body: request, as: LookupResponse.self)
            .users?.map(UserRecord.init) ?? []
    }

    /// Up to 100 users at once, by any mix of identifiers.
    public func users(_ identifiers: [UserIdentifier]) async throws -> GetUsersResult {
        try Check.batch(identifiers.count, atMost: Check.maximumLookup)
        guard !identifiers.isEmpty else { return GetUsersResult(users: [], notFound: []) }
        var request = LookupRequest()
        for identifier in identifiers {
            switch identifier {
            case .uid(let uid):
                try Check.uid(uid)
                request.localId = (request.localId ?? []) + [uid]
            case .email(let email):
                try Check.email(email)
                request.email = (request.email ?? []) + [email]
            case .phoneNumber(let number):
                try Check.phoneNumber(number)
                request.phoneNumber = (request.phoneNumber ?? []) + [number]
            case .provider(let providerID, let providerUID):
                try Check.providerID(providerID)
                try Check.providerUID(providerUID)
                request.federatedUserId = (request.federatedUserId ?? []) + [.init(providerId: providerID, rawId: providerUID)]
            }
        }
        let users = try await lookup(request)
        let notFound = identifiers.filter { identifier in
            !users.contains { user in
                switch identifier {
                case .uid(let uid): user.uid == uid
                case .email(let email): user.email?.lowercased() == email.lowercased()
                case .phoneNumber(let number): user.phoneNumber == number
                case .provider(let providerID, let providerUID):
                    user.providerData.contains { $0.providerID == providerID && $0.uid == providerUID }
                }
            }
        }
        return GetUsersResult(users: users, notFound: notFound)
    }

    /// Creates a user and returns it as stored.
    @discardableResult
    public func createUser(_ user: NewUser) async throws -> UserRecord {
        let uid = try await connection.call("POST", resource + "/accounts", body: try user.wire(), as: SignInResponse.self).localId
        return try await self.user(uid: uid)
    }

    /// Changes a user and returns it as stored.
    @discardableResult
    public func updateUser(uid: String, _ update: UserUpdate) async throws -> UserRecord {
        try await send(update.wire(uid: uid))
        return try await user(uid: uid)
    }

    /// One `accounts:update`, its answer not read back.
    private func send(_ update: UpdateAccountRequest) async throws {
        _ = try await connection.call("POST", resource + "/accounts:update", body: update, as: JSONValue.self)
    }

    public func deleteUser(uid: String) async throws {
        try Check.uid(uid)
        _ = try await connection.call("POST", resource + "/accounts:delete", body: DeleteAccountRequest(localId: uid),
                                      as: JSONValue.self)
    }

    /// Deletes up to 1,000 users, enabled or not.
    public func deleteUsers(uids: [String]) async throws -> DeleteUsersResult {
        try Check.batch(uids.count, atMost: Self.maximumBatch)
        for uid in uids { try Check.uid(uid) }
        guard !uids.isEmpty else { return BatchResult(count: 0, errors: []) }
        let answer = try await connection.call("POST", resource + "/accounts:batchDelete",
                                               body: BatchDeleteRequest(localIds: uids, force: true), as: BatchDeleteResponse.self)
        return BatchResult(count: uids.count, errors: (answer.errors ?? []).map { (index: $0.index, message: $0.message, code: .internalError) })
    }

    /// Replaces the user's custom claims (nil removes them); their next ID token carries them.
    public func setCustomUserClaims(uid: String, _ claims: [String: JSONValue]?) async throws {
        try await send(UserUpdate(customClaims: claims.map { .set($0) } ?? .remove).wire(uid: uid))
    }

    /// Revokes every session of the user: refresh tokens stop working, and `checkRevoked` refuses the ID tokens and
    /// session cookies issued before now.
    public func revokeRefreshTokens(uid: String) async throws {
        try Check.uid(uid)
        var request = UpdateAccountRequest(returnSecureToken: nil)
        request.localId = uid
        request.validSince = LenientString(String(Int64(now().timeIntervalSince1970)))
        try await send(request)
    }

    /// The users in pages of up to `pageSize` (1 to 1,000), in uid order, fetched as the sequence is iterated. A
    /// `pageSize` out of range is `invalidArgument`, thrown by the first page before anything is sent.
    public func listUsers(pageSize: Int = AdminAuth.maximumBatch) -> Pages<UserRecord> {
        Pages { pageToken in
            try Check.pageSize(pageSize, atMost: Self.maximumBatch)
            var query = "?maxResults=\(pageSize)"
            if let pageToken { query += "&nextPageToken=" + FormURLEncoding.escape(pageToken) }
            let page = try await self.connection.call("GET", self.resource + "/accounts:batchGet" + query, as: BatchGetResponse.self)
            return ((page.users ?? []).map(UserRecord.init), page.nextPageToken)
        }
    }
}
