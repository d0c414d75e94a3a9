import FlintWire

/// Where every sign-in ends, whatever its first factor (password, phone, email link, Apple, Facebook,
/// custom token, second factor), and every change that hands out new tokens:
///
/// 1. the account is read under its row lock, and the attempt re-checks its credential against that
///    current state (a password changed a moment ago no longer matches the one the service verified);
/// 2. the gate: a disabled account is refused; one with second factors gets a challenge, not tokens; the
///    project's blocking functions (`beforeCreate`, `beforeSignIn`) may refuse or change the sign-in, asked before
///    the transaction (they are outside calls) and applied inside it;
/// 3. the attempt's change set (a linked identity, a refreshed profile) and the sign-in's bookkeeping
///    (`lastLoginAt` and `lastRefreshAt`, nothing else) are applied field by field in the same transaction;
/// 4. the session begins in that same transaction, in the account's session epoch as the change left
///    it, so a revocation committed after it ends this session too; then its ID token is signed;
/// 5. a sign-in from a device the account had not used may be mailed to it, in the background (`NewDeviceNotices`).
///
/// Services keep what is theirs: verifying the first factor and finding the account. Account writes
/// outside a sign-in go through `modify` as well, so every write names its fields and holds the lock.
struct SignInPipeline: Sendable {
    let accounts: AccountStore
    /// For the one sign-in event no account write records: a second factor asked.
    let audit: AuditStore
    let tokens: TokenService
    let gate: SecondFactorGate
    let projects: ProjectDirectory
    let blockingFunctions: BlockingFunctions
    let notices: NewDeviceNotices
    let clock: any FlintClock

    init(core: ServerCore, tokens: TokenService, gate: SecondFactorGate, blockingFunctions: BlockingFunctions,
         notices: NewDeviceNotices) {
        accounts = core.store.accounts
        audit = core.store.audit
        self.tokens = tokens
        self.gate = gate
        projects = core.projects
        self.blockingFunctions = blockingFunctions
        self.notices = notices
        clock = core.clock
    }

    /// One sign-in, or one re-issue of tokens after a change, as a service asks for it.
    struct Attempt: Sendable {
        /// The first factor: the tokens' `sign_in_provider` (and a pending credential's).
        var provider: String
        /// Re-checks the credential against the account as stored now (throwing to refuse), and names what
        /// else the sign-in changes on it.
        var change: @Sendable (UserAccount) throws -> AccountChange = { _ in AccountChange() }
        /// Whether an account with second factors is challenged: not for links and re-issues (their caller
        /// is signed in already), second-factor sign-ins themselves, or custom tokens (as in Firebase).
        var asksSecondFactor = true
        /// Whether this counts as a login (`lastLoginAt`); re-issues after a change do not.
        var recordsLogin = true
        /// A re-issue keeps its session's `auth_time`; a sign-in starts a new one (nil: now).
        var authTime: Int64?
        /// The second factor the sign-in passed, for the tokens' claims.
        var secondFactor: PassedSecondFactor?
        /// A custom token's developer claims.
        var sessionClaims: String?
        /// A SAML sign-in's attributes (a JSON object string), for the session's ID tokens.
        var signInAttributes: String?
        /// The provider's credentials and profile, for blocking functions' events.
        var providerTokens: ProviderTokens?
        var rawUserInfo: String?

        init(provider: String, change: @escaping @Sendable (UserAccount) throws -> AccountChange = { _ in AccountChange() }) {
            self.provider = provider
            self.change = change
        }

        /// A re-issue for a caller who is signed in already: no second factor, no login. A link names the
        /// `provider` it just proved, which starts the session anew (`auth_time` now); a change of the
        /// account keeps the session's provider and `auth_time`.
        static func reissue(for verified: TokenService.VerifiedIDToken, provider: String? = nil,
                            change: @escaping @Sendable (UserAccount) throws -> AccountChange) -> Attempt {
            var attempt = Attempt(provider: provider ?? verified.claims.firebase.signInProvider, change: change)
            attempt.asksSecondFactor = false
            attempt.recordsLogin = false
            attempt.authTime = provider == nil ? verified.claims.authTime : nil
            return attempt
        }
    }

    enum Outcome: Sendable {
        case signedIn(UserAccount, TokenService.IssuedTokens)
        case secondFactorRequired(UserAccount, SecondFactorGate.Challenge)

        /// The account as the sign-in left it.
        var user: UserAccount {
            switch self {
            case .signedIn(let user, _), .secondFactorRequired(let user, _): user
            }
        }

