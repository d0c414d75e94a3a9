import Logging
import ServiceLifecycle

/// Removes what can no longer be used: verification codes and email action codes a day after they
/// expired, expired app credentials, counters of windows long past, usage counts older than
/// `UsageCounters.retentionDays`, refresh tokens of revoked (or, if configured, idle) sessions, and audit events older
/// than their project's retention.
/// Every node runs one; the deletes are idempotent, so running them on several nodes at once is harmless.
/// Each pass also refreshes the `flint_users{project}` gauge, so a scrape never counts accounts itself.
struct Janitor: Service {
    /// Every area: the janitor sweeps them all.
    let store: Store
    /// Each project's audit-trail retention.
    let projects: ProjectDirectory
    let metrics: ServerMetrics
    let clock: any FlintClock
    /// Refresh tokens unused this long are deleted (nil: they live until revoked, as Firebase's do).
    var refreshTokenIdleSeconds: Int64?
    let logger: Logger
    var interval: Duration = .seconds(600)

    init(core: ServerCore) {
        store = core.store
        projects = core.projects
        metrics = core.telemetry.metrics
        clock = core.clock
        refreshTokenIdleSeconds = core.configuration.refreshTokenIdleSeconds
        logger = core.logger
    }

    /// Counters of windows that started more than a day ago are gone from every limit Flint keeps.
    static let counterRetentionSeconds: Int64 = 86_400
    /// Expired phone and email codes stay this long (they hold only hashes), so a client that comes back
    /// late is told `SESSION_EXPIRED` / `EXPIRED_OOB_CODE`, as Firebase tells it, not that the code is invalid.
    static let expiredCodeRetentionMilliseconds: Int64 = 86_400_000

    /// Sweeps every `interval` until the server shuts down; then returns normally (a throw here would make
    /// the service group cancel the HTTP server instead of letting it finish its requests).
    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await sweep()
                } catch {
                    logger.warning("sweep failed", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// One pass; returns how many rows went.
    @discardableResult
    func sweep() async throws -> Int {
        let now = clock.milliseconds
        let codes = try await store.codes.deleteExpiredVerificationCodes(before: now - Self.expiredCodeRetentionMilliseconds)
        let credentials = try await store.codes.deleteExpiredAppCredentials(before: now)
        let actionCodes = try await store.codes.deleteExpiredOobCodes(before: now - Self.expiredCodeRetentionMilliseconds)
        let challenges = try await store.codes.deleteExpiredPasskeyChallenges(before: now)
            + store.codes.deleteExpiredHandles(before: now / 1000)
        let provider = try await store.oauth.deleteExpired(before: now / 1000)
        let counters = try await store.counters.deleteCounters(windowStartedBefore: now / 1000 - Self.counterRetentionSeconds)
        let usage = try await store.usage.deleteUsage(
            before: UsageCounters.day(ofSeconds: now / 1000) - UsageCounters.retentionDays)
        // A token last used a granule before the limit may still be within it: keep it one granule longer.
        let sessions = try await store.sessions.deleteDeadRefreshTokens(idleBefore: refreshTokenIdleSeconds.map {
            now / 1000 - $0 - TokenService.lastUsedGranularity
        }, endedBefore: now / 1000 - SessionStore.endedRetentionSeconds)
        for (projectID, count) in try await store.accounts.userCounts() {
            metrics.gauge("flint_users", dimensions: [("project", projectID)]).record(count)
        }
        // A tenant's events are kept as long as its project's.
        var events = 0
        var cutoffs: [String: Int64] = [:]
        for realm in try await store.audit.realmsWithEvents() {
            let projectID = Realm(key: realm).projectID
            let cutoff: Int64
            if let known = cutoffs[projectID] {
                cutoff = known
            } else {
                let days = try await projects.project(projectID)?.settings.auditTrail?.retentionDays ?? AuditTrailSettings.defaultRetentionDays
                cutoff = now - Int64(days) * 86_400_000
                cutoffs[projectID] = cutoff
            }
            events += try await store.audit.deleteEvents(realm: realm, before: cutoff)
        }
        return codes + credentials + actionCodes + challenges + counters + usage + sessions + provider + events
    }
}
