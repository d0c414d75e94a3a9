import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// Why the outbox did not take a message.
enum EmailOutboxError: Error, CustomStringConvertible {
    /// `capacity` messages are waiting already.
    case full(capacity: Int)
    /// The server is shutting down.
    case closed

    var description: String {
        switch self {
        case let .full(capacity): "the email outbox is full (\(capacity) messages waiting)"
        case .closed: "the email outbox is closed (the server is shutting down)"
        }
    }
}

/// Action emails leave through this queue: a request only enqueues its message and answers; the outbox
/// sends in the background, in the server's service group. So an answer does not wait for the mail relay,
/// and takes as long whether a message was queued or not (with enumeration protection a password reset
/// for an unknown address sends nothing, and must not answer faster than one for a known address); a slow
/// or broken relay holds up no request.
///
/// Bounded everywhere: at most `capacity` messages wait (beyond, the request fails with a 503), at most
/// `concurrentSends` are sent at once, each is tried at most `attempts` times with doubling pauses, and at
/// shutdown the queue is drained for at most `drainTimeout`. Failures are logged, never shown to anyone.
///
/// Nothing a request was told is on its way is lost to a shutdown: what is still unsent when the drain time is
/// up is sealed (the links carry codes, so never kept in clear) into the store's `pending_emails`, and the
/// next node to start, this one or another, takes it from there and sends it. (A crash, unlike a shutdown,
/// loses the queue: keeping every message in the store first would cost each request a write.)
public final class EmailOutbox: Service, Sendable {
    public struct Settings: Sendable, Equatable {
        /// Messages that may wait to be sent.
        public var capacity = 1000
        /// Messages sent at once.
        public var concurrentSends = 4
        /// Tries per message; only failures that may pass (no connection, a 4xx reply) are retried.
        public var attempts = 3
        /// The pause before the second try; it doubles for each further one.
        public var firstRetryDelay: TimeAmount = .seconds(2)
        /// How long graceful shutdown waits for queued messages; what is left then is kept for the next start.
        public var drainTimeout: TimeAmount = .seconds(10)

        public init() {}
    }

    private struct State {
        /// Messages queued or being sent, by their number in this outbox.
        var unsent: [Int: EmailMessage] = [:]
        var lastNumber = 0
        /// Messages being composed in the background (`enqueueComposed`): the outbox is not idle while there are any.
        var composing = 0
        /// Set when the outbox stops: nothing more will be sent.
        var stopped = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let sender: any EmailSender
    private let settings: Settings
    private let store: OutboxStore
    private let secrets: SecretBox
    private let usage: UsageCounters
    private let logger: Logger
    private let queue: AsyncStream<(number: Int, message: EmailMessage)>
    private let queueInput: AsyncStream<(number: Int, message: EmailMessage)>.Continuation
    private let state = NIOLockedValueBox(State())

    init(core: ServerCore, sender: any EmailSender, usage: UsageCounters) {
        self.sender = sender
        settings = core.configuration.delivery.emailOutbox
        store = core.store.outbox
        secrets = core.secrets
        self.usage = usage
        logger = core.logger
        (queue, queueInput) = AsyncStream.makeStream(
            of: (number: Int, message: EmailMessage).self, bufferingPolicy: .bufferingOldest(settings.capacity))
    }

    /// Queues `message` without waiting. Throws a 503 `FlintError` when the queue is full or closed.
    func enqueue(_ message: EmailMessage) throws(FlintError) {
        // Kept before it is queued, so a sender cannot finish it before it is kept.
        let number = state.withLockedValue { state in
            state.lastNumber += 1
            state.unsent[state.lastNumber] = message
            return state.lastNumber
        }
        let refusal: EmailOutboxError
        switch queueInput.yield((number, message)) {
        case .enqueued: return
        case .dropped: refusal = .full(capacity: settings.capacity)
        default: refusal = .closed
        }
        finish(number)
        usage.count(.failed, .email, projectID: message.projectID, provider: sender.metricsName)
        throw FlintError.unavailable("Sending the email", cause: refusal)
    }

    /// Composes a message in the background and queues it, if `compose` makes one: for mail a request must not wait for
    /// (whether a notice is due takes queries of its own). Outside the request's task-locals, so nothing it does is
    /// counted against the request; an error is logged, never the request's.
    func enqueueComposed(_ compose: @escaping @Sendable () async throws -> EmailMessage?) {
        state.withLockedValue { $0.composing += 1 }
        Task.detached { [self] in
            do {
                if let message = try await compose() { try enqueue(message) }
            } catch {
                logger.error("An email was not sent: composing or queueing it failed", metadata: ["error": "\(error)"])
            }
            composed()
        }
    }

    /// Runs a limit's check before a message is queued, counting its refusal as an email refused for `reason`.
    func refusing(_ reason: UsageCounters.Refusal, projectID: String, _ limit: () async throws -> Void) async throws {
        try await usage.countingRefusal(reason, of: .email, projectID: projectID, provider: sender.metricsName, limit)
    }