        /// Writes the tokens, or the challenge, into a sign-in answer of any endpoint.
        func fill(_ answer: inout some SignInAnswer) {
            switch self {
            case .signedIn(_, let issued):
                answer.idToken = issued.idToken
                answer.refreshToken = issued.refreshToken
                answer.expiresIn = issued.expiresIn
            case .secondFactorRequired(_, let challenge):
                answer.mfaPendingCredential = challenge.pendingCredential
                answer.mfaInfo = challenge.mfaInfo
            }
        }

        /// The tokens; for callers that never ask for a second factor.
        func tokens() throws -> TokenService.IssuedTokens {
            guard case .signedIn(_, let issued) = self else { throw FlintError.internalError }
            return issued
        }
    }

    /// Signs in to the existing account `localID` (one this sign-in just created when `newAccount`).
    func signIn(_ localID: String, projectID: String, _ attempt: Attempt, newAccount: Bool = false) async throws -> Outcome {
        let now = clock.milliseconds
        AuditScope.current?.subject = localID
        // Second factors are asked while the project has multi-factor on; switched off, the first factor signs in (as
        // the emulator models Firebase), since `mfaSignIn:*` then refuses to finish a challenge.
        let settings = try await projects.project(projectID)?.settings
        let secondFactorsOn = attempt.asksSecondFactor && settings?.multiFactor.enabled == true
        let challenged: @Sendable (UserAccount) -> Bool = { secondFactorsOn && !$0.mfaFactors.isEmpty }
        // A sign-in that hands out tokens now asks the project's function first (a challenged one asks when the
        // second factor is done); what it changes is applied with the sign-in's own change.
        var attempt = attempt
        var decided = AccountChange()
        if attempt.recordsLogin, let functions = Self.functions(settings, attempt), functions.asks(.beforeSignIn),
           let current = try await accounts.user(projectID: projectID, localID: localID), !current.disabled, !challenged(current) {
            let verdict = try await ask(.beforeSignIn, about: attempt.change(current).applied(to: current), attempt, functions)
            decided = verdict.change
            attempt.sessionClaims = verdict.sessionClaims ?? attempt.sessionClaims
        }
        let start = session(projectID: projectID, localID: localID, attempt)
        let functionChange = decided
        guard let modified = try await modify(
            projectID: projectID, localID: localID,
            startingSession: { challenged($0) || functionChange.applied(to: $0).disabled ? nil : start.session },
            { [attempt] current in
                if current.disabled { throw FlintError(.userDisabled) }
                var change = try attempt.change(current)
                change.add(functionChange)
                if attempt.recordsLogin, !challenged(change.applied(to: current)) { change.add(.signedIn(at: now)) }
                return change
            }
        ) else { throw FlintError(.userNotFound) }
        let user = modified.after
        // A function may disable the account: its change is kept, the sign-in refused.
        if user.disabled { throw FlintError(.userDisabled) }
        guard challenged(user) else {
            let issued = try await tokens.tokens(for: user, start, newAccount: newAccount)
            // A sign-in, not a sign-up (whose device is the first) or a re-issue (whose caller was signed in already).
            if attempt.recordsLogin, !newAccount { notices.signedIn(user, session: start.session, settings: settings) }
            return .signedIn(user, issued)
        }
        // No session began: the tokens wait for the second factor.
        guard let challenge = try gate.challenge(for: user, signInProvider: attempt.provider) else { throw FlintError.internalError }
        try await audit.append(AuditEntry(.secondFactorRequired, realm: projectID, localID: localID,
                                          detail: ["method": attempt.provider]))
        return .secondFactorRequired(user, challenge)
    }

    /// Creates the account a first sign-in makes (it has no second factor yet) and signs in to it, the
    /// account and its session in one transaction. The project's functions see it first: `beforeCreate` on the
    /// account to be; then, as in Firebase, the account is created before `beforeSignIn` decides on the sign-in, so
    /// an account that function refuses (or either disables) exists, without a session.
    /// `spending`, when given, is spent in the account's own transaction: no account without its count.
    func signIn(creating user: UserAccount, _ attempt: Attempt, spending spend: TransactionalSpend? = nil) async throws -> Outcome {
        var user = user
        let functions = Self.functions(try await projects.project(user.projectID)?.settings, attempt)
        if let functions, functions.asks(.beforeCreate) {
            user = try await ask(.beforeCreate, about: user, attempt, functions).change.applied(to: user)
        }
        if user.disabled || functions?.asks(.beforeSignIn) == true {
            try await create(user, spending: spend)
            if user.disabled { throw FlintError(.userDisabled) }
            return try await signIn(user.localID, projectID: user.projectID, attempt, newAccount: true)
        }
        if attempt.recordsLogin { (user.lastLoginAt, user.lastRefreshAt) = (user.createdAt, user.createdAt) }
        let start = session(projectID: user.projectID, localID: user.localID, attempt)
        try await Self.mappingDuplicates {
            try await accounts.createUser(user, session: start.session, alsoRunning: spend?.spending)
        }
        return .signedIn(user, try await tokens.tokens(for: user, start, newAccount: true))
    }

