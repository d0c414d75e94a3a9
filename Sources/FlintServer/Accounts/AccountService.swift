import FlintWire
import Foundation

/// The rules of the account operations: sign-up, password sign-in, lookup, update, delete, sign-in
/// methods. Handlers translate the wire; this type decides; the store keeps the data.
public struct AccountService: Sendable {
    let store: Store
    let tokens: TokenService
    let hasher: PasswordHasher
    /// Checks passwords imported with other hash algorithms.
    let importedPasswords: ImportedPasswords
    let gate: SecondFactorGate
    /// Told about deletions, when the operator configured it.
    let userDeleted: UserDeletedWebhook?
    let clock: any FlintClock
    let random: any RandomSource

    private var throttle: SignInThrottle { SignInThrottle(store: store, clock: clock) }

    // MARK: Sign-up

    public func signUp(_ request: SignUpRequest, caller: Caller) async throws -> SignInResponse {
        if caller.isAdmin, request.idToken == nil { return try await adminCreate(request, caller: caller) }
        if let idToken = request.idToken { return try await linkPassword(request, idToken: idToken, caller: caller) }

        let settings = caller.project.settings.signIn
        var user = UserAccount(projectID: caller.projectID, localID: random.localID(), createdAt: clock.milliseconds)
        user.displayName = request.displayName
        user.lastLoginAt = user.createdAt
        let provider: String
        if request.email == nil, request.password == nil {
            guard settings.anonymousEnabled else { throw FlintError(.adminOnlyOperation) }
            provider = ProviderID.anonymous
        } else {
            guard settings.emailPasswordEnabled else { throw FlintError(.operationNotAllowed) }
            user.email = try Validation.email(request.email)
            try await setPassword(try Validation.newPassword(request.password), on: &user, project: caller.project)
            provider = ProviderID.password
        }
        try await create(user)
        let issued = try await tokens.issue(for: user, signInProvider: provider)
        return SignInResponse(
            kind: "identitytoolkit#SignupNewUserResponse", localId: user.localID, email: user.email ?? "",
            displayName: user.displayName, idToken: issued.idToken, refreshToken: issued.refreshToken,
            expiresIn: issued.expiresIn)
    }

    /// Admin `createUser`: any profile fields, no tokens.
    private func adminCreate(_ request: SignUpRequest, caller: Caller) async throws -> SignInResponse {
        let localID = request.localId ?? random.localID()
        guard !localID.isEmpty, localID.count <= 128 else { throw FlintError(.invalidArgument, "localId") }
        var user = UserAccount(projectID: caller.projectID, localID: localID, createdAt: clock.milliseconds)
        user.email = try request.email.map { try Validation.email($0) }
        user.emailVerified = request.emailVerified ?? false
        user.displayName = request.displayName
        user.photoURL = request.photoUrl
        user.phoneNumber = try request.phoneNumber.map { try Validation.phoneNumber($0) }
        user.disabled = request.disabled ?? false
        if let password = request.password {
            try await setPassword(try Validation.newPassword(password), on: &user, project: caller.project)
        }
        try await create(user)
        return SignInResponse(kind: "identitytoolkit#SignupNewUserResponse", localId: user.localID, email: user.email)
    }

    /// `signUp` with an `idToken`: adds email and password to an existing (e.g. anonymous) user.
    private func linkPassword(_ request: SignUpRequest, idToken: String, caller: Caller) async throws -> SignInResponse {
        var user = try await tokens.verifyIDToken(idToken, projectID: caller.projectID).user
        guard caller.project.settings.signIn.emailPasswordEnabled else { throw FlintError(.operationNotAllowed) }
        let email = try Validation.email(request.email)
        let password = try Validation.newPassword(request.password)
        if user.hasPassword, user.email != email { throw FlintError(.emailExists) }
        if user.email != email {
            user.email = email
            user.emailVerified = false
        }
        if let displayName = request.displayName { user.displayName = displayName }
        try await setPassword(password, on: &user, project: caller.project)
        user.lastLoginAt = clock.milliseconds
        try await save(user)
        let issued = try await tokens.issue(for: user, signInProvider: ProviderID.password)
        return SignInResponse(
            kind: "identitytoolkit#SignupNewUserResponse", localId: user.localID, email: user.email,
            displayName: user.displayName, idToken: issued.idToken, refreshToken: issued.refreshToken,
            expiresIn: issued.expiresIn)
    }

