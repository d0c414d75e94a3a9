import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// Counts what the console's usage page shows, per project and UTC day, in the shared store.
///
/// Counting never slows or fails the operation it counts: `record` only adds to this node's tally in
/// memory, and the tally is added to the store every `flushInterval` (and when the server stops, and
/// before the counts are read). So a sign-in costs no extra write, and many nodes do not all update the
/// same row of the store on every sign-in. A crash loses at most one interval's counts, which is fine for
/// statistics; a failed flush keeps its counts for the next one.
public final class UsageCounters: Service, Sendable {
    /// What is counted.
    public enum Metric: String, CaseIterable, Sendable {
        /// A session started: a sign-in, sign-up or re-authentication that issued a refresh token.
        case signIns = "sign_ins"
        /// A verification SMS handed to the SMS provider.
        case smsSent = "sms_sent"
        /// An action email (sign-in link, reset, verification) handed to the mail relay.
        case emailsSent = "emails_sent"
    }

    /// One day's counts.
    public struct Day: Sendable, Equatable {
        /// UTC epoch day (days since 1970-01-01).
        public var day: Int64
        public var counts: [Metric: Int64]
    }

    private struct Key: Hashable {
        var projectID: String
        var day: Int64
        var metric: Metric
    }

    /// Days of counts kept; the janitor deletes older ones.
    static let retentionDays: Int64 = 400

    private let store: Store
    /// The same events as Prometheus counters (`flint_sign_ins_total{provider}`, `flint_sms_sent_total`,
    /// `flint_emails_sent_total`), for the management listener's `/metrics`.
    private let metrics: ServerMetrics
    private let clock: any FlintClock
    private let logger: Logger
    private let flushInterval: Duration
    private let tally = NIOLockedValueBox([Key: Int64]())

    init(store: Store, clock: any FlintClock, metrics: ServerMetrics, logger: Logger, flushInterval: Duration = .seconds(10)) {
        self.store = store
        self.metrics = metrics
        self.clock = clock
        self.logger = logger
        self.flushInterval = flushInterval
    }

    static func day(ofSeconds seconds: Int64) -> Int64 { seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400 }

    /// Adds one to this node's tally, and to the Prometheus counter of `metric` (by `provider`, for sign-ins).
    func record(_ metric: Metric, projectID: String, provider: String? = nil) {
        metrics.increment("flint_\(metric.rawValue)_total", dimensions: provider.map { [("provider", $0)] } ?? [])
        let key = Key(projectID: projectID, day: Self.day(ofSeconds: clock.seconds), metric: metric)
        tally.withLockedValue { $0[key, default: 0] += 1 }
    }

    /// Adds this node's tally to the store.
    public func flush() async {
        let taken = tally.withLockedValue { tally in
            defer { tally = [:] }
            return tally
        }
        for (key, count) in taken {
            do {
                try await store.addUsage(projectID: key.projectID, day: key.day, metric: key.metric.rawValue, count: count)
            } catch {
                logger.warning("usage counts not saved yet", metadata: ["metric": "\(key.metric.rawValue)", "error": "\(error)"])
                tally.withLockedValue { $0[key, default: 0] += count }
            }
        }
    }

    /// Flushes every `flushInterval` while the server runs, and once more when it stops.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: self.flushInterval)
                await self.flush()
            }
        }
        await flush()
    }

    /// The last `days` days, today first, days without counts included (as zeros). Every node's counts
    /// up to its last flush, and this node's up to now.
    public func daily(projectID: String, days: Int64 = 30) async throws -> [Day] {
        await flush()
        let today = Self.day(ofSeconds: clock.seconds)
        let first = today - days + 1
        var byDay: [Int64: [Metric: Int64]] = [:]
        for row in try await store.usage(projectID: projectID, fromDay: first) {
            guard let metric = Metric(rawValue: row.metric) else { continue }
            byDay[row.day, default: [:]][metric] = row.count
        }
        return stride(from: today, through: first, by: -1).map { Day(day: $0, counts: byDay[$0] ?? [:]) }
    }
}
