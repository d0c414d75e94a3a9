import FlintWire
import Foundation

/// The rules of the account operations: sign-up, password sign-in, lookup, update, delete, sign-in
/// methods. Handlers translate the wire; this type decides; the store keeps the data.
public struct AccountService: Sendable {
    let accounts: AccountStore
    let tokens: TokenService
    let passwords: PasswordRules
    let pipeline: SignInPipeline
    /// Told about deletions, when the operator configured it.
    let userDeleted: UserDeletedWebhook?
    let clock: any FlintClock
    let random: any RandomSource
    let policy: ModePolicy
    let budgets: BudgetLedger

    init(core: ServerCore, tokens: TokenService, passwords: PasswordRules, pipeline: SignInPipeline,
         userDeleted: UserDeletedWebhook?) {
        accounts = core.store.accounts
        self.tokens = tokens
        self.passwords = passwords
        self.pipeline = pipeline
        self.userDeleted = userDeleted
        clock = core.clock
        random = core.random
        policy = core.policy
        budgets = core.budgets
    }

    // MARK: Sign-up

    public func signUp(_ request: SignUpRequest, caller: Caller) async throws -> SignInResponse {
        // Only an admin creating a user names its id.
        if request.localId != nil, !caller.isAdmin || request.idToken != nil { throw FlintError(.unexpectedParameter, "User ID") }
        if caller.isAdmin, request.idToken == nil { return try await adminCreate(request, caller: caller) }
        if let idToken = request.idToken { return try await linkPassword(request, idToken: idToken, caller: caller) }
        if request.mfaInfo != nil, !policy.signUpTakesSecondFactors {
            throw FlintError(.insufficientPermission, "Only admins can set these attributes.", status: .forbidden)
        }

        let settings = caller.project.settings.signIn
        // The client's hourly budget of new accounts, shared by every node, is spent in the account's own transaction.
        let signUpSpend = caller.clientLimitKey.flatMap { budgets.transactionalSpend(.signUpsPerClient, in: caller.projectID, for: $0) }
        var user = UserAccount(projectID: caller.projectID, localID: random.localID(), createdAt: clock.milliseconds)
        let provider: String
        if request.email == nil, request.password == nil {
            // An anonymous account has no profile yet.
            guard settings.anonymousEnabled else { throw FlintError(.adminOnlyOperation) }
            provider = ProviderID.anonymous
        } else {
            guard settings.emailPasswordEnabled else { throw FlintError(.operationNotAllowed) }
            user.email = try Validation.email(request.email)
            // A spent budget refuses before the password is hashed, not after.
            try await signUpSpend?.check()
            user.password = try await passwords.newPassword(request.password, by: caller)
            user.displayName = request.displayName
            provider = ProviderID.password
        }
        user.mfaFactors = try secondFactors(request.mfaInfo ?? [], from: .signUp)
        // The account as the sign-up left it (a blocking function may have changed it).
        let outcome = try await pipeline.signIn(creating: user, .init(provider: provider), spending: signUpSpend)
        let (created, issued) = (outcome.user, try outcome.tokens())
        return SignInResponse(
            kind: "identitytoolkit#SignupNewUserResponse", localId: created.localID, email: created.email ?? "",
            displayName: created.displayName, idToken: issued.idToken, refreshToken: issued.refreshToken,
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
            user.password = try await passwords.stored(try Validation.newPassword(password), project: caller.project)
        }
        user.mfaFactors = try secondFactors(request.mfaInfo ?? [], from: .signUp)
        try await pipeline.create(user)
        return SignInResponse(kind: "identitytoolkit#SignupNewUserResponse", localId: user.localID, email: user.email,
                              displayName: user.displayName)
    }

