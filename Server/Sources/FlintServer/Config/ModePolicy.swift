/// Where production and emulator mode differ, decided once at start-up and asked by name.
///
/// Services never branch on "is this the emulator"; they ask the one question they care about
/// (`policy.checksContinueURLDomain`, `policy.verifiesApps`, …). Emulator mode answers each as the
/// official Firebase Auth emulator behaves; production answers as Firebase does. Keeping every answer
/// here means the emulator's spec is met by editing one table, and a production check cannot be
/// loosened by accident in a service far away.
public struct ModePolicy: Sendable, Equatable {
    public enum Mode: String, Sendable {
        case production, emulator
    }

    /// Shown by the console and `GET /`; not for decisions (ask one of the properties below).
    public let mode: Mode

    // MARK: Callers

    /// Any non-empty API key names the project (production: only the project's own keys).
    public let acceptsAnyAPIKey: Bool
    /// `Authorization: Bearer owner` (and Google OAuth tokens, `ya29.…`) act as admin on any project,
    /// and the console signs its operator in as that owner without a key.
    public let ownerTokenIsAdmin: Bool
    /// A project id seen for the first time is created on the spot.
    public let createsProjectsOnDemand: Bool

    // MARK: Tokens

    /// ID tokens and session cookies carry Google's issuers (`https://securetoken.google.com/<project>`),
    /// so Admin SDKs pointed at the emulator accept them; production's issuer is Flint's public URL.
    public let usesGoogleIssuers: Bool
    /// Custom tokens are read without checking their signature, as the official emulator does.
    public let verifiesCustomTokenSignatures: Bool

    // MARK: Delivery

    /// SMS, email and push go to the configured gateways; when false they go to the log only.
    public let makesOutsideCalls: Bool
    /// The `/emulator/v1/…` endpoints (reset, code listings, config) and `/emulator/action` are served;
    /// phone and email action codes are kept readable (not only hashed) for the listings, and emailed
    /// links point at `/emulator/action`.
    public let servesEmulatorEndpoints: Bool

    // MARK: Email actions

    /// `EMAIL_SIGNIN` needs a `continueUrl`.
    public let requiresSignInContinueURL: Bool
    /// A `continueUrl` must be on one of the project's authorized domains.
    public let checksContinueURLDomain: Bool

    // MARK: Phone

    /// Sending an SMS needs an app credential (APNs receipt or captcha token).
    public let verifiesApps: Bool
    /// Per-number, per-IP and project-wide SMS limits apply.
    public let limitsSMSSends: Bool

    // MARK: Federated

    /// Provider tokens are verified (signatures, JWKS, Graph API); when false their claims are read as sent.
    public let verifiesProviderTokens: Bool
    /// A provider that vouches for an email another account holds links to that account straight away
    /// (the official emulator's rule) instead of answering `needConfirmation`.
    public let linksVouchedEmailsWithoutConfirmation: Bool

    // MARK: Accounts

    /// A client's `signUp` may carry `mfaInfo` (the official emulator's shortcut for tests); production
    /// takes second factors from admins and from verified enrollments only.
    public let signUpTakesSecondFactors: Bool
    /// `signUp` with an ID token may replace the account's email and password (production refuses a
    /// second address with `EMAIL_EXISTS`).
    public let signUpLinkReplacesPassword: Bool
    /// `accounts:update` answers a new email, password or `validSince` with fresh tokens even when
    /// `returnSecureToken` is not set.
    public let updateIssuesTokensUnasked: Bool
    /// A user may send `validSince` with their own ID token to end their other sessions.
    public let usersMayRevokeOwnSessions: Bool
    /// A user may link a provider account with `linkProviderUserInfo` (production: admins only).
    public let usersMayLinkProviderUserInfo: Bool
    /// An admin's `mfa.enrollments` must name each enrollment id (production makes missing ones).
    public let adminFactorUpdatesNeedEnrollmentIDs: Bool

    // MARK: New projects

    /// Email-enumeration protection in a new project's settings.
    public let newProjectsProtectEmails: Bool
    /// SMS multi-factor enabled in a new project's settings.
    public let newProjectsEnableMultiFactor: Bool

    // MARK: Project configuration

    /// A v2 config PATCH (`PATCH /v2/projects/{p}/config`) without an `updateMask`, or with an empty one,
    /// replaces the settings the official emulator has: `signIn.allowDuplicateEmails`,
    /// `emailPrivacyConfig.enableImprovedEmailPrivacy` and `blockingFunctions` fall back to their defaults
    /// unless the body sets them (test harnesses reset a project with `PATCH {}`). Every other field is
    /// changed only if present, as in production, where a PATCH without a mask changes exactly the fields present.
    public let configPatchWithoutMaskReplacesEmulatorSettings: Bool

    // MARK: Batch and REST

