import FlintWire
import Foundation

/// Email action codes: sign-in links, password resets, address verification, change and recovery.
/// `sendOobCode` makes a code and mails a link; `signInWithEmailLink`, `resetPassword` and
/// `accounts:update` with an `oobCode` use one up.
///
/// Codes are 240 random bits, stored only as SHA-256, single use (the consuming DELETE lets one caller
/// through) and expire per kind as Firebase's do.
public struct ActionCodeService: Sendable {
    let core: ServerCore
    let accounts: AccountStore
    let codes: CodeStore
    let tokens: TokenService
    let passwords: PasswordRules
    /// Emails are queued, not sent inside the request (see `EmailOutbox`).
    let outbox: EmailOutbox
    let pipeline: SignInPipeline
    /// `beforeSendEmail` is asked before sign-in and reset mails.
    let blockingFunctions: BlockingFunctions
    var clock: any FlintClock { core.clock }
    var random: any RandomSource { core.random }
    var policy: ModePolicy { core.policy }

    init(core: ServerCore, tokens: TokenService, passwords: PasswordRules, outbox: EmailOutbox, pipeline: SignInPipeline,
         blockingFunctions: BlockingFunctions) {
        self.core = core
        accounts = core.store.accounts
        codes = core.store.codes
        self.tokens = tokens
        self.passwords = passwords
        self.outbox = outbox
        self.pipeline = pipeline
        self.blockingFunctions = blockingFunctions
    }

    /// How long each kind of code lives, in seconds.
    static func lifetime(of type: OobRequestType) -> Int64 {
        switch type {
        case .emailSignIn: 6 * 3600
        case .passwordReset: 3600
        case .verifyEmail, .verifyAndChangeEmail, .recoverEmail: 3 * 86_400
        }
    }

    // MARK: Sending

    public func sendOobCode(_ request: SendOobCodeRequest, caller: Caller) async throws -> SendOobCodeResponse {
        guard let type = request.requestType else { throw FlintError(.missingRequestType) }
        let returnLink = request.returnOobLink ?? false
        if returnLink, !caller.isAdmin { throw FlintError.adminRequired }
        let settings = caller.project.settings
        let continueURL = try continueURL(request, settings: settings, required: type == .emailSignIn && policy.requiresSignInContinueURL)
        let linkBase = try linkBase(request.linkDomain, settings: settings)

        // Who the code is for, and where the mail goes.
        var target: (email: String, newEmail: String?, user: UserAccount?)
        switch type {
        case .emailSignIn:
            guard settings.allowsEmailLinkSignIn else { throw FlintError(.operationNotAllowed) }
            if request.canHandleCodeInApp == false {
                throw FlintError(.invalidArgument, "canHandleCodeInApp must be true for EMAIL_SIGNIN")
            }
            let address = try Validation.email(request.email)
            target = (address, nil, try await accounts.user(projectID: caller.projectID, email: address))
        case .passwordReset:
            let address = try Validation.email(request.email)
            target = (address, nil, try await accounts.user(projectID: caller.projectID, email: address))
        case .verifyEmail:
            let user = try await user(of: request, caller: caller)
            guard let address = user.email else { throw FlintError(.missingEmail) }
            target = (address, nil, user)
        case .verifyAndChangeEmail:
            guard let newEmail = request.newEmail, !newEmail.isEmpty else { throw FlintError(.missingNewEmail) }
            let user = try await user(of: request, caller: caller, changingCredentials: true)
            let address = try Validation.email(newEmail)
            if let owner = try await accounts.user(projectID: caller.projectID, email: address), owner.localID != user.localID {
                throw FlintError(.emailExists)
            }
            // As Firebase keeps it: `email` is the current address, `newEmail` the one to change to.
            target = (user.email ?? address, address, user)
        case .recoverEmail:
            throw FlintError(.invalidArgument, "RECOVER_EMAIL codes are sent by Flint itself when an address changes")
        }

        // The mail goes to the address being proved: the new one for a change.
        let recipient = type == .verifyAndChangeEmail ? (target.newEmail ?? target.email) : target.email
        if !returnLink {
            try await outbox.refusing(.rateLimit, projectID: caller.projectID) { try await admit(address: recipient, caller: caller) }
        }
        // Unknown addresses: with enumeration protection the request succeeds and nothing is sent (nor a link made).
        if type == .passwordReset, target.user == nil {
            if settings.improvedEmailPrivacy { return SendOobCodeResponse(email: target.email) }
            throw FlintError(.emailNotFound)
        }

        // A project's beforeSendEmail function may refuse a sign-in or reset mail before any code exists.
        if !returnLink, let emailType = Self.blockingFunctionEmailType(type) {
            try await blockingFunctions.beforeSending(
                .email(address: recipient, type: emailType), in: caller.project.realm, settings: settings.blockingFunctions)
        }
        let issued = try await issue(
            type, email: target.email, newEmail: target.newEmail, localID: target.user?.localID, caller: caller,
            continueURL: continueURL, linkBase: linkBase, wrapForApp: type == .emailSignIn && request.canHandleCodeInApp == true)
        if returnLink {
            return SendOobCodeResponse(email: target.email, oobCode: issued.code, oobLink: issued.link)
        }
        try mail(type, to: recipient, link: issued.link, newEmail: target.newEmail, user: target.user, caller: caller)
        return SendOobCodeResponse(email: target.email)
    }