    // MARK: Password sign-in

    public func signInWithPassword(_ request: SignInWithPasswordRequest, caller: Caller) async throws -> SignInResponse {
        let project = caller.project
        guard project.settings.signIn.emailPasswordEnabled else { throw FlintError(.passwordLoginDisabled) }
        let email = try Validation.email(request.email, missing: .invalidEmail)
        guard let password = request.password, !password.isEmpty else { throw FlintError(.missingPassword) }
        let hidesAccounts = project.settings.improvedEmailPrivacy
        try await throttle.checkAllowed(projectID: caller.projectID, email: email)

        let found = try await store.user(projectID: caller.projectID, email: email)
        guard var user = found, let hash = user.passwordHash, let salt = user.passwordSalt else {
            // Spend the same time as a real check, so response times do not reveal which emails exist.
            _ = try await hasher.hash(password: password, salt: Data(random.bytes(12)), project: project)
            // Firebase: "the password is invalid or the user does not have a password".
            throw FlintError(hidesAccounts ? .invalidLoginCredentials : found == nil ? .emailNotFound : .invalidPassword)
        }
        guard password.utf8.count <= PasswordHasher.maximumLength,
              try await matches(password, hash: hash, salt: salt, of: user, project: project)
        else {
            try await throttle.recordFailure(projectID: caller.projectID, email: email)
            throw FlintError(hidesAccounts ? .invalidLoginCredentials : .invalidPassword)
        }
        try await throttle.recordSuccess(projectID: caller.projectID, email: email)
        if user.disabled { throw FlintError(.userDisabled) }
        if user.importedPasswordHash != nil {
            // An imported hash: now that the password is known, keep it the project's own way.
            try await setPassword(password, on: &user, project: project)
            user.importedPasswordHash = nil
            try await save(user)
        }
        if let challenge = try gate.challenge(for: user, signInProvider: ProviderID.password) {
            var response = SignInResponse(kind: "identitytoolkit#VerifyPasswordResponse", localId: user.localID,
                                          email: user.email, displayName: user.displayName ?? "", registered: true)
            response.mfaPendingCredential = challenge.pendingCredential
            response.mfaInfo = challenge.mfaInfo
            return response
        }

        var signedIn = user
        signedIn.lastLoginAt = clock.milliseconds
        try await save(signedIn)
        let issued = try await tokens.issue(for: signedIn, signInProvider: ProviderID.password)
        return SignInResponse(
            kind: "identitytoolkit#VerifyPasswordResponse", localId: user.localID, email: user.email,
            displayName: user.displayName ?? "", idToken: issued.idToken, refreshToken: issued.refreshToken,
            expiresIn: issued.expiresIn, registered: true)
    }

    /// Checks a password against the user's hash: the project's scrypt, or how an imported hash was made.
    private func matches(_ password: String, hash: String, salt: String, of user: UserAccount, project: Project)
        async throws -> Bool {
        if let imported = user.importedPasswordHash {
            return try await importedPasswords.verify(password: password, hash: hash, salt: salt, parameters: imported,
                                                      projectID: project.id)
        }
        return try await hasher.verify(password: password, hash: hash, salt: salt, project: project)
    }

    // MARK: Lookup