    /// Action emails are limited per address and per client IP (`TOO_MANY_ATTEMPTS_TRY_LATER` beyond).
    public let limitsEmailSends: Bool
    /// Clients may make only so many accounts an hour (`SignUpLimits`).
    public let limitsSignUps: Bool
    /// Too many wrong passwords lock an account's password sign-in for a while.
    public let throttlesPasswordSignIn: Bool
    /// An imported `passwordHash` of the form `fakeHash:salt=<salt>:password=<password>` (what the official
    /// emulator stores and exports) is kept verbatim and checked as such, without a `hashAlgorithm`, also after a
    /// sign-in (so a seed's hashes export unchanged); so is Flint's own `flintHash:` form
    /// (`PasswordRules.portablePassword`).
    public let acceptsEmulatorFakePasswordHashes: Bool
    /// An import entry naming its provider account by `federatedId` alone is refused with the official
    /// emulator's own sentence (it does not parse federated ids); production says the fields are required.
    public let explainsUnparsedFederatedIDs: Bool
    /// An `Authorization` header of another scheme than `Bearer` is ignored (the request then needs an API
    /// key), as the official emulator does; production refuses it as invalid credentials.
    public let ignoresNonBearerAuthorization: Bool
    /// Secure Token's refresh answer names the project by the official emulator's placeholder project
    /// number (`"12345"`, as Firebase answers with the project's number); production gives the project id.
    public let reportsPlaceholderProjectNumber: Bool
    /// Refreshing a token of a deleted user is `USER_NOT_FOUND` (which makes SDKs sign out), as Firebase
    /// answers; the official emulator says `INVALID_REFRESH_TOKEN`, since the session went with the user.
    public let reportsDeletedUsersOnRefresh: Bool
    /// Phone sign-in works in tenants, as in Identity Platform; the official emulator refuses it there
    /// (`UNSUPPORTED_TENANT_OPERATION`).
    public let signsInPhonesInTenants: Bool
    /// Passkey ceremonies are checked as a WebAuthn relying party checks them (challenge, origin, RP ID, user
    /// verification, signature, counter), and a passkey sign-in asks for an enrolled second factor. The official
    /// emulator takes a credential on its ID alone and signs in without a second factor.
    public let verifiesPasskeys: Bool

    /// Firebase Authentication as deployed.
    public static let production = ModePolicy(
        mode: .production, acceptsAnyAPIKey: false, ownerTokenIsAdmin: false, createsProjectsOnDemand: false,
        usesGoogleIssuers: false, verifiesCustomTokenSignatures: true, makesOutsideCalls: true, servesEmulatorEndpoints: false,
        requiresSignInContinueURL: true, checksContinueURLDomain: true, verifiesApps: true, limitsSMSSends: true,
        verifiesProviderTokens: true, linksVouchedEmailsWithoutConfirmation: false,
        signUpTakesSecondFactors: false, signUpLinkReplacesPassword: false, updateIssuesTokensUnasked: false,
        usersMayRevokeOwnSessions: false, usersMayLinkProviderUserInfo: false, adminFactorUpdatesNeedEnrollmentIDs: false,
        newProjectsProtectEmails: true, newProjectsEnableMultiFactor: false,
        configPatchWithoutMaskReplacesEmulatorSettings: false,
        limitsEmailSends: true, limitsSignUps: true, throttlesPasswordSignIn: true, acceptsEmulatorFakePasswordHashes: false,
        explainsUnparsedFederatedIDs: false, ignoresNonBearerAuthorization: false, reportsPlaceholderProjectNumber: false,
        reportsDeletedUsersOnRefresh: true, signsInPhonesInTenants: true, verifiesPasskeys: true)

    /// The official Firebase Auth emulator's behaviour.
    public static let emulator = ModePolicy(
        mode: .emulator, acceptsAnyAPIKey: true, ownerTokenIsAdmin: true, createsProjectsOnDemand: true,
        usesGoogleIssuers: true, verifiesCustomTokenSignatures: false, makesOutsideCalls: false, servesEmulatorEndpoints: true,
        requiresSignInContinueURL: false, checksContinueURLDomain: false, verifiesApps: false, limitsSMSSends: false,
        verifiesProviderTokens: false, linksVouchedEmailsWithoutConfirmation: true,
        signUpTakesSecondFactors: true, signUpLinkReplacesPassword: true, updateIssuesTokensUnasked: true,
        usersMayRevokeOwnSessions: true, usersMayLinkProviderUserInfo: true, adminFactorUpdatesNeedEnrollmentIDs: true,
        newProjectsProtectEmails: false, newProjectsEnableMultiFactor: true,
        configPatchWithoutMaskReplacesEmulatorSettings: true,
        limitsEmailSends: false, limitsSignUps: false, throttlesPasswordSignIn: false, acceptsEmulatorFakePasswordHashes: true,
        explainsUnparsedFederatedIDs: true, ignoresNonBearerAuthorization: true, reportsPlaceholderProjectNumber: true,
        reportsDeletedUsersOnRefresh: false, signsInPhonesInTenants: false, verifiesPasskeys: false)

    public static func of(emulator: Bool) -> ModePolicy { emulator ? .emulator : .production }
}

extension ModePolicy {
    /// The delivery a mode uses: the configured one, or in a mode that makes no outside calls (the emulator) the log's,
    /// whatever the configuration says; blocking functions are called in every mode, within the configured bounds.
    func deliveryConfiguration(_ configured: DeliveryConfiguration) -> DeliveryConfiguration {
        guard !makesOutsideCalls else { return configured }
        var logged = DeliveryConfiguration()
        logged.limits = configured.limits
        return logged
    }
}