    /// The mails `beforeSendEmail` is asked about, by the names its events give them.
    private static func blockingFunctionEmailType(_ type: OobRequestType) -> String? {
        switch type {
        case .emailSignIn: "EMAIL_SIGN_IN"
        case .passwordReset: "PASSWORD_RESET"
        default: nil
        }
    }

    /// The user a verification request is about: the `idToken`'s, or (admin, without one) the one with
    /// `email`. A change of address is a credential change: its ID token must come from a recent sign-in.
    /// Without an ID token a client is told its token is invalid (verifying) or missing (changing), as
    /// Firebase tells them.
    private func user(of request: SendOobCodeRequest, caller: Caller, changingCredentials: Bool = false) async throws
        -> UserAccount {
        guard let idToken = request.idToken, !idToken.isEmpty else {
            guard caller.isAdmin else { throw FlintError(changingCredentials ? .missingIDToken : .invalidIDToken) }
            guard let user = try await accounts.user(projectID: caller.projectID, email: try Validation.email(request.email)) else {
                throw FlintError(.userNotFound)
            }
            return user
        }
        let verified = try await tokens.verifyIDToken(request.idToken, projectID: caller.projectID)
        if changingCredentials { try tokens.requireRecentSignIn(verified, toChangeCredentialsOf: verified.user) }
        return verified.user
    }

    /// Makes a code and its link; returns both.
    func issue(_ type: OobRequestType, email: String, newEmail: String?, localID: String?, caller: Caller,
               continueURL: String?, linkBase: String?, wrapForApp: Bool) async throws -> (code: String, link: String) {
        let code = random.token(byteCount: 30)
        let link = try await link(for: type, code: code, caller: caller, continueURL: continueURL, base: linkBase,
                                  wrapForApp: wrapForApp)
        let now = clock.milliseconds
        try await codes.insertOobCode(OobCodeRecord(
            id: Self.id(of: code), projectID: caller.projectID, requestType: type, email: email, newEmail: newEmail,
            localID: localID, createdAt: now, expiresAt: now + Self.lifetime(of: type) * 1000,
            emulatorCode: policy.servesEmulatorEndpoints ? code : nil, emulatorLink: policy.servesEmulatorEndpoints ? link : nil))
        return (code, link)
    }

    /// The emailed link: the action page with the code, as Firebase Hosting serves it; sign-in links for
    /// apps are wrapped in `/__/auth/links` so a universal link opens the app. Emulator mode links to the
    /// emulator's own `/emulator/action`, as the official emulator does.
    private func link(for type: OobRequestType, code: String, caller: Caller, continueURL: String?, base: String?,
                      wrapForApp: Bool) async throws -> String {
        let apiKey = if let key = caller.apiKey, !key.isEmpty { key } else { try await core.apiKey(forProject: caller.projectID) }
        let root = base ?? core.publicURL
        let parameters: [(String, String?)] = [
            ("apiKey", apiKey), ("mode", Self.mode(of: type)), ("oobCode", code), ("continueUrl", continueURL),
            ("lang", caller.locale.map { SMSText.resolve($0) }), ("tenantId", caller.project.realm.tenantID),
        ]
        let query = FormURLEncoding.encode(parameters.compactMap { name, value in value.map { (name, $0) } })
        if policy.servesEmulatorEndpoints { return "\(root)/emulator/action?\(query)" }
        let action = "\(root)/__/auth/action?\(query)"
        guard wrapForApp else { return action }
        return "\(root)/__/auth/links?link=\(FormURLEncoding.escape(action))"
    }

