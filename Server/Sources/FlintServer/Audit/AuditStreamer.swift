import FlintWire
import Foundation
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle

/// Streams each project's audit trail, its tenants' events included, in event order: to its webhook
/// (`auditTrail.webhookUrl`) and, with `auditTrail.logEvents`, to the server log as JSON lines.
///
/// - The events table is the outbox. Each stream keeps the last event it delivered (`AuditStore.streamCursor`): the
///   webhook's under the project's ID, the log's under `log:<project>`. Each pass reads the next events after the
///   cursor and moves it only once they are delivered (the webhook answered 2xx), one node at a time
///   (`AuditStore.deliver`): delivery is at least once and in event order, so in order per realm. A receiver drops
///   repeats by `eventId`.
/// - A webhook batch is `{"events": [AuditEvent...]}`, signed as Flint's other webhooks are (`WebhookSignature`, with
///   the project's sealed secret), with `Idempotency-Key: <first eventId>-<last eventId>`. A failed stream keeps its
///   cursor and is tried again after 2, 4, … up to `maximumBackoffPasses` passes.
/// - Log lines go to the logger `flint.audit` (the server's handler), one event's wire JSON per line at notice level,
///   written by whichever node delivers the project, and as durable as the webhook (a shared cursor): a line is
///   repeated only if a node stops between writing it and moving the cursor.
struct AuditStreamer: Service {
    let audit: AuditStore
    let settings: SettingsStore
    let projects: ProjectDirectory
    let secrets: SecretBox
    let http: OutsideHTTP
    let clock: any FlintClock
    let logger: Logger
    /// The log lines' logger: the server's handler under the label `flint.audit`.
    let eventLog: Logger
    /// Whether event IDs can become visible out of order: on PostgreSQL, whose concurrent transactions take their IDs
    /// before they commit (`rowLockClause` is set where transactions do not exclude each other). SQLite's writers
    /// exclude each other, so its IDs become visible in order.
    let idsCommitOutOfOrder: Bool
    var interval: Duration = .seconds(1)
    private let progress = Progress()

    /// Events per webhook request.
    static let batchSize = 100
    /// Batches a stream moves in one pass at most, so a long backlog does not hold the other projects' streams.
    static let batchesPerPass = 10
    /// The longest back-off of a failing stream, in passes.
    static let maximumBackoffPasses = 64
    /// How long a gap in the IDs may be an uncommitted transaction's event (see `inOrder`), in milliseconds.
    static let gapWait: Int64 = 10_000

    init(core: ServerCore, http: OutsideHTTP) {
        audit = core.store.audit
        settings = core.store.settings
        projects = core.projects
        secrets = core.secrets
        self.http = http
        clock = core.clock
        logger = core.logger
        eventLog = Logger(label: "flint.audit") { [handler = core.logger.handler] _ in handler }
        idsCommitOutOfOrder = core.store.database.rowLockClause != nil
    }

