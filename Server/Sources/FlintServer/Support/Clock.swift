import Foundation

/// The time source of the server. Injected so that expiry can be tested without sleeping.
public protocol FlintClock: Sendable {
    func now() -> Date
}

extension FlintClock {
    /// Epoch seconds.
    public var seconds: Int64 { Int64(now().timeIntervalSince1970) }
    /// Epoch milliseconds.
    public var milliseconds: Int64 { Int64((now().timeIntervalSince1970 * 1000).rounded(.down)) }
}

public struct SystemClock: FlintClock {
    public init() {}
    public func now() -> Date { Date() }
}