    /// Queues the email; throws a 503 when the outbox cannot take it.
    private func mail(_ type: OobRequestType, to address: String, link: String, newEmail: String?, user: UserAccount?,
                      caller: Caller) throws(FlintError) {
        let rendered = EmailTemplates.render(
            action: type, locale: caller.locale, link: link, email: address, newEmail: newEmail,
            appName: caller.project.realm.projectID, displayName: user?.displayName, overrides: caller.project.settings.emailTemplates)
        try outbox.enqueue(EmailMessage(
            projectID: caller.projectID, to: address, senderName: rendered.senderName, subject: rendered.subject,
            text: rendered.text, html: rendered.html, locale: rendered.locale, kind: .action(type), link: link))
    }

    /// The client's budget, then the address's.
    private func admit(address: String, caller: Caller) async throws {
        if let client = caller.clientLimitKey { try await core.budgets.spend(.emailsPerClient, in: caller.projectID, for: client) }
        try await core.budgets.spend(.emailsPerAddress, in: caller.projectID, for: address)
    }

    // MARK: Signing in with a link

    public func signInWithEmailLink(_ request: SignInWithEmailLinkRequest, caller: Caller) async throws -> SignInWithEmailLinkResponse {
        guard caller.project.settings.allowsEmailLinkSignIn else { throw FlintError(.operationNotAllowed) }
        let address = try Validation.email(request.email)
        let record = try await useCode(request.oobCode, caller: caller, expecting: [.emailSignIn]) { record in
            // The link only signs in the address it was sent to.
            guard record.email == address else {
                throw FlintError(.invalidEmail, "The email provided does not match the sign-in email address.")
            }
        }
        let email = record.email
        let provider = ProviderID.password

        if let idToken = request.idToken, !idToken.isEmpty {
            // A link adds the proved address to the signed-in account (replacing another one is a change of
            // address: it needs a recent sign-in and ends the other sessions).
            let verified = try await tokens.verifyIDToken(idToken, projectID: caller.projectID)
            if let owner = try await accounts.user(projectID: caller.projectID, email: email), owner.localID != verified.user.localID {
                throw FlintError(.emailExists)
            }
            let now = clock.seconds
            var attempt = SignInPipeline.Attempt.reissue(for: verified, provider: provider) { [tokens] current in
                try tokens.requireRecentSignIn(verified, toChangeCredentialsOf: current)
                var change = AccountChange([.email(email), .emailVerified(true), .emailLinkSignin(true)])
                if let previous = current.email, previous != email { change.revokeSessions(at: now) }
                return change
            }
            // A link is a sign-in: an account with second factors passes one before it gets tokens.
            attempt.asksSecondFactor = true
            let outcome = try await pipeline.signIn(verified.user.localID, projectID: caller.projectID, attempt)
            return Self.response(outcome, isNewUser: false)
        }
        if let user = try await accounts.user(projectID: caller.projectID, email: email) {
            return try await signIn(user.localID, provedEmail: email, caller: caller)
        }
        var user = UserAccount(projectID: caller.projectID, localID: random.localID(), createdAt: clock.milliseconds)
        user.email = email
        user.emailVerified = true
        user.emailLinkSignin = true
        do {
            return Self.response(try await pipeline.signIn(creating: user, .init(provider: provider)), isNewUser: true)
        } catch let error as FlintError where error.is(.emailExists) {
            // Another request created the account a moment ago: sign in to it.
            guard let winner = try await accounts.user(projectID: caller.projectID, email: email) else { throw FlintError.internalError }
            return try await signIn(winner.localID, provedEmail: email, caller: caller)
        }
    }

    /// Signs in to the account that holds the address a link proved; whatever a stranger added to it while
    /// the address was unverified goes (see `AccountChange.emailOwnershipProved`), in emulator mode too.
    private func signIn(_ localID: String, provedEmail email: String, caller: Caller) async throws
        -> SignInWithEmailLinkResponse {
        let now = clock.seconds
        let attempt = SignInPipeline.Attempt(provider: ProviderID.password) { current in
            guard current.email == email else { throw FlintError(.invalidOobCode) }
            var change = AccountChange.emailOwnershipProved(on: current, at: now)
            change.add(.emailLinkSignin(true))
            return change
        }
        return Self.response(try await pipeline.signIn(localID, projectID: caller.projectID, attempt), isNewUser: false)
    }

    private static func response(_ outcome: SignInPipeline.Outcome, isNewUser: Bool) -> SignInWithEmailLinkResponse {
        var response = SignInWithEmailLinkResponse(localId: outcome.user.localID, email: outcome.user.email)
        outcome.fill(&response)
        if response.idToken != nil { response.isNewUser = isNewUser }
        return response
    }

    // MARK: Password reset and checking codes