    /// Passes every `interval` until the server shuts down, then returns normally (as `Janitor.run`).
    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await pass()
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// One pass over every project: each of its streams that is not backing off moves as far as it can. Passes run
    /// one at a time.
    func pass() async {
        await progress.passes.withLock {
            do {
                let settled = idsCommitOutOfOrder
                    ? progress.settle(newest: try await audit.latestEventID(), now: clock.milliseconds, wait: Self.gapWait) : nil
                for projectID in try await settings.projectIDs() {
                    for stream in try await streams(of: projectID) where progress.isDue(stream.key) {
                        await drain(stream, settled: settled)
                    }
                }
            } catch {
                logger.warning("An audit stream pass failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Where a project's events go.
    private enum Destination: Sendable {
        case webhook(url: String, sealedSecret: String)
        case log
    }

    private struct Stream: Sendable {
        var projectID: String
        var destination: Destination

        /// Its cursor's key in `audit_streams`.
        var key: String {
            if case .log = destination { return "log:\(projectID)" }
            return projectID
        }
    }

    /// The body of a webhook request.
    private struct Batch: Encodable {
        var events: [AuditEvent]
    }

    private func streams(of projectID: String) async throws -> [Stream] {
        guard let trail = try await projects.project(projectID)?.settings.auditTrail else { return [] }
        var streams: [Stream] = []
        if let url = trail.webhookURL, let sealed = trail.sealedWebhookSecret {
            streams.append(Stream(projectID: projectID, destination: .webhook(url: url, sealedSecret: sealed)))
        }
        if trail.logEvents { streams.append(Stream(projectID: projectID, destination: .log)) }
        return streams
    }

    /// Moves `stream` by up to `batchesPerPass` batches; a failure leaves its cursor where it is and backs it off.
    private func drain(_ stream: Stream, settled: Int64?) async {
        do {
            for _ in 0..<Self.batchesPerPass {
                let cursor = try await audit.streamCursor(stream.key)
                let batch = try await inOrder(
                    audit.events(ofProject: stream.projectID, after: cursor, limit: Self.batchSize), after: cursor, settled: settled)
                guard let last = batch.last,
                      try await audit.deliver(stream.key, from: cursor, through: last.id, { try await send(batch, to: stream) }),
                      batch.count == Self.batchSize
                else { break }
            }
            progress.succeeded(stream.key)
        } catch {
            logger.warning("An audit stream failed", metadata: [
                "stream": "\(stream.key)", "error": "\(error)", "retryAfterPasses": "\(progress.failed(stream.key))",
            ])
        }
    }

    private func send(_ batch: [StoredAuditEvent], to stream: Stream) async throws {
        let events = batch.map(AuditRoutes.wire)
        switch stream.destination {
        case .webhook(let url, let sealedSecret):
            let secret = try secrets.open(sealedSecret, context: AuditTrailSettings.webhookSecretContext)
            try await http.postSigned(
                Batch(events: events), to: url, secret: String(decoding: secret, as: UTF8.self), timestamp: clock.seconds,
                headers: [("Idempotency-Key", "\(events[0].eventId)-\(events[events.count - 1].eventId)")],
                service: .auditWebhook)
        case .log:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            for event in events {
                let line = String(decoding: try encoder.encode(event), as: UTF8.self)
                eventLog.notice("\(line)")
            }
        }
    }

    /// The events of `batch` that can go now, in order: all of them where IDs become visible in order. On PostgreSQL a
    /// transaction takes its event's ID before it commits, so a lower ID can appear after a higher one: the batch stops
    /// at the first ID missing after the cursor (in every realm's sequence, not only the project's) unless it is at or
    /// below `settled`, the newest ID seen `gapWait` ago. An ID below that one was taken before it, so a transaction
    /// still missing it has run for `gapWait`: it was rolled back (its ID is never used) or deleted by retention,
    /// and the stream passes it. A rolled-back event thus holds the streams for one to two `gapWait`s; an event whose
    /// transaction commits later than `gapWait` after taking its ID is in the trail but not streamed.
    private func inOrder(_ batch: [StoredAuditEvent], after cursor: Int64, settled: Int64?) async throws -> [StoredAuditEvent] {
        guard let settled, let last = batch.last, last.id > max(cursor, settled) else { return batch }
        let checkedFrom = max(cursor, settled)
        var next = checkedFrom + 1
        for id in try await audit.eventIDs(after: checkedFrom, through: last.id) {
            guard id == next else { break }
            next += 1
        }
        return batch.filter { $0.id < next }
    }
}

/// What a node's streamer keeps between passes: the settled ID horizon (`AuditStreamer.inOrder`) and each failing
/// stream's back-off.
private final class Progress: Sendable {
    let passes = AsyncLock()
    private let state = NIOLockedValueBox(State())

    private struct State {
        var settled: Int64 = 0
        /// The newest ID, and when it was seen: settled once `gapWait` has passed.
        var sample: (id: Int64, seenAt: Int64)?
        var backoffs: [String: Backoff] = [:]
    }

    private struct Backoff {
        var failures = 0
        var passesLeft = 0
    }

    /// The horizon, now that `newest` is the newest ID at `now`.
    func settle(newest: Int64, now: Int64, wait: Int64) -> Int64 {
        state.withLockedValue { state in
            if let sample = state.sample, now - sample.seenAt >= wait {
                state.settled = max(state.settled, sample.id)
                state.sample = nil
            }
            if state.sample == nil { state.sample = (newest, now) }
            return state.settled
        }
    }

    /// Whether the stream of `key` is tried in this pass (counts down its back-off).
    func isDue(_ key: String) -> Bool {
        state.withLockedValue { state in
            guard let left = state.backoffs[key]?.passesLeft, left > 0 else { return true }
            state.backoffs[key]?.passesLeft = left - 1
            return false
        }
    }

    /// Backs the stream of `key` off; returns for how many passes.
    func failed(_ key: String) -> Int {
        state.withLockedValue { state in
            var backoff = state.backoffs[key] ?? Backoff()
            backoff.failures += 1
            backoff.passesLeft = min(1 << min(backoff.failures, 16), AuditStreamer.maximumBackoffPasses)
            state.backoffs[key] = backoff
            return backoff.passesLeft
        }
    }

    func succeeded(_ key: String) {
        state.withLockedValue { _ = $0.backoffs.removeValue(forKey: key) }
    }
}
