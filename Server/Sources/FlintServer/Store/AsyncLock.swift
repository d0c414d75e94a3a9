import NIOConcurrencyHelpers

/// A mutual-exclusion lock for async code: waiters suspend instead of blocking a thread.
/// Used to give one task at a time a database connection, across `await`s.
final class AsyncLock: Sendable {
    private struct State {
        var locked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = NIOLockedValueBox(State())

    func lock() async {
        // Fast path: an uncontended lock is taken without suspending the task.
        let acquired = state.withLockedValue { state -> Bool in
            guard !state.locked else { return false }
            state.locked = true
            return true
        }
        if acquired { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquiredMeanwhile = state.withLockedValue { state -> Bool in
                if state.locked {
                    state.waiters.append(continuation)
                    return false
                }
                state.locked = true
                return true
            }
            if acquiredMeanwhile { continuation.resume() }
        }
    }

    /// How many tasks wait for the lock (a holder may hand on work that the next one finishes).
    var waiterCount: Int { state.withLockedValue { $0.waiters.count } }

    func unlock() {
        let next = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.locked = false
                return nil
            }
            // Ownership passes straight to the next waiter; `locked` stays true.
            return state.waiters.removeFirst()
        }
        next?.resume()
    }

    func withLock<T>(_ body: () async throws -> T) async rethrows -> T {
        await lock()
        defer { unlock() }
        return try await body()
    }
}