    public func resetPassword(_ request: ResetPasswordRequest, caller: Caller) async throws -> ResetPasswordResponse {
        guard caller.project.settings.signIn.emailPasswordEnabled else { throw FlintError(.passwordLoginDisabled) }
        guard let newPassword = request.newPassword else {
            // "checkActionCode": what the code is for, without using it.
            let record = try await liveCode(request.oobCode, caller: caller)
            return ResetPasswordResponse(
                email: record.requestType == .emailSignIn ? nil : record.email, newEmail: record.newEmail,
                requestType: record.requestType)
        }
        let password = try await passwords.newPassword(newPassword, by: caller)
        let record = try await useCode(request.oobCode, caller: caller, expecting: [.passwordReset]) { _ in }
        let now = clock.seconds
        // The reset proves the address (a stranger's credentials on an unverified one go); every older session ends.
        try await changeOwner(of: record, caller: caller) { current in
            guard current.email == record.email else { throw FlintError(.invalidOobCode) }
            var change = AccountChange.emailOwnershipProved(on: current, at: now)
            change.add(.password(password))
            change.revokeSessions(at: now)
            return change
        }
        return ResetPasswordResponse(email: record.email, requestType: .passwordReset)
    }

    // MARK: Applying verification, change and recovery codes (`accounts:update` with `oobCode`)

    public func apply(oobCode: String?, caller: Caller) async throws -> UpdateAccountResponse {
        let record = try await useCode(oobCode, caller: caller, expecting: [.verifyEmail, .verifyAndChangeEmail, .recoverEmail]) { _ in }
        if record.requestType == .verifyAndChangeEmail, let changed = record.newEmail,
           let holder = try await accounts.user(projectID: caller.projectID, email: changed), holder.localID != record.localID {
            throw FlintError(.emailExists)
        }
        let now = clock.seconds
        let modified = try await changeOwner(of: record, caller: caller) { current in
            switch record.requestType {
            case .verifyEmail:
                // Requested from inside the account, and it signs no one in: the address is verified, and
                // the account keeps its credentials (a user verifying the address they signed up with keeps
                // the password they chose).
                guard current.email == record.email else { throw FlintError(.invalidOobCode) }
                return AccountChange([.emailVerified(true)])
            case .verifyAndChangeEmail:
                guard let changed = record.newEmail else { throw FlintError(.invalidOobCode) }
                var change = AccountChange([.email(changed), .emailVerified(true)])
                change.revokeSessions(at: now)
                return change
            case .recoverEmail:
                var change = AccountChange([.email(record.email), .emailVerified(true)])
                change.revokeSessions(at: now)
                return change
            case .emailSignIn, .passwordReset:
                throw FlintError(.invalidOobCode)
            }
        }
        let user = modified.after
        if record.requestType == .verifyAndChangeEmail {
            try await addressChanged(from: modified.before.email, to: user, caller: caller)
        }
        var response = UpdateAccountResponse(localId: user.localID)
        response.kind = "identitytoolkit#SetAccountInfoResponse"
        response.email = user.email
        response.emailVerified = user.emailVerified
        response.displayName = user.displayName
        response.newEmail = record.newEmail
        response.providerUserInfo = user.providerUserInfo
        return response
    }

    /// The one rule of address changes: an address replaced by another (not one set where there was none) is
    /// mailed a link that puts it back.
    func addressChanged(from previous: String?, to user: UserAccount, caller: Caller) async throws {
        guard let previous, let changed = user.email, previous != changed else { return }
        try await sendRecovery(to: previous, undoing: changed, user: user, caller: caller)
    }

    /// Mails the old address a link that puts it back (best effort: the change stands if the mail fails).
    private func sendRecovery(to previous: String, undoing changed: String, user: UserAccount, caller: Caller) async throws {
        let issued = try await issue(
            .recoverEmail, email: previous, newEmail: changed, localID: user.localID, caller: caller, continueURL: nil,
            linkBase: nil, wrapForApp: false)
        // The change itself stands: the recovery mail is best effort (the outbox logs a failed delivery).
        try? mail(.recoverEmail, to: previous, link: issued.link, newEmail: changed, user: user, caller: caller)
    }

    // MARK: Codes

    /// A live code of this project (not used up); INVALID_OOB_CODE / EXPIRED_OOB_CODE otherwise.
    func liveCode(_ code: String?, caller: Caller) async throws -> OobCodeRecord {
        guard let code, !code.isEmpty else { throw FlintError(.missingOobCode) }
        guard let record = try await codes.oobCode(id: Self.id(of: code), projectID: caller.projectID) else {
            throw FlintError(.invalidOobCode)
        }
        // An expired code stays until the janitor's sweep, so every late try is told it expired.
        if record.expiresAt <= clock.milliseconds { throw FlintError(.expiredOobCode) }
        return record
    }

