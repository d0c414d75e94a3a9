import Foundation
import NIOConcurrencyHelpers

/// What a fake service accepted, in order, safe to read from any thread. Tests can wait for the n-th
/// item (`waitFor(count:)`) or subscribe to new ones (`stream()`) instead of polling or sleeping.
public final class Recorder<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<[Element], Never>)] = []
        var subscribers: [UUID: AsyncStream<Element>.Continuation] = [:]
        var finished = false
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    /// Everything recorded so far.
    public var all: [Element] { state.withLockedValue { $0.items } }

    public func append(_ item: Element) {
        let (ready, subscribers) = state.withLockedValue { state in
            state.items.append(item)
            let count = state.items.count
            let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.count <= count }
            return (ready.map { ($0, state.items) }, Array(state.subscribers.values))
        }
        for (continuation, items) in ready { continuation.resume(returning: items) }
        for subscriber in subscribers { subscriber.yield(item) }
    }

    /// Returns once at least `count` items are recorded (all of them), or when the fake stops (what there is).
    public func waitFor(count: Int) async -> [Element] {
        await withCheckedContinuation { continuation in
            let items: [Element]? = state.withLockedValue { state in
                if state.items.count >= count || state.finished { return state.items }
                state.waiters.append((count, continuation))
                return nil
            }
            if let items { continuation.resume(returning: items) }
        }
    }

    /// A stream of the items recorded from now on; it ends when the fake stops.
    public func stream() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self)
        let id = UUID()
        let finished = state.withLockedValue { state in
            if !state.finished { state.subscribers[id] = continuation }
            return state.finished
        }
        if finished { continuation.finish() }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLockedValue { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Releases every waiter and ends every stream.
    func finish() {
        let (waiters, subscribers, items) = state.withLockedValue { state in
            state.finished = true
            defer {
                state.waiters = []
                state.subscribers = [:]
            }
            return (state.waiters.map(\.continuation), Array(state.subscribers.values), state.items)
        }
        for waiter in waiters { waiter.resume(returning: items) }
        for subscriber in subscribers { subscriber.finish() }
    }
}
