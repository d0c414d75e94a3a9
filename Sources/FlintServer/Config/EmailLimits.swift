/// Limits on action emails, server-wide: how many a client IP and one address may be sent per hour.
/// Beyond them: `TOO_MANY_ATTEMPTS_TRY_LATER`, nothing sent.
public struct EmailLimits: Sendable, Equatable {
    public var perIPPerHour: Int64 = 100
    public var perAddressPerHour: Int64 = 10

    public init() {}
}
