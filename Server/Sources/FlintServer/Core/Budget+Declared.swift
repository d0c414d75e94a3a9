import FlintWire

/// Every budget the server keeps, declared once. The route table names them beside the endpoints they guard.
extension Budget {
    static let minute: Int64 = 60
    static let hour: Int64 = 3600

    /// Password tries per address and client; the right password gives them back. Known and unknown addresses
    /// lock out alike, and the owner signing in from elsewhere is not locked out by a stranger's guesses.
    static let passwordTries = Budget(
        name: "password-failures", per: "address and client", windowSeconds: 15 * minute, limit: .fixed(10),
        refusal: FlintError(
            .tooManyAttempts, "Access to this account has been temporarily disabled due to many failed login attempts."),
        enforced: { $0.throttlesPasswordSignIn })

    /// TOTP code tries per factor (or enrollment session); the right code gives them back, so six digits cannot be
    /// guessed. Kept in both modes.
    static let totpTries = Budget(
        name: "totp-failures", per: "factor or enrollment session", windowSeconds: 5 * minute, limit: .fixed(5),
        refusal: FlintError(.tooManyAttempts), enforced: { _ in true })

    /// New accounts per client (Firebase's: 100 per IP address per hour). Admin-created and imported accounts do not count.
    static let signUpsPerClient = Budget(
        name: "signup:ip-hour", per: "client", windowSeconds: hour, limit: .configured { $0.signUpLimits.perIPPerHour },
        refusal: FlintError(.tooManyAttempts, "Too many accounts created from this address; try again later."),
        enforced: { $0.limitsSignUps })

    /// SMS codes per client a minute, fictional numbers' too (so their codes cannot be asked for, and guessed, without bound).
    static let smsPerClientMinute = Budget(
        name: "sms:ip-minute", per: "client", windowSeconds: minute, limit: .configured { $0.phoneLimits.perIPPerMinute },
        refusal: smsPerClientRefusal, enforced: { $0.limitsSMSSends })

    /// SMS codes per client an hour, fictional numbers' too.
    static let smsPerClientHour = Budget(
        name: "sms:ip-hour", per: "client", windowSeconds: hour, limit: .configured { $0.phoneLimits.perIPPerHour },
        refusal: smsPerClientRefusal, enforced: { $0.limitsSMSSends })

    private static let smsPerClientRefusal = FlintError(.tooManyAttempts, "Too many codes requested from this address.")

    /// SMS codes to one number an hour.
    static let smsPerNumber = Budget(
        name: "sms:number", per: "phone number", windowSeconds: hour, limit: .configured { $0.phoneLimits.perNumberPerHour },
        refusal: FlintError(.tooManyAttempts, "Too many codes sent to this number."), enforced: { $0.limitsSMSSends })

    /// Code sessions per fictional number an hour, from all clients together: its code never changes, so without this
    /// many clients could share out guesses at it (each session has its own tries).
    static let testNumberSessions = Budget(
        name: "sms:test-number-hour", per: "fictional number", windowSeconds: hour,
        limit: .configured { $0.phoneLimits.sessionsPerTestNumberPerHour },
        refusal: FlintError(.tooManyAttempts, "Too many codes requested for this fictional number."), enforced: { $0.limitsSMSSends })

    /// SMS codes a day to the regions one calling code serves (+1: all of NANP at once), where the project sets a cap.
    static let smsPerRegion = Budget(
        name: "sms:region-day", per: "calling-code region", windowSeconds: 24 * hour, limit: .projectSetting,
        refusal: FlintError(.quotaExceeded, "The project's daily SMS cap for this region is used up."),
        enforced: { $0.limitsSMSSends })

    /// SMS codes per project a minute; asked last, so a send the client's or number's budgets refuse takes none of it.
    static let smsPerProject = Budget(
        name: "sms:project", per: "project", windowSeconds: minute, limit: .configured { $0.phoneLimits.perProjectPerMinute },
        refusal: FlintError(.quotaExceeded, "The project's SMS quota is used up; try again in a minute."),
        enforced: { $0.limitsSMSSends })

