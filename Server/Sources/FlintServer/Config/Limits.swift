/// Limits on action emails, server-wide: how many a client IP and one address may be sent per hour.
/// Beyond them: `TOO_MANY_ATTEMPTS_TRY_LATER`, nothing sent.
public struct EmailLimits: Sendable, Equatable {
    public var perIPPerHour: Int64 = 100
    public var perAddressPerHour: Int64 = 10

    public init() {}
}

extension EmailLimits {
    /// Reads overrides from `FLINT_EMAIL_PER_IP_PER_HOUR` and `FLINT_EMAIL_PER_ADDRESS_PER_HOUR` (unset or
    /// empty keeps the default).
    public init(environment variables: [String: String]) throws {
        self.init()
        let reader = EnvironmentReader(variables)
        perIPPerHour = try reader.wholeNumber("FLINT_EMAIL_PER_IP_PER_HOUR") ?? perIPPerHour
        perAddressPerHour = try reader.wholeNumber("FLINT_EMAIL_PER_ADDRESS_PER_HOUR") ?? perAddressPerHour
    }
}

extension ServerConfiguration {
    /// `FLINT_REFRESH_TOKEN_IDLE_DAYS` in seconds; nil when unset.
    public static func refreshTokenIdleSeconds(environment variables: [String: String]) throws -> Int64? {
        guard let days = try EnvironmentReader(variables).wholeNumber("FLINT_REFRESH_TOKEN_IDLE_DAYS") else { return nil }
        guard days > 0, days <= 36_500 else {
            throw DeliveryConfigurationError.invalid(setting: "FLINT_REFRESH_TOKEN_IDLE_DAYS", reason: "give 1 to 36500 days")
        }
        return days * 86_400
    }
}

/// The limit on new accounts a client may make (Firebase's: 100 per IP address per hour). Beyond it:
/// `TOO_MANY_ATTEMPTS_TRY_LATER`. Admin-created and imported accounts do not count.
public struct SignUpLimits: Sendable, Equatable {
    public var perIPPerHour: Int64 = 100

    public init() {}

    /// Reads an override from `FLINT_SIGNUPS_PER_IP_PER_HOUR` (unset or empty keeps the default).
    public init(environment variables: [String: String]) throws {
        self.init()
        perIPPerHour = try EnvironmentReader(variables).wholeNumber("FLINT_SIGNUPS_PER_IP_PER_HOUR") ?? perIPPerHour
    }
}
