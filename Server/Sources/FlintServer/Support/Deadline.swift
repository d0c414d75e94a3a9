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
