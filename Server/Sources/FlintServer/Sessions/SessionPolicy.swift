import FlintWire
import Foundation

/// When a realm's sessions end by themselves (the v2 config's `sessionPolicy`; a tenant's own, else its project's):
/// after going unused for `idleTimeoutSeconds`, or `maximumLifetimeSeconds` after their sign-in. Firebase's default is
/// neither, and so is Flint's. An ended session's refresh token is refused and it leaves the user's list.
public struct SessionPolicy: Codable, Sendable, Equatable {
    public var idleTimeoutSeconds: Int64?
    public var maximumLifetimeSeconds: Int64?

    /// The shortest idle time: a session's last use is written down to the hour (`TokenService.lastUsedGranularity`).
    static let minimumIdleTimeout: Int64 = 3600

    public init(idleTimeoutSeconds: Int64? = nil, maximumLifetimeSeconds: Int64? = nil) {
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.maximumLifetimeSeconds = maximumLifetimeSeconds
    }

    /// Whether the policy has ended `session` by `now`. Its last use is known to the hour, so an idle session ends
    /// up to an hour after its time.
    func hasEnded(_ session: RefreshTokenRecord, now: Int64) -> Bool {
        if let lifetime = maximumLifetimeSeconds, now - session.createdAt > lifetime { return true }
        if let idle = idleTimeoutSeconds, now - session.lastUsedAt > idle + TokenService.lastUsedGranularity { return true }
        return false
    }

    /// Of `sessions`, those the policy has not ended by `now`.
    func live(_ sessions: [RefreshTokenRecord], now: Int64) -> [RefreshTokenRecord] {
        sessions.filter { !hasEnded($0, now: now) }
    }

    /// The policy an admin sends, checked; nil (or neither limit) clears it.
    static func validated(_ config: ProjectConfig.SessionPolicyConfig?) throws -> SessionPolicy? {
        guard let config, config.idleTimeoutSeconds != nil || config.maximumLifetimeSeconds != nil else { return nil }
        if let idle = config.idleTimeoutSeconds, idle < minimumIdleTimeout {
            throw FlintError(.invalidArgument, "sessionPolicy.idleTimeoutSeconds must be at least \(minimumIdleTimeout).")
        }
        if let lifetime = config.maximumLifetimeSeconds, lifetime < 300 {
            throw FlintError(.invalidArgument, "sessionPolicy.maximumLifetimeSeconds must be at least 300.")
        }
        return SessionPolicy(idleTimeoutSeconds: config.idleTimeoutSeconds, maximumLifetimeSeconds: config.maximumLifetimeSeconds)
    }

    /// `current` after a PATCH that sends `change`: the limits `mask` names (`sessionPolicy`, or one of its fields, as
    /// FlintAdmin's tenant updates name them) taken from `change`, the other kept; checked as `validated`.
    static func updated(_ current: SessionPolicy?, with change: ProjectConfig.SessionPolicyConfig?, mask: UpdateMask) throws
        -> SessionPolicy? {
        let idle = mask.covers("sessionPolicy.idleTimeoutSeconds"), lifetime = mask.covers("sessionPolicy.maximumLifetimeSeconds")
        guard idle || lifetime else { return current }
        var policy = current?.shown ?? ProjectConfig.SessionPolicyConfig()
        if idle { policy.idleTimeoutSeconds = change?.idleTimeoutSeconds }
        if lifetime { policy.maximumLifetimeSeconds = change?.maximumLifetimeSeconds }
        return try validated(policy)
    }

    /// As the v2 config shows it.
    var shown: ProjectConfig.SessionPolicyConfig {
        ProjectConfig.SessionPolicyConfig(idleTimeoutSeconds: idleTimeoutSeconds, maximumLifetimeSeconds: maximumLifetimeSeconds)
    }
}
