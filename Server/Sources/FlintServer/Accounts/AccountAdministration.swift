import FlintWire
import Foundation

/// Admin-only bulk operations: import (`accounts:batchCreate`), bulk delete (`accounts:batchDelete`) and
/// query (`accounts:query`).
extension AccountService {
    /// Firebase's limit per import or bulk delete.
    public static let maximumBatch = 1000

    // MARK: Import

    /// Imports users as given (ids, profile, timestamps, claims, linked providers, phone second factors, passkeys,
    /// password hashes with the request's algorithm, or raw passwords to hash). Each user fails or succeeds
    /// on its own; failures come back by index, in Firebase's sentences. The accepted entries are written together
    /// (`AccountStore.importUsers`), as if one after the other: with `allowOverwrite` an entry replaces the account of
    /// its local id, else that id is one more value another account may hold.
    public func batchCreate(_ request: BatchCreateRequest, caller: Caller) async throws -> BatchCreateResponse {
        guard caller.isAdmin else { throw FlintError.adminRequired }
        guard (request.users ?? []).count <= Self.maximumBatch else {
            throw FlintError(.invalidArgument, "At most \(Self.maximumBatch) users can be imported at once.")
        }
        var failures: [BatchCreateResponse.Failure] = []
        var accepted: [(index: Int, user: UserAccount)] = []
        for (index, imported) in try await importedUsers(request, caller: caller).enumerated() {
            switch imported {
            case .success(let user): accepted.append((index, user))
            case .failure(let error): failures.append(.init(index: index, message: Self.importMessage(error)))
            }
        }
        let conflicts = try await accounts.importUsers(accepted.map(\.user), replacing: request.allowOverwrite == true)
        for conflict in conflicts {
            failures.append(.init(index: accepted[conflict.index].index, message: Self.importMessage(FlintError(duplicate: conflict.field))))
        }
        failures.sort { $0.index < $1.index }
        return BatchCreateResponse(error: failures.isEmpty ? nil : failures)
    }

    /// An import's entries as accounts, each checked alone (`importMessage` words a refusal), after the checks of the
    /// batch as a whole, which throw. Nothing is written.
    func importedUsers(_ request: BatchCreateRequest, caller: Caller) async throws -> [Result<UserAccount, FlintError>] {
        let users = request.users ?? []
        guard !users.isEmpty else { throw FlintError(.missingUserAccount) }
        try Self.checkBatch(users, allowOverwrite: request.allowOverwrite == true, sanityCheck: request.sanityCheck == true)
        // Without a hashAlgorithm the emulator takes its own fake hashes and Flint's portable ones (checked user by
        // user); otherwise the request's hash parameters must be valid for any hash to be imported.
        let takesFakeHashes = request.hashAlgorithm == nil && policy.acceptsEmulatorFakePasswordHashes
        let needsHash = !takesFakeHashes && users.contains { $0.passwordHash != nil }
        let hashParameters = needsHash ? try passwords.imported.parameters(of: request, projectID: caller.projectID) : nil
        var imported: [Result<UserAccount, FlintError>] = []
        for record in users {
            do {
                imported.append(.success(try await importedUser(record, hashParameters: hashParameters, caller: caller)))
            } catch let error as FlintError {
                imported.append(.failure(error))
            }
        }
        return imported
    }

    /// A per-user import failure in Firebase's words: the entry's `message` is the bare sentence.
    private static func importFailure(_ sentence: String) -> FlintError {
        FlintError(sentence: sentence, status: .badRequest, reason: "invalid")
    }

    /// The message of a user's failure: the store's refusals (another account holds the email, the provider account
    /// or a passkey's credential ID, or the local id without `allowOverwrite`) in Firebase's import sentences.
    static func importMessage(_ error: FlintError) -> String {
        if error.is(.emailExists) { return "email exists in other account in database" }
        if error.is(.federatedUserIDAlreadyLinked) { return "raw id exists in other account in database" }
        if error.is(.duplicateLocalID) { return "localId belongs to an existing account - can not overwrite." }
        if error.is(.credentialAlreadyInUse) { return "passkey credentialId exists in other account in database" }
        return error.message
    }

