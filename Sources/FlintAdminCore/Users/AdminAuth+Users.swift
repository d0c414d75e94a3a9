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
/// others (by their index in the list).
public struct BatchResult: Sendable {
    public let successCount: Int
    public let errors: [(index: Int, message: String)]
    public var failureCount: Int { errors.count }

    /// `count` users sent, these refused.
    init(count: Int, errors: [(index: Int, message: String)]) {
        successCount = count - errors.count
        self.errors = errors
    }
}

/// firebase-admin's names for the two batch results.
public typealias DeleteUsersResult = BatchResult
public typealias UserImportResult = BatchResult

extension AdminAuth {
    /// The most users one `users(_:)` or `deleteUsers` call takes, and the largest page of `listUsers`.
    public static let maximumBatch = 1000

    /// The user with this uid; `userNotFound` when there is none.
    public func user(uid: String) async throws -> UserRecord {
        try await onlyUser(LookupRequest(localId: [uid]), named: "uid \(uid)")
    }

    public func user(email: String) async throws -> UserRecord {
        try await onlyUser(LookupRequest(email: [email]), named: "email \(email)")
    }

    public func user(phoneNumber: String) async throws -> UserRecord {
        try await onlyUser(LookupRequest(phoneNumber: [phoneNumber]), named: "phone number \(phoneNumber)")
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
        guard identifiers.count <= 100 else { throw AdminError(.invalidArgument, "at most 100 identifiers at once") }
        guard !identifiers.isEmpty else { return GetUsersResult(users: [], notFound: []) }
        var request = LookupRequest()
        for identifier in identifiers {
            switch identifier {
            case .uid(let uid): request.localId = (request.localId ?? []) + [uid]
            case .email(let email): request.email = (request.email ?? []) + [email]
            case .phoneNumber(let number): request.phoneNumber = (request.phoneNumber ?? []) + [number]
            case .provider(let providerID, let providerUID):
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
        let uid = try await connection.call("POST", resource + "/accounts", body: user.wire, as: SignInResponse.self).localId
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
        _ = try await connection.call("POST", resource + "/accounts:delete", body: DeleteAccountRequest(localId: uid),
                                      as: JSONValue.self)
    }

    /// Deletes up to 1,000 users, enabled or not.
    public func deleteUsers(uids: [String]) async throws -> DeleteUsersResult {
        guard uids.count <= Self.maximumBatch else {
            throw AdminError(.invalidArgument, "at most \(Self.maximumBatch) users at once")
        }
        guard !uids.isEmpty else { return BatchResult(count: 0, errors: []) }
        let answer = try await connection.call("POST", resource + "/accounts:batchDelete",
                                               body: BatchDeleteRequest(localIds: uids, force: true), as: BatchDeleteResponse.self)
        return BatchResult(count: uids.count, errors: (answer.errors ?? []).map { (index: $0.index, message: $0.message) })
    }

    /// Replaces the user's custom claims (nil removes them); their next ID token carries them.
    public func setCustomUserClaims(uid: String, _ claims: [String: JSONValue]?) async throws {
        try await send(UserUpdate(customClaims: claims.map { .set($0) } ?? .remove).wire(uid: uid))
    }

    /// Revokes every session of the user: refresh tokens stop working, and `checkRevoked` refuses the ID tokens and
    /// session cookies issued before now.
    public func revokeRefreshTokens(uid: String) async throws {
        var request = UpdateAccountRequest(returnSecureToken: nil)
        request.localId = uid
        request.validSince = LenientString(String(Int64(now().timeIntervalSince1970)))
        try await send(request)
    }

    /// The users in pages of up to `pageSize` (at most 1,000), in uid order, fetched as the sequence is iterated.
    public func listUsers(pageSize: Int = AdminAuth.maximumBatch) -> Pages<UserRecord> {
        let size = max(1, min(pageSize, Self.maximumBatch))
        return Pages { pageToken in
            var query = "?maxResults=\(size)"
            if let pageToken { query += "&nextPageToken=" + FormURLEncoding.escape(pageToken) }
            let page = try await self.connection.call("GET", self.resource + "/accounts:batchGet" + query, as: BatchGetResponse.self)
            return ((page.users ?? []).map(UserRecord.init), page.nextPageToken)
        }
    }
}