    /// Whether `attempt` is one a second factor guards and the project has multi-factor on.
    /// The project's blocking functions, if it has any and `attempt` is one functions see (anonymous sign-ins are not,
    /// as in Firebase).
    private static func functions(_ settings: ProjectSettings?, _ attempt: Attempt) -> ProjectSettings.BlockingFunctions? {
        guard attempt.provider != ProviderID.anonymous, let functions = settings?.blockingFunctions, !functions.triggers.isEmpty
        else { return nil }
        return functions
    }

    /// The project's function for `event` on `user` as the sign-in would leave it.
    private func ask(_ event: BlockingFunctions.Event, about user: UserAccount, _ attempt: Attempt,
                     _ functions: ProjectSettings.BlockingFunctions) async throws -> BlockingFunctions.Verdict {
        try await blockingFunctions.run(event, for: user, context: .init(
            signInMethod: attempt.provider, providerTokens: attempt.providerTokens, rawUserInfo: attempt.rawUserInfo), settings: functions)
    }

    private func session(projectID: String, localID: String, _ attempt: Attempt) -> TokenService.SessionStart {
        tokens.startSession(projectID: projectID, localID: localID, signInProvider: attempt.provider,
                            authTime: attempt.authTime, secondFactor: attempt.secondFactor, sessionClaims: attempt.sessionClaims,
                            signInAttributes: attempt.signInAttributes)
    }

    // MARK: Writes

    /// `Store.modifyUser` with the store's unique-constraint errors as Firebase's.
    func modify(projectID: String, localID: String, startingSession session: (@Sendable (UserAccount) -> NewSession?)? = nil,
                _ decide: @escaping @Sendable (UserAccount) throws -> AccountChange) async throws -> AccountStore.Modification? {
        try await Self.mappingDuplicates {
            try await accounts.modifyUser(projectID: projectID, localID: localID, startingSession: session, decide)
        }
    }

    /// Inserts a new account (spending `spend` in its transaction).
    func create(_ user: UserAccount, spending spend: TransactionalSpend? = nil) async throws {
        try await Self.mappingDuplicates {
            try await accounts.createUser(user, alsoRunning: spend?.spending)
        }
    }

    private static func mappingDuplicates<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let StoreError.duplicate(field) {
            throw FlintError(duplicate: field)
        }
    }
}

extension FlintError {
    /// Firebase's error for a value another account holds already.
    init(duplicate field: UniqueField) {
        switch field {
        case .email: self.init(.emailExists)
        case .phoneNumber: self.init(.phoneNumberExists)
        case .localID: self.init(.duplicateLocalID)
        case .federatedIdentity: self.init(.federatedUserIDAlreadyLinked)
        case .passkeyCredential: self.init(.credentialAlreadyInUse)
        }
    }
}

/// What the answers of every sign-in endpoint share: tokens, or a second-factor challenge in their place.
protocol SignInAnswer {
    var idToken: String? { get set }
    var refreshToken: String? { get set }
    var expiresIn: String? { get set }
    var mfaPendingCredential: String? { get set }
    var mfaInfo: [MFAEnrollment]? { get set }
}

extension SignInResponse: SignInAnswer {}
extension SignInWithPhoneNumberResponse: SignInAnswer {}
extension SignInWithEmailLinkResponse: SignInAnswer {}
extension SignInWithIdpResponse: SignInAnswer {}

extension AccountChange {
    /// The owner of `account`'s email address has just proved it by signing in with an email link or
    /// resetting the password with a mailed code. While the address was unverified anyone could have put
    /// it on the account, with credentials of their own. So, as Firebase does for an unverified password
    /// and extended to every credential: the account keeps its uid but loses each credential the owner did
    /// not prove (password, phone number, linked providers), and every session it had ends. An account
    /// whose address was verified already only stays so.
    static func emailOwnershipProved(on account: UserAccount, at seconds: Int64) -> AccountChange {
        var change = AccountChange([.emailVerified(true)])
        guard !account.emailVerified else { return change }
        if account.password != nil { change.add(.password(nil)) }
        if account.phoneNumber != nil { change.add(.phoneNumber(nil)) }
        for provider in Set(account.identities.map(\.providerID)).sorted() { change.add(.unlink(providerID: provider)) }
        change.revokeSessions(at: seconds)
        return change
    }
}