    /// Action emails per client an hour.
    static let emailsPerClient = Budget(
        name: "email:ip-hour", per: "client", windowSeconds: hour, limit: .configured { $0.emailLimits.perIPPerHour },
        refusal: FlintError(.tooManyAttempts, "Too many emails requested from this address."), enforced: { $0.limitsEmailSends })

    /// Action emails to one address an hour.
    static let emailsPerAddress = Budget(
        name: "email:address-hour", per: "address", windowSeconds: hour, limit: .configured { $0.emailLimits.perAddressPerHour },
        refusal: FlintError(.tooManyAttempts, "Too many emails sent to this address."), enforced: { $0.limitsEmailSends })

    /// Passkey sign-in challenges per client a minute: each is a stored row, asked for without credentials.
    static let passkeyChallengesPerClient = Budget(
        name: "passkey:ip-minute", per: "client", windowSeconds: minute, limit: .fixed(60),
        refusal: FlintError(.tooManyAttempts, "Too many passkey sign-ins started from this address."),
        enforced: { $0.verifiesPasskeys })

    /// Authorization requests of the OpenID provider per address a minute: each may keep a pending authorization.
    static let oauthAuthorizationsPerAddress = Budget(
        name: "oauth:authorize-ip-minute", per: "address", windowSeconds: minute, limit: .fixed(120),
        refusal: FlintError(.tooManyAttempts, "Too many sign-ins started from this address."), enforced: { _ in true })

    /// Authorization requests per client a minute, from all addresses together.
    static let oauthAuthorizationsPerClient = Budget(
        name: "oauth:authorize-client-minute", per: "OAuth client", windowSeconds: minute, limit: .fixed(6000),
        refusal: FlintError(.tooManyAttempts, "Too many sign-ins started for this application."), enforced: { _ in true })

    /// Token, revocation and introspection calls per address a minute.
    static let oauthTokenRequestsPerAddress = Budget(
        name: "oauth:token-ip-minute", per: "address", windowSeconds: minute, limit: .fixed(6000),
        refusal: FlintError(.tooManyAttempts, "Too many token requests from this address."), enforced: { _ in true })

    /// Token requests per client a minute.
    static let oauthTokenRequestsPerClient = Budget(
        name: "oauth:token-client-minute", per: "OAuth client", windowSeconds: minute, limit: .fixed(60_000),
        refusal: FlintError(.tooManyAttempts, "Too many token requests for this application."), enforced: { _ in true })

    /// Failed client authentications per client and address: a client's secret cannot be guessed.
    static let oauthClientAuthenticationFailures = Budget(
        name: "oauth:client-auth-failures", per: "OAuth client and address", windowSeconds: 15 * minute, limit: .fixed(20),
        refusal: FlintError(.tooManyAttempts, "Too many failed client authentications."), enforced: { _ in true })

    /// User codes typed on the device page per address a minute: a code (34 bits, 10 minutes) cannot be guessed.
    static let oauthDeviceCodeAttempts = Budget(
        name: "oauth:device-code-ip-minute", per: "address", windowSeconds: minute, limit: .fixed(20),
        refusal: FlintError(.tooManyAttempts, "Too many device codes tried from this address."), enforced: { _ in true })

    /// Clients registering themselves (RFC 7591) per address an hour.
    static let oauthRegistrationsPerAddress = Budget(
        name: "oauth:register-ip-hour", per: "address", windowSeconds: 60 * minute, limit: .fixed(20),
        refusal: FlintError(.tooManyAttempts, "Too many clients registered from this address."), enforced: { _ in true })

    /// Every budget that guards an SMS send, in the order they are spent.
    /// (A fictional number's code is sent to no one but is held to the client's budgets and its own.)
    static let smsSends: [Budget] = [smsPerClientMinute, smsPerClientHour, testNumberSessions, smsPerNumber, smsPerRegion, smsPerProject]

    /// Every declared budget.
    static let all: [Budget] = [passwordTries, totpTries, signUpsPerClient] + smsSends + [emailsPerClient, emailsPerAddress, passkeyChallengesPerClient]
        + [oauthAuthorizationsPerAddress, oauthAuthorizationsPerClient, oauthTokenRequestsPerAddress, oauthTokenRequestsPerClient,
           oauthClientAuthenticationFailures, oauthDeviceCodeAttempts, oauthRegistrationsPerAddress]
}