    /// `signUp` with an `idToken`: adds email and password to an existing (e.g. anonymous) user. Replacing a
    /// password or an address is a credential change: it needs a recent sign-in and ends the other sessions.
    private func linkPassword(_ request: SignUpRequest, idToken: String, caller: Caller) async throws -> SignInResponse {
        let verified = try await tokens.verifyIDToken(idToken, projectID: caller.projectID)
        guard caller.project.settings.signIn.emailPasswordEnabled else { throw FlintError(.operationNotAllowed) }
        let email = try Validation.email(request.email)
        let password = try await passwords.newPassword(request.password, by: caller)
        let now = clock.seconds
        let attempt = SignInPipeline.Attempt.reissue(for: verified, provider: ProviderID.password) { [tokens] current in
            try tokens.requireRecentSignIn(verified, toChangeCredentialsOf: current)
            if current.hasPassword, current.email != email, !policy.signUpLinkReplacesPassword { throw FlintError(.emailExists) }
            var change = AccountChange([.password(password)])
            if current.email != email { change.add(AccountChange([.email(email), .emailVerified(false)])) }
            if let displayName = request.displayName { change.add(.displayName(displayName)) }
            if current.hasPassword || current.email != nil && current.email != email { change.revokeSessions(at: now) }
            return change
        }
        let outcome = try await pipeline.signIn(verified.user.localID, projectID: caller.projectID, attempt)
        let (user, issued) = (outcome.user, try outcome.tokens())
        return SignInResponse(
            kind: "identitytoolkit#SignupNewUserResponse", localId: user.localID, email: user.email,
            displayName: user.displayName, idToken: issued.idToken, refreshToken: issued.refreshToken,
            expiresIn: issued.expiresIn)
    }

    // MARK: Password sign-in

