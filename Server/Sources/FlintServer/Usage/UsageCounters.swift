import Logging
import Metrics
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
        /// A session started: a sign-in, sign-up or re-authentication that issued a refresh token; by provider.
        case signIns = "sign_ins"
        /// A verification SMS handed to the SMS provider.
        case smsSent = "sms_sent"
        /// A verification SMS not sent because a defence refused it; by `Refusal`.
        case smsRefused = "sms_refused"
        /// A verification SMS the SMS provider did not take.
        case smsFailed = "sms_failed"
        /// An action email (sign-in link, reset, verification) handed to the mail relay.
        case emailsSent = "emails_sent"
        /// An action email not sent because a limit refused it; by `Refusal`.
        case emailsRefused = "emails_refused"
        /// An action email the mail relay did not take, after every retry.
        case emailsFailed = "emails_failed"
        /// An error answer the project's clients got; by error code (`INVALID_CODE`).
        case errors = "errors"
    }

    /// Why an SMS or email was not sent: a label of `smsRefused`, `emailsRefused` and their Prometheus counters.
    public enum Refusal: String, CaseIterable, Sendable {
        /// A per-client, per-number, per-address or per-project limit (`TOO_MANY_ATTEMPTS_TRY_LATER`, `QUOTA_EXCEEDED`).
        case rateLimit = "rate_limit"
        /// The project's SMS region policy, or its denied number prefixes.
        case regionPolicy = "region_policy"
        /// The app check: APNs receipt, reCAPTCHA-style token or proof of work.
        case captcha = "captcha"
    }

    /// A counted series: a metric and, for the metrics that have one, its label (provider, refusal, error code).
    /// Stored as `metric` or `metric:label`, so the store's table needs no column per label.
    public struct Series: Hashable, Sendable {
        public var metric: Metric
        /// Empty for metrics without a label (and for sign-ins counted before they had one).
        public var label: String

        public init(_ metric: Metric, label: String = "") {
            self.metric = metric
            self.label = label
        }

        init?(storedName: String) {
            let parts = storedName.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let metric = Metric(rawValue: String(parts[0])) else { return nil }
            self.init(metric, label: parts.count > 1 ? String(parts[1]) : "")
        }

        var storedName: String { label.isEmpty ? metric.rawValue : "\(metric.rawValue):\(label)" }
    }

    /// One day's counts.
    public struct Day: Sendable, Equatable {
        /// UTC epoch day (days since 1970-01-01).
        public var day: Int64
        public var counts: [Series: Int64]

        /// The day's count of `metric`, all labels together.
        public func total(_ metric: Metric) -> Int64 {
            counts.reduce(0) { $0 + ($1.key.metric == metric ? $1.value : 0) }
        }

        /// The day's counts of `metric` by label.
        public func byLabel(_ metric: Metric) -> [String: Int64] {
            counts.reduce(into: [:]) { if $1.key.metric == metric { $0[$1.key.label, default: 0] += $1.value } }
        }
    }

    private struct Key: Hashable {
        var projectID: String
        var day: Int64
        var series: Series
    }

    /// Days of counts kept; the janitor deletes older ones.
    static let retentionDays: Int64 = 400

    private let store: UsageStore
    /// The same events as Prometheus counters, for the management listener's `/metrics`; they carry what the
    /// daily counts leave out (the SMS and mail provider), and no project.
    private let metrics: ServerMetrics
    private let clock: any FlintClock
    private let logger: Logger
    private let flushInterval: Duration
    private let tally = NIOLockedValueBox([Key: Int64]())
    /// Found once: refreshing and verifying are the hottest paths there are.
    private let refreshes: Metrics.Counter
    private let validIDTokens: Metrics.Counter

    init(core: ServerCore, flushInterval: Duration = .seconds(10)) {
        store = core.store.usage
        metrics = core.telemetry.metrics
        clock = core.clock
        logger = core.logger
        self.flushInterval = flushInterval
        refreshes = metrics.counter("flint_token_refreshes_total")
        validIDTokens = metrics.counter("flint_id_token_verifications_total", dimensions: [("outcome", "valid")])
    }

    static func day(ofSeconds seconds: Int64) -> Int64 { seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400 }

    // MARK: Events

    /// A session started with `provider` (the ID token's `sign_in_provider`); `newAccount` when the sign-in
    /// made the account (a sign-up, also counted in `flint_sign_ups_total`).
    func sessionStarted(projectID: String, provider: String, newAccount: Bool) {
        metrics.increment("flint_sign_ins_total", dimensions: [("provider", provider)])
        if newAccount { metrics.increment("flint_sign_ups_total", dimensions: [("provider", provider)]) }
        add(Series(.signIns, label: provider), projectID: projectID)
    }

    /// What became of a verification SMS or an action email.
    enum Delivery {
        /// Handed to the provider.
        case sent
        /// The provider did not take it (for an email: after every retry).
        case failed
        /// A defence stopped it before it reached the provider.
        case refused(Refusal)
    }

    /// The kind of message a `Delivery` is about.
    enum Channel {
        case sms, email
    }

    /// Counts `delivery` of a message of `channel` through `provider`: `flint_sms_total` or `flint_emails_total`
    /// by provider, outcome and reason (one label set for every outcome: Prometheus wants the same names on each),
    /// and the dashboard's daily series.
    func count(_ delivery: Delivery, _ channel: Channel, projectID: String, provider: String) {
        let (outcome, metric, reason): (String, Metric, Refusal?) = switch (delivery, channel) {
        case (.sent, .sms): ("sent", .smsSent, nil)
        case (.failed, .sms): ("failed", .smsFailed, nil)
        case (.refused(let reason), .sms): ("refused", .smsRefused, reason)
        case (.sent, .email): ("sent", .emailsSent, nil)
        case (.failed, .email): ("failed", .emailsFailed, nil)
        case (.refused(let reason), .email): ("refused", .emailsRefused, reason)
        }
        metrics.increment(channel == .sms ? "flint_sms_total" : "flint_emails_total", dimensions: [
            ("provider", provider), ("outcome", outcome), ("reason", reason?.rawValue ?? "none"),
        ])
        add(Series(metric, label: reason?.rawValue ?? ""), projectID: projectID)
    }

    /// Runs `defence`; a refusal it throws (a client error, not a failing store) is counted as a message of
    /// `channel` refused for `reason`, then thrown on.
    func countingRefusal(_ reason: Refusal, of channel: Channel, projectID: String, provider: String,
                         _ defence: () async throws -> Void) async throws {
        do {
            try await defence()
        } catch let error as FlintError where error.isClientError {
            count(.refused(reason), channel, projectID: projectID, provider: provider)
            throw error
        }
    }

    /// An error answer with `code` from `route` (a template: `/v1/accounts:signInWithPassword`), counted for
    /// `projectID` when the request got as far as naming an existing project. By route and code, Prometheus
    /// shows how each sign-in method fails (`INVALID_PASSWORD` on `signInWithPassword`).
    func errorAnswered(code: String, route: String, projectID: String?) {
        metrics.increment("flint_errors_total", dimensions: [("route", route), ("code", code)])
        if let projectID { add(Series(.errors, label: code), projectID: projectID) }
    }

    /// An ID token exchanged for a fresh one with a refresh token (Prometheus only: `flint_token_refreshes_total`).
    func tokenRefreshed() { refreshes.increment() }

    /// An ID token checked and found valid (Prometheus only).
    func idTokenVerified() { validIDTokens.increment() }

    /// An ID token refused with the error `code` (Prometheus only).
    func idTokenRefused(code: String) {
        metrics.increment("flint_id_token_verifications_total", dimensions: [("outcome", code)])
    }

    /// Adds one to this node's tally.
    private func add(_ series: Series, projectID: String) {
        let key = Key(projectID: projectID, day: Self.day(ofSeconds: clock.seconds), series: series)
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
                try await store.addUsage(projectID: key.projectID, day: key.day, metric: key.series.storedName, count: count)
            } catch {
                logger.warning("usage counts not saved yet", metadata: ["metric": "\(key.series.storedName)", "error": "\(error)"])
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
        var byDay: [Int64: [Series: Int64]] = [:]
        for row in try await store.usage(projectID: projectID, fromDay: first) {
            guard let series = Series(storedName: row.metric) else { continue }
            byDay[row.day, default: [:]][series] = row.count
        }
        return stride(from: today, through: first, by: -1).map { Day(day: $0, counts: byDay[$0] ?? [:]) }
    }
}