    /// Returns once no message is queued or being sent (or the outbox has stopped).
    public func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLockedValue { state in
                guard !state.unsent.isEmpty || state.composing > 0, !state.stopped else { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Sends queued messages until graceful shutdown; then drains the queue for at most `drainTimeout` and keeps
    /// what is left in the store.
    public func run() async {
        let (shutdown, shutdownStarted) = AsyncStream.makeStream(of: Never.self)
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.sendQueued() }
                group.addTask { [drainTimeout = settings.drainTimeout] in
                    for await _ in shutdown {}
                    try? await Task.sleep(nanoseconds: UInt64(max(0, drainTimeout.nanoseconds)))
                }
                // Whichever ends first: the queue is drained, or the drain time is up (or the run is cancelled).
                await group.next()
                group.cancelAll()
            }
        } onGracefulShutdown: {
            self.queueInput.finish()
            shutdownStarted.finish()
        }
        let (left, waiters) = state.withLockedValue { state in
            state.stopped = true
            defer { state.idleWaiters = [] }
            return (Array(state.unsent.values), state.idleWaiters)
        }
        await keep(left)
        for waiter in waiters { waiter.resume() }
    }

    /// The store's context for sealed messages (the master key seals nothing else with it).
    private static let sealingContext = "pending-email"

    /// Seals `messages` into the store for the next node that starts.
    private func keep(_ messages: [EmailMessage]) async {
        guard !messages.isEmpty else { return }
        do {
            let sealed = try messages.map { try secrets.seal(try JSONEncoder().encode($0), context: Self.sealingContext) }
            try await store.addPendingEmails(sealed)
            logger.notice("Emails not sent before shutdown are kept for the next start", metadata: ["count": "\(messages.count)"])
        } catch {
            logger.error("Emails not sent before shutdown are lost", metadata: ["count": "\(messages.count)", "error": "\(error)"])
        }
    }

    /// Queues the messages nodes kept at their shutdown (taking them out of the store, so one node sends each);
    /// the server calls it before it starts, so they are queued before the first request is answered.
    func requeueLeftovers() async {
        do {
            for sealed in try await store.takePendingEmails() {
                guard let message = try? JSONDecoder().decode(EmailMessage.self, from: try secrets.open(sealed, context: Self.sealingContext))
                else {
                    logger.error("A kept email cannot be read (was the master key changed?); it is dropped")
                    continue
                }
                try enqueue(message)
            }
        } catch {
            logger.error("Kept emails could not be queued", metadata: ["error": "\(error)"])
        }
    }

    /// Takes messages off the queue until it is finished, sending up to `concurrentSends` at once. A message
    /// is taken only when a sender is free, so at most `capacity` wait and `concurrentSends` are being sent.
    private func sendQueued() async {
        await withTaskGroup(of: Void.self) { group in
            var sending = 0
            var messages = queue.makeAsyncIterator()
            while true {
                if sending >= settings.concurrentSends {
                    await group.next()
                    sending -= 1
                }
                guard let (number, message) = await messages.next() else { break }
                group.addTask { await self.send(message, number: number) }
                sending += 1
            }
        }
    }

    /// Sends one message, retrying what may pass, and logs the outcome of a failure. A message whose tries are
    /// cut short by the shutdown stays unsent, to be kept.
    private func send(_ message: EmailMessage, number: Int) async {
        var pause = settings.firstRetryDelay
        for attempt in 1...max(1, settings.attempts) {
            do {
                try await sender.send(message)
                usage.count(.sent, .email, projectID: message.projectID, provider: sender.metricsName)
                finish(number)
                return
            } catch {
                if Task.isCancelled { return }
                let retrying = attempt < settings.attempts && Self.mayPass(error)
                logger.warning(retrying ? "Sending an email failed; it will be tried again" : "Sending an email failed", metadata: [
                    "projectID": "\(message.projectID)", "action": "\(message.kind.name)", "attempt": "\(attempt)",
                    "error": "\(error)",
                ])
                guard retrying else {
                    usage.count(.failed, .email, projectID: message.projectID, provider: sender.metricsName)
                    finish(number)
                    return
                }
                do {
                    try await Task.sleep(nanoseconds: UInt64(max(0, pause.nanoseconds)))
                } catch {
                    return
                }
                pause = pause * 2
            }
        }
    }

    /// Whether trying again may succeed: the relay could not be reached, or answered with a temporary (4xx) reply.
    static func mayPass(_ error: any Error) -> Bool {
        switch error as? DeliveryError {
        case .unavailable?: true
        case let .rejected(status, _)?: (400..<500).contains(status)
        case .notConfigured?, nil: false
        }
    }

    /// Message `number` is sent or given up on.
    private func finish(_ number: Int) {
        settle { $0.unsent[number] = nil }
    }

    /// A message `enqueueComposed` began is queued, or there was none.
    private func composed() {
        settle { $0.composing -= 1 }
    }

    /// Applies `change` and wakes whoever waits for the outbox to be idle, if it is now.
    private func settle(_ change: @Sendable (inout State) -> Void) {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            change(&state)
            guard state.unsent.isEmpty, state.composing == 0 else { return [] }
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
