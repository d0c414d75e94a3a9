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
        for (name, keyPath) in [("FLINT_EMAIL_PER_IP_PER_HOUR", \EmailLimits.perIPPerHour),
                                ("FLINT_EMAIL_PER_ADDRESS_PER_HOUR", \EmailLimits.perAddressPerHour)] {
            guard let text = variables[name], !text.isEmpty else { continue }
            guard let number = Int64(text), number >= 0 else {
                throw DeliveryConfigurationError.invalid(setting: name, reason: "\"\(text)\" is not a whole number ≥ 0")
            }
            self[keyPath: keyPath] = number
        }
    }
}
