import FlintWire
import Foundation

/// Admin-only bulk operations: import (`accounts:batchCreate`), bulk delete (`accounts:batchDelete`) and
/// query (`accounts:query`).
extension AccountService {
    /// Firebase's limit per import or bulk delete.
    public static let maximumBatch = 1000

    // MARK: Import

    /// Imports users as given (ids, profile, timestamps, claims, linked providers, phone second factors,
    /// password hashes with the request's algorithm). Each user fails or succeeds on its own; failures
    /// come back by index.
    public func batchCreate(_ request: BatchCreateRequest, caller: Caller) async throws -> BatchCreateResponse {
        guard caller.isAdmin else { throw FlintError.adminRequired }
        let users = request.users ?? []
        guard !users.isEmpty else { throw FlintError(.missingUserAccount) }
        guard users.count <= Self.maximumBatch else {
            throw FlintError(.invalidArgument, "At most \(Self.maximumBatch) users can be imported at once.")
        }
        try Self.checkBatch(users, allowOverwrite: request.allowOverwrite == true, sanityCheck: request.sanityCheck == true)
        let needsHash = users.contains { $0.passwordHash != nil }
        let hashParameters = needsHash ? try importedPasswords.parameters(of: request, projectID: caller.projectID) : nil
        var failures: [BatchCreateResponse.Failure] = []
        for (index, record) in users.enumerated() {
            do {
                let user = try importedUser(record, hashParameters: hashParameters, caller: caller)
                if request.allowOverwrite == true, try await store.user(projectID: caller.projectID, localID: user.localID) != nil {
                    try await pipeline.replace(user)
                } else {
                    try await pipeline.create(user)
                }
            } catch let error as FlintError {
                failures.append(.init(index: index, message: error.message))
            }
        }
        return BatchCreateResponse(error: failures.isEmpty ? nil : failures)
    }

    /// Firebase's checks of an import as a whole: no local id twice (unless overwriting), and with
    /// `sanityCheck` no email or provider account twice.
    private static func checkBatch(_ users: [UserRecord], allowOverwrite: Bool, sanityCheck: Bool) throws {
        func firstRepeat<T: Hashable>(_ values: [T]) -> T? {
            var seen = Set<T>()
            return values.first { !seen.insert($0).inserted }
        }
        if !allowOverwrite, let id = firstRepeat(users.map(\.localId)) { throw FlintError(.duplicateLocalID, id) }
        guard sanityCheck else { return }
        if let email = firstRepeat(users.compactMap { $0.email?.lowercased() }) { throw FlintError(.duplicateEmail, email) }
        let accounts = users.flatMap { user in
            (user.providerUserInfo ?? []).compactMap { info in (info.rawId ?? info.federatedId).map { [info.providerId, $0] } }
        }
        if let account = firstRepeat(accounts) {
            throw FlintError(.duplicateRawID, "Provider id(\(account[0])), Raw id(\(account[1]))")
        }
    }

    private func importedUser(_ record: UserRecord, hashParameters: ImportedPasswordHash?, caller: Caller) throws -> UserAccount {
        guard !record.localId.isEmpty, record.localId.count <= 128 else { throw FlintError(.invalidArgument, "localId") }
        let now = clock.milliseconds
        var user = UserAccount(projectID: caller.projectID, localID: record.localId,
                               createdAt: record.createdAt.flatMap { Int64($0) } ?? now)
        user.email = try record.email.map { try Validation.email($0) }
        user.emailVerified = record.emailVerified ?? false
        user.displayName = record.displayName
        user.photoURL = record.photoUrl
        user.phoneNumber = try record.phoneNumber.map { try Validation.phoneNumber($0) }
        user.disabled = record.disabled ?? false
        user.lastLoginAt = record.lastLoginAt.flatMap { Int64($0) }
        user.customAttributes = try record.customAttributes.flatMap { try Validation.customClaims($0) }
        if let hash = record.passwordHash {
            guard let hashBytes = ImportedPasswords.bytes(hash) else { throw FlintError(.invalidArgument, "passwordHash is not base64") }
            let saltBytes = try record.salt.map { salt -> Data in
                guard let bytes = ImportedPasswords.bytes(salt) else { throw FlintError(.invalidArgument, "salt is not base64") }
                return bytes
            } ?? Data()
            user.passwordHash = hashBytes.base64EncodedString()
            user.passwordSalt = saltBytes.base64EncodedString()
            user.passwordUpdatedAt = now
            user.importedPasswordHash = hashParameters
        }
        // Password and phone identities follow from the fields above; the others are linked accounts.
        user.identities = (record.providerUserInfo ?? []).compactMap { info in
            guard ![ProviderID.password, ProviderID.phone].contains(info.providerId), let rawID = info.rawId ?? info.federatedId
            else { return nil }
            return FederatedIdentity(providerID: info.providerId, rawID: rawID, email: info.email,
                                     displayName: info.displayName, photoURL: info.photoUrl, screenName: info.screenName)
        }
        user.mfaFactors = try secondFactors(record.mfaInfo ?? [], from: .imported)
        return user
    }

    // MARK: Second factors and linked accounts

    /// Where a list of second factors comes from, which decides their enrollment ids.
    enum SecondFactorSource {
        /// `signUp`'s `mfaInfo`: every id is made anew.
        case signUp
        /// An admin's `accounts:update` `mfa.enrollments`: ids are kept (a missing one is made, or refused
        /// where the policy asks for ids).
        case update
        /// `accounts:batchCreate`: ids kept, or made when missing.
        case imported
    }

