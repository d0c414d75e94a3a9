import Foundation

/// Opaque tokens that carry a `Payload`, sealed with the master key (so they cannot be forged, read, or
/// moved to another purpose), expiring, and good for one use across every node: a use is counted in
/// the shared store. Phone temporary proofs and federated pending credentials are made this way.
struct SingleUseTokens<Payload: Codable & Sendable>: Sendable {
    let secrets: SecretBox
    let counters: CounterStore
    let clock: any FlintClock
    let random: any RandomSource
    /// Bound into the seal: a token of one purpose does not open as another.
    let purpose: String
    let lifetimeSeconds: Int64

    private struct Content: Codable {
        var id: String
        var expiresAt: Int64
        var payload: Payload
    }

    /// A token that opened, not yet used.
    struct Opened: Sendable {
        fileprivate let id: String
        let expiresAt: Int64
        let payload: Payload
    }

    func make(_ payload: Payload) throws -> String {
        try secrets.sealToken(
            Content(id: random.token(byteCount: 16), expiresAt: clock.seconds + lifetimeSeconds, payload: payload),
            context: purpose)
    }

    /// The token's content, or nil when it is not a token of this purpose. Expiry is the caller's to check
    /// (`isLive`), so each can answer with its own error.
    func open(_ token: String) -> Opened? {
        guard let content = secrets.openToken(token, as: Content.self, context: purpose) else { return nil }
        return Opened(id: content.id, expiresAt: content.expiresAt, payload: content.payload)
    }

    /// Whether `opened` has not expired yet.
    func isLive(_ opened: Opened) -> Bool { opened.expiresAt > clock.seconds }

    /// Whether the token was used up already (here or on another node). A check before work that must not
    /// start with a spent token; `redeem` is still the one atomic use.
    func isSpent(_ opened: Opened) async throws -> Bool {
        try await counters.counter(marker(opened), windowStart: opened.expiresAt) > 0
    }

    /// Uses the token up; returns false when it had been used already (here or on another node).
    func redeem(_ opened: Opened) async throws -> Bool {
        // Kept until the expiry, so a sweep of old windows removes it once it is useless.
        try await counters.claimOnce(marker(opened), keepUntil: opened.expiresAt)
    }

    private func marker(_ opened: Opened) -> String { "\(purpose):\(opened.id)" }
}
