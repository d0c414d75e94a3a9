/// A value delivered once, awaited by one task: the first `resolve` wins, later ones are ignored.
/// Lets callbacks from elsewhere (a push notification, a URL the app opens, a timer) finish a wait.
final class OneShot<Value: Sendable>: Sendable {
    private struct State: Sendable {
        var isResolved = false
        var value: Value?
        var continuation: CheckedContinuation<Value, Never>?
    }

    private let state = Locked(State())

    /// Delivers `value` unless a value was delivered before; returns whether this call delivered it.
    @discardableResult
    func resolve(_ value: Value) -> Bool {
        let (delivered, continuation) = state.withLock { state -> (Bool, CheckedContinuation<Value, Never>?) in
            guard !state.isResolved else { return (false, nil) }
            state.isResolved = true
            state.value = value
            let continuation = state.continuation
            state.continuation = nil
            return (true, continuation)
        }
        continuation?.resume(returning: value)
        return delivered
    }

    /// The value, once delivered. Call from one task only.
    func wait() async -> Value {
        await withCheckedContinuation { continuation in
            let value: Value? = state.withLock { state in
                if state.isResolved { return state.value }
                state.continuation = continuation
                return nil
            }
            if let value {
                continuation.resume(returning: value)
            }
        }
    }
}