    /// Phone second factors as given in a request, `enrolledAt` kept or now. A number given twice is kept
    /// once (the first entry wins), as Firebase does; an id twice is refused; at most five remain.
    func secondFactors(_ enrollments: [MFAEnrollment], from source: SecondFactorSource) throws -> [SecondFactor] {
        var numbers = Set<String>()
        var ids = Set<String>()
        var factors: [SecondFactor] = []
        for factor in enrollments {
            guard factor.totpInfo == nil else {
                throw FlintError(.invalidArgument, "Only phone second factors can be set by an admin.")
            }
            guard let raw = factor.phoneInfo ?? factor.unobfuscatedPhoneInfo, let phone = try? Validation.phoneNumber(raw) else {
                throw FlintError(.invalidMFAPhoneNumber, "Invalid format.")
            }
            guard numbers.insert(phone).inserted else { continue }
            let id: String
            switch source {
            case .signUp:
                id = random.localID()
            case .update where factor.mfaEnrollmentId.isEmpty && policy.adminFactorUpdatesNeedEnrollmentIDs:
                throw FlintError(.invalidMFAEnrollmentID, "mfaEnrollmentId must be defined.")
            case .update, .imported:
                id = factor.mfaEnrollmentId.isEmpty ? random.localID() : factor.mfaEnrollmentId
            }
            guard ids.insert(id).inserted else { throw FlintError(.duplicateMFAEnrollmentID) }
            factors.append(SecondFactor(
                enrollmentID: id, kind: .phone, displayName: factor.displayName, phoneNumber: phone,
                enrolledAt: factor.enrolledAt.flatMap(UserRecord.milliseconds(iso8601:)) ?? clock.milliseconds))
        }
        guard factors.count <= MultiFactorService.maximumFactors else { throw FlintError(.secondFactorLimitExceeded) }
        return factors
    }

    /// The identity an admin links (`linkProviderUserInfo`, the Admin SDK's `providerToLink`); an account
    /// already linked to anyone is refused (the store's unique key refuses a race too).
    func identity(linking info: ProviderUserInfo, projectID: String) async throws -> FederatedIdentity {
        guard !info.providerId.isEmpty else { throw FlintError(.missingProviderID) }
        guard let rawID = info.rawId ?? info.federatedId, !rawID.isEmpty else { throw FlintError(.missingRawID) }
        guard ![ProviderID.password, ProviderID.phone].contains(info.providerId) else {
            throw FlintError(.invalidArgument, "linkProviderUserInfo needs a federated providerId.")
        }
        if try await store.user(projectID: projectID, providerID: info.providerId, rawID: rawID) != nil {
            throw FlintError(.federatedUserIDAlreadyLinked)
        }
        return FederatedIdentity(
            providerID: info.providerId, rawID: rawID, email: info.email, displayName: info.displayName,
            photoURL: info.photoUrl, screenName: info.screenName)
    }

    // MARK: Lookup, bulk delete and query

    /// The user `identifier` names (see `LookupRequest(identifying:)`); `USER_NOT_FOUND` when there is none.
    public func record(matching identifier: String, caller: Caller) async throws -> UserRecord {
        let request = LookupRequest(identifying: identifier)
        guard let user = try await lookup(request, caller: caller).users?.first else { throw FlintError(.userNotFound) }
        return user
    }

    /// Deletes up to 1000 users; like Firebase, an enabled user is skipped (`NOT_DISABLED`) unless `force`.
    public func batchDelete(_ request: BatchDeleteRequest, caller: Caller) async throws -> BatchDeleteResponse {
        guard caller.isAdmin else { throw FlintError.adminRequired }
        let ids = request.localIds ?? []
        guard !ids.isEmpty, ids.count <= Self.maximumBatch else { throw FlintError(.localIDListExceedsLimit) }
        var failures: [BatchDeleteResponse.Failure] = []
        for (index, localID) in ids.enumerated() {
            guard let user = try await store.user(projectID: caller.projectID, localID: localID) else { continue }
            if !user.disabled, request.force != true {
                failures.append(.init(index: index, localId: localID,
                                      message: "NOT_DISABLED : Disable the account before batch deletion."))
                continue
            }
            if let deleted = try await store.deleteUser(projectID: caller.projectID, localID: localID) {
                await userDeleted?.notify(deleted)
            }
        }
        return BatchDeleteResponse(errors: failures.isEmpty ? nil : failures)
    }

    /// Users in local-id order from `offset`, `limit` of them (default 500), or only the count.
    public func query(_ request: QueryAccountsRequest, caller: Caller) async throws -> QueryAccountsResponse {
        guard caller.isAdmin else { throw FlintError.adminRequired }
        let count = try await store.userCount(projectID: caller.projectID)
        if request.returnUserInfo == false { return QueryAccountsResponse(recordsCount: String(count)) }
        guard let limit = Int(request.limit?.value ?? "500"), (1...Self.maximumBatch).contains(limit),
              let offset = Int(request.offset?.value ?? "0"), offset >= 0
        else { throw FlintError(.invalidArgument, "limit must be 1-\(Self.maximumBatch) and offset ≥ 0") }
        let users = try await store.users(projectID: caller.projectID, offset: offset, limit: limit)
        return QueryAccountsResponse(recordsCount: String(count),
                                     userInfo: users.map { UserRecord($0, revealPasswordHash: true) })
    }
}

extension LookupRequest {
    /// A lookup of the user `identifier` names: an email if it has an @, a phone number if it starts with +,
    /// else a uid. How the console and the command line find users.
    public init(identifying identifier: String) {
        if identifier.contains("@") {
            self.init(email: [identifier])
        } else if identifier.hasPrefix("+") {
            self.init(phoneNumber: [identifier])
        } else {
            self.init(localId: [identifier])
        }
    }
}