    public func lookup(_ request: LookupRequest, caller: Caller) async throws -> LookupResponse {
        if let idToken = request.idToken, !caller.isAdmin || (request.localId ?? []).isEmpty {
            let user = try await tokens.verifyIDToken(idToken, projectID: caller.projectID).user
            return LookupResponse(users: [UserRecord(user, revealPasswordHash: false)])
        }
        guard caller.isAdmin else { throw FlintError(.missingIDToken) }
        var found: [UserAccount] = []
        for localID in request.localId ?? [] {
            if let user = try await store.user(projectID: caller.projectID, localID: localID) { found.append(user) }
        }
        for email in request.email ?? [] {
            if let user = try await store.user(projectID: caller.projectID, email: email.lowercased()) { found.append(user) }
        }
        for phone in request.phoneNumber ?? [] {
            if let user = try await store.user(projectID: caller.projectID, phoneNumber: phone) { found.append(user) }
        }
        for federated in request.federatedUserId ?? [] {
            if let user = try await store.user(projectID: caller.projectID, providerID: federated.providerId,
                                               rawID: federated.rawId) { found.append(user) }
        }
        var seen = Set<String>()
        let unique = found.filter { seen.insert($0.localID).inserted }
        return LookupResponse(users: unique.isEmpty ? nil : unique.map { UserRecord($0, revealPasswordHash: true) })
    }

    /// Admin listing, ordered by local id (`accounts:batchGet`).
    public func list(maxResults: Int?, pageToken: String?, caller: Caller) async throws -> BatchGetResponse {
        let limit = min(max(maxResults ?? 20, 1), 1000)
        let users = try await store.users(projectID: caller.projectID, afterLocalID: pageToken, limit: limit)
        let next = users.count == limit ? users.last?.localID : nil
        return BatchGetResponse(users: users.map { UserRecord($0, revealPasswordHash: true) }, nextPageToken: next)
    }

    // MARK: Update

    public func update(_ request: UpdateAccountRequest, caller: Caller) async throws -> UpdateAccountResponse {
        var user: UserAccount
        let verified: TokenService.VerifiedIDToken?
        if caller.isAdmin, let localID = request.localId {
            guard let found = try await store.user(projectID: caller.projectID, localID: localID) else {
                throw FlintError(.userNotFound)
            }
            user = found
            verified = nil
        } else {
            guard request.idToken != nil else { throw FlintError(caller.isAdmin ? .missingLocalID : .missingIDToken) }
            let token = try await tokens.verifyIDToken(request.idToken, projectID: caller.projectID)
            user = token.user
            verified = token
        }
        if let verified, request.email != nil || request.password != nil { try tokens.requireRecentSignIn(verified) }
        if !caller.isAdmin,
           request.emailVerified != nil || request.disableUser != nil || request.customAttributes != nil
            || request.validSince != nil || request.phoneNumber != nil || request.mfa != nil
            || request.linkProviderUserInfo != nil {
            throw FlintError(.insufficientPermission, "Only admins can set these attributes.", status: .forbidden)
        }

        var reissue = false
        let now = clock.seconds
        if let email = request.email {
            let normalised = try Validation.email(email)
            if normalised != user.email {
                user.email = normalised
                user.emailVerified = false
                reissue = true
            }
        }
        if let password = request.password {
            try await setPassword(try Validation.newPassword(password), on: &user, project: caller.project)
            // A new password signs every other session out.
            user.validSince = now
            reissue = true
        }
        if let displayName = request.displayName { user.displayName = displayName }
        if let photoURL = request.photoUrl { user.photoURL = photoURL }
        for attribute in request.deleteAttribute ?? [] {
            switch attribute {
            case "DISPLAY_NAME": user.displayName = nil
            case "PHOTO_URL": user.photoURL = nil
            case "PHONE_NUMBER" where caller.isAdmin: user.phoneNumber = nil
            default: throw FlintError(.invalidArgument, "Unknown deleteAttribute \(attribute)")
            }
        }
        for provider in request.deleteProvider ?? [] {
            switch provider {
            case ProviderID.password:
                user.passwordHash = nil
                user.passwordSalt = nil
                user.passwordUpdatedAt = nil
                user.email = nil
                user.emailVerified = false
                user.emailLinkSignin = false
            case ProviderID.phone:
                user.phoneNumber = nil
            default:
                user.identities.removeAll { $0.providerID == provider }
            }
        }
        if caller.isAdmin {
            if let verifiedFlag = request.emailVerified { user.emailVerified = verifiedFlag }
            if let disabled = request.disableUser { user.disabled = disabled }
            if let claims = request.customAttributes { user.customAttributes = try Validation.customClaims(claims) }
            if let validSince = request.validSince {
                guard let seconds = Int64(validSince.value) else { throw FlintError(.invalidArgument, "validSince") }
                user.validSince = seconds
            }
            if let phone = request.phoneNumber { user.phoneNumber = try Validation.phoneNumber(phone) }
            if let mfa = request.mfa { user.mfaFactors = try secondFactors(mfa.enrollments ?? []) }
            if let info = request.linkProviderUserInfo { try await link(info, to: &user) }
        }
        try await save(user)

        var response = UpdateAccountResponse(localId: user.localID)
        response.kind = "identitytoolkit#SetAccountInfoResponse"
        response.email = user.email
        response.displayName = user.displayName
        response.photoUrl = user.photoURL
        response.emailVerified = user.emailVerified
        response.passwordHash = user.hasPassword ? UserRecord.redactedPasswordHash : nil
        response.providerUserInfo = user.providerUserInfo
        if let verified, reissue, request.returnSecureToken ?? false {
            let issued = try await tokens.issue(
                for: user, signInProvider: verified.claims.firebase.signInProvider, authTime: verified.claims.authTime)
            response.idToken = issued.idToken
            response.refreshToken = issued.refreshToken
            response.expiresIn = issued.expiresIn
        }
        return response
    }

