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
        /// How long graceful shutdown waits for queued messages; what is left then is logged and dropped.
        public var drainTimeout: TimeAmount = .seconds(10)

        public init() {}
    }

    private struct State {
        /// Messages queued or being sent.
        var pending = 0
        /// Set when the outbox stops: nothing more will be sent.
        var stopped = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let sender: any EmailSender
    private let settings: Settings
    private let usage: UsageCounters
    private let logger: Logger
    private let queue: AsyncStream<EmailMessage>
    private let queueInput: AsyncStream<EmailMessage>.Continuation
    private let state = NIOLockedValueBox(State())

    init(sender: any EmailSender, settings: Settings, usage: UsageCounters, logger: Logger) {
        self.sender = sender
        self.settings = settings
        self.usage = usage
        self.logger = logger
        (queue, queueInput) = AsyncStream.makeStream(of: EmailMessage.self, bufferingPolicy: .bufferingOldest(settings.capacity))
    }

    /// Queues `message` without waiting. Throws a 503 `FlintError` when the queue is full or closed.
    func enqueue(_ message: EmailMessage) throws(FlintError) {
        // Counted before it is queued, so a sender cannot finish it before it is counted.
        state.withLockedValue { $0.pending += 1 }
        let refusal: EmailOutboxError
        switch queueInput.yield(message) {
        case .enqueued: return
        case .dropped: refusal = .full(capacity: settings.capacity)
        default: refusal = .closed
        }
        finishOne()
        throw FlintError.unavailable("Sending the email", cause: refusal)
    }

    /// Returns once no message is queued or being sent (or the outbox has stopped).
    public func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLockedValue { state in
                guard state.pending > 0, !state.stopped else { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Sends queued messages until graceful shutdown, then drains the queue for at most `drainTimeout`.
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
            return (state.pending, state.idleWaiters)
        }
        if left > 0 { logger.error("Emails not sent before shutdown", metadata: ["count": "\(left)"]) }
        for waiter in waiters { waiter.resume() }
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
                guard let message = await messages.next() else { break }
                group.addTask { await self.send(message) }
                sending += 1
            }
        }
    }

    /// Sends one message, retrying what may pass, and logs the outcome of a failure.
    private func send(_ message: EmailMessage) async {
        defer { finishOne() }
        var pause = settings.firstRetryDelay
        for attempt in 1...max(1, settings.attempts) {
            do {
                try await sender.send(message)
                usage.record(.emailsSent, projectID: message.projectID)
                return
            } catch {
                let retrying = attempt < settings.attempts && Self.mayPass(error) && !Task.isCancelled
                logger.warning(retrying ? "Sending an email failed; it will be tried again" : "Sending an email failed", metadata: [
                    "projectID": "\(message.projectID)", "action": "\(message.action.rawValue)", "attempt": "\(attempt)",
                    "error": "\(error)",
                ])
                guard retrying else { return }
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

    private func finishOne() {
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.pending -= 1
            guard state.pending == 0 else { return [] }
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