    public func signInWithPassword(_ request: SignInWithPasswordRequest, caller: Caller) async throws -> SignInResponse {
        let project = caller.project
        guard project.settings.signIn.emailPasswordEnabled else { throw FlintError(.passwordLoginDisabled) }
        let email = try Validation.email(request.email)
        guard let password = request.password, !password.isEmpty else { throw FlintError(.missingPassword) }
        let hidesAccounts = project.settings.improvedEmailPrivacy
        // The address's try is taken before the password is compared, whether an account has the address or not.
        let triesSubject = "\(email):\(caller.clientLimitKey ?? "")"
        try await budgets.spend(.passwordTries, in: caller.projectID, for: triesSubject)

        let found = try await accounts.user(projectID: caller.projectID, email: email)
        AuditScope.current?.subject = found?.localID
        // No account, no password, or one too long to be anyone's: refused after the work of a real check (on at
        // most `maximumLength` bytes), so response times do not reveal which emails exist.
        guard let user = found, let hash = user.passwordHash, let salt = user.passwordSalt,
              password.utf8.count <= PasswordHasher.maximumLength
        else {
            try await passwords.checkNothing(password, project: project)
            // Firebase: "the password is invalid or the user does not have a password".
            throw FlintError(hidesAccounts ? .invalidLoginCredentials : found == nil ? .emailNotFound : .invalidPassword)
        }
        guard try await passwords.matches(password, hash: hash, salt: salt, of: user, project: project) else {
            throw FlintError(hidesAccounts ? .invalidLoginCredentials : .invalidPassword)
        }
        try await budgets.refund(.passwordTries, in: caller.projectID, for: triesSubject)
        // The right password, but one the enforced policy no longer accepts: with forceUpgradeOnSignin the user must
        // set a new one (a password reset) first.
        if let passwordPolicy = project.settings.passwordPolicy, passwordPolicy.enforced, passwordPolicy.forceUpgradeOnSignIn {
            try passwordPolicy.check(password)
        }
        // An imported hash: now that the password is known, keep it the project's own way.
        let rehashed = try await passwords.rehashed(password, of: user, project: project)
        let verifiedHash = hash
        let attempt = SignInPipeline.Attempt(provider: ProviderID.password) { current in
            // The password checked above must still be the account's (not changed since it was read).
            guard current.passwordHash == verifiedHash else {
                throw FlintError(hidesAccounts ? .invalidLoginCredentials : .invalidPassword)
            }
            return AccountChange(rehashed.map { [.password($0)] } ?? [])
        }
        let outcome = try await pipeline.signIn(user.localID, projectID: caller.projectID, attempt)
        // The account as the sign-in left it (a blocking function may have changed it).
        var response = SignInResponse(kind: "identitytoolkit#VerifyPasswordResponse", localId: user.localID,
                                      email: outcome.user.email, displayName: outcome.user.displayName ?? "", registered: true)
        outcome.fill(&response)
        return response
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
            if let user = try await accounts.user(projectID: caller.projectID, localID: localID) { found.append(user) }
        }
        for email in request.email ?? [] {
            if let user = try await accounts.user(projectID: caller.projectID, email: email.lowercased()) { found.append(user) }
        }
        for phone in request.phoneNumber ?? [] {
            if let user = try await accounts.user(projectID: caller.projectID, phoneNumber: phone) { found.append(user) }
        }
        for federated in request.federatedUserId ?? [] {
            if let user = try await accounts.user(projectID: caller.projectID, providerID: federated.providerId,
                                               rawID: federated.rawId) { found.append(user) }
        }
        var seen = Set<String>()
        let unique = found.filter { seen.insert($0.localID).inserted }
        return LookupResponse(users: unique.isEmpty ? nil : unique.map { UserRecord($0, revealPasswordHash: true) })
    }

    /// Admin listing, ordered by local id (`accounts:batchGet`).
    public func list(maxResults: Int?, pageToken: String?, caller: Caller) async throws -> BatchGetResponse {
        let limit = min(max(maxResults ?? 20, 1), 1000)
        let users = try await accounts.users(projectID: caller.projectID, afterLocalID: pageToken, limit: limit)
        let next = users.count == limit ? users.last?.localID : nil
        return BatchGetResponse(users: users.map { UserRecord($0, revealPasswordHash: true) }, nextPageToken: next)
    }

    // MARK: Update

    public func update(_ request: UpdateAccountRequest, caller: Caller) async throws -> UpdateAccountResponse {
        try await updateAccount(request, caller: caller).response
    }

    /// What `accounts:update` did: the answer, and, when a signed-in user (not an anonymous one) set an address,
    /// the address it had and the account as changed (`ActionCodeService.addressChanged` tells the old address).
    struct UpdateOutcome: Sendable {
        var response: UpdateAccountResponse
        var addressChange: (previous: String?, user: UserAccount)?
    }

    func updateAccount(_ request: UpdateAccountRequest, caller: Caller) async throws -> UpdateOutcome {
        let localID: String
        let verified: TokenService.VerifiedIDToken?
        if caller.isAdmin, let requested = request.localId {
            localID = requested
            verified = nil
        } else {
            guard request.idToken != nil else { throw FlintError(caller.isAdmin ? .missingLocalID : .missingIDToken) }
            let token = try await tokens.verifyIDToken(request.idToken, projectID: caller.projectID)
            localID = token.user.localID
            verified = token
        }
        // Where the policy allows, users end their own other sessions (`validSince`, whatever its value) and
        // link provider accounts themselves.
        let ownRevocation = !caller.isAdmin && request.validSince != nil && policy.usersMayRevokeOwnSessions
        let ownLink = !caller.isAdmin && request.linkProviderUserInfo != nil && policy.usersMayLinkProviderUserInfo
        if !caller.isAdmin,
           request.emailVerified != nil || request.disableUser != nil || request.customAttributes != nil
            || (request.validSince != nil && !ownRevocation) || request.phoneNumber != nil || request.mfa != nil
            || (request.linkProviderUserInfo != nil && !ownLink) {
            throw FlintError(.insufficientPermission, "Only admins can set these attributes.", status: .forbidden)
        }

        // Everything that needs the store or time is worked out first; the change itself is decided on the
        // account as stored now, under its lock.
        let email = try request.email.map { try Validation.email($0) }
        let password: StoredPassword? = if let raw = request.password {
            try await passwords.newPassword(raw, by: caller)
        } else {
            nil
        }
        var privilegedChange = caller.isAdmin ? try await adminChange(request, projectID: caller.projectID) : AccountChange()
        if ownLink, let info = request.linkProviderUserInfo {
            privilegedChange.add(.link(try await identity(linking: info, projectID: caller.projectID)))
        }
        let adminChange = privilegedChange
        let now = clock.seconds
        let credentialsChange = email != nil || password != nil || !(request.deleteProvider ?? []).isEmpty
            || !(request.deletePasskey ?? []).isEmpty
        let decide: @Sendable (UserAccount) throws -> AccountChange = { [tokens] current in
            if let verified, credentialsChange { try tokens.requireRecentSignIn(verified, toChangeCredentialsOf: current) }
            var change = AccountChange()
            var revokes = false
            if let email, email != current.email {
                change.add(AccountChange([.email(email), .emailVerified(false)]))
                revokes = revokes || current.email != nil
            }
            if ownRevocation { revokes = true }
            if let password {
                change.add(.password(password))
                revokes = true
            }
            if let displayName = request.displayName { change.add(.displayName(displayName)) }
            if let photoURL = request.photoUrl { change.add(.photoURL(photoURL)) }
            for attribute in request.deleteAttribute ?? [] {
                switch attribute {
                case "DISPLAY_NAME": change.add(.displayName(nil))
                case "PHOTO_URL": change.add(.photoURL(nil))
                case "PHONE_NUMBER" where caller.isAdmin: change.add(.phoneNumber(nil))
                default: throw FlintError(.invalidArgument, "Unknown deleteAttribute \(attribute)")
                }
            }
            for provider in request.deleteProvider ?? [] {
                switch provider {
                case ProviderID.password:
                    change.add(AccountChange([.password(nil), .email(nil), .emailVerified(false), .emailLinkSignin(false)]))
                case ProviderID.phone: change.add(.phoneNumber(nil))
                default: change.add(.unlink(providerID: provider))
                }
            }
            if let credentialIDs = request.deletePasskey { change.add(PasskeyService.removing(credentialIDs, from: current)) }
            change.add(adminChange)
            if let info = request.linkProviderUserInfo, current.identities.contains(where: { $0.providerID == info.providerId }) {
                throw FlintError(.providerAlreadyLinked)
            }
            // A new password or address signs every other session out.
            if revokes, !change.revokesSessions { change.revokeSessions(at: now) }
            return change
        }

        let user: UserAccount
        var issued: TokenService.IssuedTokens?
        if let verified, email != nil || password != nil || ownRevocation,
           request.returnSecureToken ?? policy.updateIssuesTokensUnasked {
            // The caller's own session goes on in new tokens (a password sign-in's, once there is a password).
            let attempt = SignInPipeline.Attempt.reissue(for: verified, provider: password == nil ? nil : ProviderID.password, change: decide)
            let outcome = try await pipeline.signIn(localID, projectID: caller.projectID, attempt)
            (user, issued) = (outcome.user, try outcome.tokens())
        } else {
            guard let modified = try await pipeline.modify(projectID: caller.projectID, localID: localID, decide) else {
                throw FlintError(.userNotFound)
            }
            user = modified.after
        }

        var response = UpdateAccountResponse(localId: user.localID)
        response.kind = "identitytoolkit#SetAccountInfoResponse"
        response.email = user.email
        response.displayName = user.displayName
        response.photoUrl = user.photoURL
        response.emailVerified = user.emailVerified
        response.passwordHash = user.hasPassword ? UserRecord.redactedPasswordHash : nil
        response.providerUserInfo = user.providerUserInfo
        response.idToken = issued?.idToken
        response.refreshToken = issued?.refreshToken
        response.expiresIn = issued?.expiresIn
        if let verified, verified.claims.firebase.signInProvider != ProviderID.anonymous, email != nil {
            return UpdateOutcome(response: response, addressChange: (verified.user.email, user))
        }
        return UpdateOutcome(response: response)
    }

    /// The fields only an admin may set. Disabling the account, or moving `validSince` to now (within the
    /// clock skew allowed between machines: an Admin SDK's `revokeRefreshTokens` sends its own "now") or
    /// later, ends its sessions; an older `validSince` only refuses tokens older than it.
    private func adminChange(_ request: UpdateAccountRequest, projectID: String) async throws -> AccountChange {
        var change = AccountChange()
        if let verifiedFlag = request.emailVerified { change.add(.emailVerified(verifiedFlag)) }
        if let disabled = request.disableUser {
            change.add(.disabled(disabled))
            if disabled { change.add(.revokeSessions) }
        }
        if let claims = request.customAttributes { change.add(.customAttributes(try Validation.customClaims(claims))) }
        if let validSince = request.validSince {
            guard let seconds = Int64(validSince.value) else { throw FlintError(.invalidArgument, "validSince") }
            change.add(.validSince(seconds))
            if seconds >= clock.seconds - TokenService.allowedClockSkew { change.add(.revokeSessions) }
        }
        if let phone = request.phoneNumber { change.add(.phoneNumber(try Validation.phoneNumber(phone))) }
        if let mfa = request.mfa { change.add(.secondFactors(try secondFactors(mfa.enrollments ?? [], from: .update))) }
        if let info = request.linkProviderUserInfo { change.add(.link(try await identity(linking: info, projectID: projectID))) }
        return change
    }

    // MARK: Delete

    public func delete(_ request: DeleteAccountRequest, caller: Caller) async throws -> DeleteAccountResponse {
        let localID: String
        if caller.isAdmin {
            // An admin names the account; an ID token alongside does not stand in for it.
            guard let requested = request.localId, !requested.isEmpty else { throw FlintError(.missingLocalID) }
            localID = requested
        } else {
            let verified = try await tokens.verifyIDToken(request.idToken, projectID: caller.projectID)
            try tokens.requireRecentSignIn(verified)
            localID = verified.user.localID
        }
        guard let deleted = try await accounts.deleteUser(projectID: caller.projectID, localID: localID) else {
            throw FlintError(.userNotFound)
        }
        await userDeleted?.notify(deleted)
        return DeleteAccountResponse()
    }

    // MARK: Sign-in methods

    /// The sign-in methods of an address (`fetchSignInMethodsForEmail`): nothing with enumeration protection.
    /// `allProviders` names providers (`password` covers email links too); `signinMethods` tells password
    /// from email link. When a project allows several accounts per email, provider accounts are their own: only
    /// password and email-link methods are named, those of the first account found (by address or by a provider's
    /// address) that has an address of its own, as the emulator answers.
    public func createAuthURI(_ request: CreateAuthURIRequest, caller: Caller) async throws -> CreateAuthURIResponse {
        guard let identifier = request.identifier, !identifier.isEmpty else { throw FlintError(.missingIdentifier) }
        guard let continueURI = request.continueUri, !continueURI.isEmpty else { throw FlintError(.missingContinueURI) }
        let email = try Validation.email(identifier, invalid: .invalidIdentifier)
        guard let url = URLComponents(string: continueURI), url.scheme?.isEmpty == false else {
            throw FlintError(.invalidContinueURI)
        }
        let sessionID = request.sessionId.flatMap { $0.isEmpty ? nil : $0 } ?? random.token(byteCount: 18)
        if caller.project.settings.improvedEmailPrivacy {
            return CreateAuthURIResponse(sessionId: sessionID)
        }
        let candidates = try await accounts.users(projectID: caller.projectID, emailOrProviderEmail: email)
        let sharedEmails = caller.project.settings.signIn.allowDuplicateEmails
        guard let user = sharedEmails ? candidates.first(where: { $0.email != nil }) : candidates.first else {
            return CreateAuthURIResponse(registered: false, allProviders: [], signinMethods: [], sessionId: sessionID)
        }
        let ownMethods = user.signInMethods.filter { [ProviderID.password, ProviderID.emailLinkSignInMethod].contains($0) }
        let providers = sharedEmails ? [] : user.identities.map(\.providerID)
        return CreateAuthURIResponse(
            registered: true, allProviders: (ownMethods.isEmpty ? [] : [ProviderID.password]) + providers,
            signinMethods: ownMethods + providers, sessionId: sessionID)
    }
}
