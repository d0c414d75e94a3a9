import Logging

/// Counts what the console's usage page shows, per project and UTC day, in the shared store (so every
/// node adds to the same numbers). Counting never fails the operation it counts: an error is logged.
public struct UsageCounters: Sendable {
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

    /// Days of counts kept; the janitor deletes older ones.
    static let retentionDays: Int64 = 400

    let store: Store
    let clock: any FlintClock
    let logger: Logger

    static func day(ofSeconds seconds: Int64) -> Int64 { seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400 }

    func record(_ metric: Metric, projectID: String) async {
        do {
            try await store.incrementUsage(projectID: projectID, day: Self.day(ofSeconds: clock.seconds), metric: metric.rawValue)
        } catch {
            logger.warning("usage count failed", metadata: ["metric": "\(metric.rawValue)", "error": "\(error)"])
        }
    }

    /// The last `days` days, today first, days without counts included (as zeros).
    public func daily(projectID: String, days: Int64 = 30) async throws -> [Day] {
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
