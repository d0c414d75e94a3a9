import NIOConcurrencyHelpers
import NIOCore

/// An operation ran past its time limit and was cancelled.
struct DeadlineExceeded: Error, CustomStringConvertible {
    var limit: TimeAmount

    var description: String { "no complete answer within \(limit.nanoseconds / 1_000_000) ms" }
}

/// Runs `operation`, cancelling it once `limit` has passed; then throws `DeadlineExceeded`. For waits a
/// peer controls (an answer's body, a mail relay's replies), whose own timeouts reset with every byte and
/// so cannot stop a peer that drips bytes. `operation` must end soon after it is cancelled.
func withDeadline<Value: Sendable>(_ limit: TimeAmount, _ operation: @escaping @Sendable () async throws -> Value)
    async throws -> Value {
    try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(max(0, limit.nanoseconds)))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw DeadlineExceeded(limit: limit) }
        return value
    }
}

/// Runs `operation` in a task of its own and returns how it ended, or nil once `limit` has passed (cancelling it).
/// Unlike `withDeadline`, it does not wait for the operation to end: for a check that must answer in time even when
/// what it checks hangs without heeding cancellation. A query on a PostgreSQL connection caught in the server's
/// restart was seen to: `/readyz` then never answered, and a graceful shutdown waited for it for ever. The
/// operation is left to end on its own.
func answer<Value: Sendable>(within limit: TimeAmount, _ operation: @escaping @Sendable () async throws -> Value)
    async -> Result<Value, any Error>? {
    let pending = NIOLockedValueBox<CheckedContinuation<Result<Value, any Error>?, Never>?>(nil)
    @Sendable func finish(_ outcome: Result<Value, any Error>?) {
        pending.withLockedValue { continuation in
            continuation?.resume(returning: outcome)
            continuation = nil
        }
    }
    return await withCheckedContinuation { continuation in
        pending.withLockedValue { $0 = continuation }
        let work = Task {
            do {
                finish(.success(try await operation()))
            } catch {
                finish(.failure(error))
            }
        }
        Task {
            try? await Task.sleep(nanoseconds: UInt64(max(0, limit.nanoseconds)))
            work.cancel()
            finish(nil)
        }
    }
}