    // MARK: Delete

    public func delete(_ request: DeleteAccountRequest, caller: Caller) async throws -> DeleteAccountResponse {
        let localID: String
        if caller.isAdmin, let requested = request.localId {
            localID = requested
        } else {
            let verified = try await tokens.verifyIDToken(request.idToken, projectID: caller.projectID)
            try tokens.requireRecentSignIn(verified)
            localID = verified.user.localID
        }
        guard let deleted = try await store.deleteUser(projectID: caller.projectID, localID: localID) else {
            throw FlintError(.userNotFound)
        }
        await userDeleted?.notify(deleted)
        return DeleteAccountResponse()
    }

    // MARK: Sign-in methods

    public func createAuthURI(_ request: CreateAuthURIRequest, caller: Caller) async throws -> CreateAuthURIResponse {
        let email = try Validation.email(request.identifier, missing: .missingIdentifier, invalid: .invalidIdentifier)
        let sessionID = random.token(byteCount: 18)
        if caller.project.settings.improvedEmailPrivacy {
            return CreateAuthURIResponse(sessionId: sessionID)
        }
        let user = try await store.user(projectID: caller.projectID, email: email)
        let methods = user?.signInMethods ?? []
        return CreateAuthURIResponse(
            registered: user != nil, allProviders: methods, signinMethods: methods, sessionId: sessionID)
    }

    // MARK: Helpers

    func setPassword(_ password: String, on user: inout UserAccount, project: Project) async throws {
        let salt = Data(random.bytes(12))
        let hash = try await hasher.hash(password: password, salt: salt, project: project)
        user.passwordHash = hash.base64EncodedString()
        user.passwordSalt = salt.base64EncodedString()
        user.passwordUpdatedAt = clock.milliseconds
        user.importedPasswordHash = nil
    }

    func create(_ user: UserAccount) async throws {
        do {
            try await store.createUser(user)
        } catch let StoreError.duplicate(field) {
            throw Self.error(for: field)
        }
    }

    func save(_ user: UserAccount) async throws {
        do {
            try await store.updateUser(user)
        } catch let StoreError.duplicate(field) {
            throw Self.error(for: field)
        }
    }

    private static func error(for field: UniqueField) -> FlintError {
        switch field {
        case .email: FlintError(.emailExists)
        case .phoneNumber: FlintError(.phoneNumberExists)
        case .localID: FlintError(.duplicateLocalID)
        case .federatedIdentity: FlintError(.invalidArgument, "identity already linked")
        }
    }
}