    /// Runs `check`, reporting any refusal as the import sentence `sentence`.
    private static func importing<T>(_ sentence: String, _ check: () throws -> T) throws -> T {
        do { return try check() } catch is FlintError { throw importFailure(sentence) }
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

    /// One import entry as an account, checked in the order Firebase checks (so an entry with several faults
    /// is refused for the same one).
    private func importedUser(_ record: UserRecord, hashParameters: ImportedPasswordHash?, caller: Caller) async throws
        -> UserAccount {
        guard !record.localId.isEmpty else { throw Self.importFailure("localId is missing") }
        guard record.localId.count <= 128 else { throw FlintError(.invalidArgument, "localId") }
        // An entry naming a tenant goes to that tenant only: the one the request is for.
        if let tenantID = record.tenantId, tenantID != caller.project.realm.tenantID {
            throw Self.importFailure("Tenant id in userInfo does not match the tenant id in request.")
        }
        let now = clock.milliseconds
        var user = UserAccount(projectID: caller.projectID, localID: record.localId,
                               createdAt: record.createdAt.flatMap { Int64($0) } ?? now)
        user.displayName = record.displayName
        user.photoURL = record.photoUrl
        user.disabled = record.disabled ?? false
        user.lastLoginAt = record.lastLoginAt.flatMap { Int64($0) }
        if let hash = record.passwordHash, hashParameters == nil {
            // Only reached where the policy takes the emulator's fake hashes (see `importedUsers`).
            guard let password = try passwords.portablePassword(hash, salt: record.salt, project: caller.project, updatedAt: now)
            else {
                throw FlintError(.invalidArgument, "Unsupported hashAlgorithm (none)")
            }
            user.password = password
        } else if let hash = record.passwordHash {
            guard let hashBytes = ImportedPasswords.bytes(hash) else { throw FlintError(.invalidArgument, "passwordHash is not base64") }
            let saltBytes = try record.salt.map { salt -> Data in
                guard let bytes = ImportedPasswords.bytes(salt) else { throw FlintError(.invalidArgument, "salt is not base64") }
                return bytes
            } ?? Data()
            user.passwordHash = hashBytes.base64EncodedString()
            user.passwordSalt = saltBytes.base64EncodedString()
            user.passwordUpdatedAt = now
            user.importedPasswordHash = hashParameters
        } else if let rawPassword = record.rawPassword {
            user.password = try await passwords.stored(rawPassword, project: caller.project)
        }
        user.customAttributes = try record.customAttributes.flatMap { claims in
            do {
                return try Validation.customClaims(claims)
            } catch let error as FlintError {
                if error.is(.claimsTooLarge) { throw Self.importFailure("Custom claims provided are too large.") }
                if error.is(.forbiddenClaim) { throw Self.importFailure("Custom claims provided include a reserved claim.") }
                throw Self.importFailure("Invalid custom claims provided.")
            }
        }
        user.identities = try importedIdentities(record.providerUserInfo ?? [])
        user.phoneNumber = try record.phoneNumber.map { number in
            try Self.importing("phone number format is invalid") { try Validation.phoneNumber(number) }
        }
        user.email = try record.email.map { email in try Self.importing("email is invalid") { try Validation.email(email) } }
        user.emailVerified = record.emailVerified ?? false
        if let factors = record.mfaInfo, !factors.isEmpty {
            guard user.email != nil else { throw Self.importFailure("Second factor account requires email to be presented.") }
            guard user.emailVerified else { throw Self.importFailure("Second factor account requires email to be verified.") }
            do {
                user.mfaFactors = try secondFactors(factors, from: .imported)
            } catch let error as FlintError where error.is(.invalidMFAPhoneNumber) {
                throw Self.importFailure("Phone number format is invalid")
            } catch let error as FlintError where error.is(.invalidArgument) {
                throw Self.importFailure("Second factor not supported.")
            }
        }
        user.passkeys = try Self.importedPasskeys(record.passkeyInfo ?? [], now: now)
        return user
    }

    /// An entry's passkeys, as an admin's export gives them (`PasskeyInfo` with Flint's fields): each with a credential
    /// ID not given twice, a name (else the emulator's default), and where there is a key, base64url of a COSE key of the
    /// algorithm given (ES256, EdDSA or RS256), so that signing in with it goes on working. A passkey without a key (one
    /// enrolled in emulator mode, or Firebase's bare `{credentialId, name}`) is kept as such. Another account of the
    /// realm holding a credential ID is the store's refusal (`user_passkeys`), reported for this entry alone.
    private static func importedPasskeys(_ infos: [PasskeyInfo], now: Int64) throws -> [Passkey] {
        var credentialIDs = Set<String>()
        return try infos.map { info in
            guard var credentialID = info.credentialId, !credentialID.isEmpty else {
                throw importFailure("passkey credentialId is missing")
            }
            guard credentialIDs.insert(credentialID).inserted else { throw importFailure("passkey credentialId is duplicated") }
            if let algorithm = info.algorithm, COSEAlgorithm(rawValue: algorithm) == nil {
                throw importFailure("passkey algorithm is not supported")
            }
            if let publicKey = info.publicKey {
                guard let bytes = Base64URL.decode(publicKey), let algorithm = info.algorithm,
                      (try? COSEKey(bytes: Array(bytes)))?.algorithm.rawValue == algorithm
                else { throw importFailure("passkey publicKey is invalid") }
            } else if info.algorithm != nil {
                throw importFailure("passkey algorithm is given without a publicKey")
            }
            // A verified passkey is found at sign-in by its ID in unpadded base64url: a file in base64's spelling is
            // taken in that one. (An emulator passkey's ID is any string, kept as given.)
            if info.publicKey != nil, Base64URL.decode(credentialID) == nil {
                guard let bytes = Data(base64Encoded: credentialID) else { throw importFailure("passkey credentialId is invalid") }
                credentialID = Base64URL.encode(bytes)
            }
            // An int64 field (a string, as Firebase writes them), not below zero.
            func number(_ text: String?, _ field: String) throws -> Int64? {
                guard let text else { return nil }
                guard let value = Int64(text), value >= 0 else { throw importFailure("passkey \(field) is invalid") }
                return value
            }
            return Passkey(
                credentialID: credentialID, name: info.name.flatMap { $0.isEmpty ? nil : $0 } ?? PasskeyService.unnamed,
                publicKey: info.publicKey, algorithm: info.algorithm, signCount: try number(info.signCount, "signCount") ?? 0,
                createdAt: try number(info.createdAt, "createdAt") ?? now, lastUsedAt: try number(info.lastUsedAt, "lastUsedAt"))
        }
    }

    /// An entry's linked accounts. Password and phone identities follow from the entry's own fields; the others
    /// need a provider and its account id (`rawId`, or a `federatedId` standing for it).
    private func importedIdentities(_ infos: [ProviderUserInfo]) throws -> [FederatedIdentity] {
        try infos.filter { ![ProviderID.password, ProviderID.phone].contains($0.providerId) }.map { info in
            guard !info.providerId.isEmpty, let rawID = info.rawId ?? info.federatedId else {
                if info.federatedId != nil, policy.explainsUnparsedFederatedIDs {
                    throw Self.importFailure(
                        "((Parsing federatedId is not implemented in Auth Emulator; please specify providerId AND rawId as a workaround.))")
                }
                throw Self.importFailure("federatedId or (providerId & rawId) is required")
            }
            return FederatedIdentity(providerID: info.providerId, rawID: rawID, email: info.email,
                                     displayName: info.displayName, photoURL: info.photoUrl, screenName: info.screenName)
        }
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
            guard let raw = factor.phoneInfo, let phone = try? Validation.phoneNumber(raw) else {
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
        guard factors.count <= SecondFactor.maximumPerAccount else { throw FlintError(.secondFactorLimitExceeded) }
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
        if try await accounts.user(projectID: projectID, providerID: info.providerId, rawID: rawID) != nil {
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
            guard let user = try await accounts.user(projectID: caller.projectID, localID: localID) else { continue }
            if !user.disabled, request.force != true {
                failures.append(.init(index: index, localId: localID,
                                      message: "NOT_DISABLED : Disable the account before batch deletion."))
                continue
            }
            if let deleted = try await accounts.deleteUser(projectID: caller.projectID, localID: localID) {
                await userDeleted?.notify(deleted)
            }
        }
        return BatchDeleteResponse(errors: failures.isEmpty ? nil : failures)
    }

    /// Users in local-id order from `offset`, `limit` of them (default 500), or only the count.
    public func query(_ request: QueryAccountsRequest, caller: Caller) async throws -> QueryAccountsResponse {
        guard caller.isAdmin else { throw FlintError.adminRequired }
        let count = try await accounts.userCount(projectID: caller.projectID)
        if request.returnUserInfo == false { return QueryAccountsResponse(recordsCount: String(count)) }
        guard let limit = Int(request.limit?.value ?? "500"), (1...Self.maximumBatch).contains(limit),
              let offset = Int(request.offset?.value ?? "0"), offset >= 0
        else { throw FlintError(.invalidArgument, "limit must be 1-\(Self.maximumBatch) and offset ≥ 0") }
        let users = try await accounts.users(projectID: caller.projectID, offset: offset, limit: limit)
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