    /// Checks a code is live, of an expected kind and passes `check`, then uses it up.
    private func useCode(_ code: String?, caller: Caller, expecting types: Set<OobRequestType>,
                         check: (OobCodeRecord) throws -> Void) async throws -> OobCodeRecord {
        let record = try await liveCode(code, caller: caller)
        guard types.contains(record.requestType) else { throw FlintError(.invalidOobCode) }
        try check(record)
        guard try await codes.consumeOobCode(id: record.id) else { throw FlintError(.invalidOobCode) }
        return record
    }

    /// Applies `decide` to the account a code is for (by id, else by address); a disabled one is refused.
    @discardableResult
    private func changeOwner(of record: OobCodeRecord, caller: Caller,
                             _ decide: @escaping @Sendable (UserAccount) throws -> AccountChange) async throws -> AccountStore.Modification {
        let localID: String?
        if let id = record.localID {
            localID = id
        } else {
            localID = try await accounts.user(projectID: caller.projectID, email: record.email)?.localID
        }
        guard let localID, let modified = try await pipeline.modify(projectID: caller.projectID, localID: localID, { current in
            if current.disabled { throw FlintError(.userDisabled) }
            return try decide(current)
        }) else { throw FlintError(.userNotFound) }
        return modified
    }

    // MARK: Rules

    /// The `continueUrl`, which must be an http(s) URL on one of the project's authorized domains.
    /// In emulator mode, as in the official emulator, a sign-in link needs no `continueUrl` and the URL may
    /// be on any domain (an app's own URL works without configuring authorized domains); it must still be
    /// an absolute http(s) URL.
    private func continueURL(_ request: SendOobCodeRequest, settings: ProjectSettings, required: Bool) throws -> String? {
        guard let raw = request.continueUrl, !raw.isEmpty else {
            if required { throw FlintError(.missingContinueURI) }
            return nil
        }
        try Self.checkContinueURL(raw, settings: settings, checksDomain: policy.checksContinueURLDomain)
        return raw
    }

    /// Checks a continue (or redirect) URL: an absolute http(s) URL on one of the project's authorized domains (when
    /// `checksDomain`); with `appSchemes`, also an app's own scheme (RFC 8252's native redirect), which the provider
    /// it is sent to must have registered. INVALID_CONTINUE_URI or UNAUTHORIZED_DOMAIN otherwise.
    static func checkContinueURL(_ raw: String, settings: ProjectSettings, checksDomain: Bool, appSchemes: Bool = false) throws {
        guard let url = URLComponents(string: raw), let scheme = url.scheme?.lowercased(), !scheme.isEmpty
        else { throw FlintError(.invalidContinueURI) }
        guard scheme == "http" || scheme == "https" else {
            if appSchemes { return }
            throw FlintError(.invalidContinueURI)
        }
        guard let host = url.host, !host.isEmpty else { throw FlintError(.invalidContinueURI) }
        guard !checksDomain || isAuthorized(host, settings: settings) else {
            throw FlintError(.unauthorizedDomain, "Domain not allowlisted by project")
        }
    }

    /// The base of emailed links: `https://<linkDomain>` when the request names an authorized one.
    private func linkBase(_ linkDomain: String?, settings: ProjectSettings) throws -> String? {
        guard let domain = linkDomain?.lowercased(), !domain.isEmpty else { return nil }
        guard !domain.contains("/"), Self.isAuthorized(domain, settings: settings) else {
            throw FlintError(.invalidHostingLinkDomain,
                             "The provided hosting link domain is not configured in Firebase Hosting or is not owned by the current project. This cannot be a default hosting domain (web.app or firebaseapp.com).")
        }
        return "https://\(domain)"
    }

    static func isAuthorized(_ host: String, settings: ProjectSettings) -> Bool {
        let host = host.lowercased()
        return settings.authorizedDomains.contains { $0.lowercased() == host }
    }

    static func mode(of type: OobRequestType) -> String {
        switch type {
        case .emailSignIn: "signIn"
        case .passwordReset: "resetPassword"
        case .verifyEmail: "verifyEmail"
        case .verifyAndChangeEmail: "verifyAndChangeEmail"
        case .recoverEmail: "recoverEmail"
        }
    }

    static func id(of code: String) -> String {
        Hex.sha256(code)
    }
}
