import Foundation

extension DispatchQueue {
    /// The default queue for completion handlers and listeners: the main queue where an app has a
    /// main run loop (Apple platforms), otherwise one serial queue private to FlintAuth, so that
    /// command-line tools and test runners that never service the main queue still get callbacks.
    static let authCallbacks: DispatchQueue = {
        #if canImport(ObjectiveC)
        return .main
        #else
        return DispatchQueue(label: "dev.flint.auth.callbacks")
        #endif
    }()

    /// Runs `operation` in a new task and reports its outcome to `completion` on this queue.
    /// Backs the completion-handler twins of the SDK's `async` methods.
    func complete<Value: Sendable>(
        _ completion: (@Sendable (Value?, (any Error)?) -> Void)?,
        _ operation: @escaping @Sendable () async throws -> Value
    ) {
        Task {
            do {
                let value = try await operation()
                self.async { completion?(value, nil) }
            } catch {
                self.async { completion?(nil, error) }
            }
        }
    }

    /// `complete(_:_:)` for operations that produce no value.
    func complete(
        _ completion: (@Sendable ((any Error)?) -> Void)?,
        _ operation: @escaping @Sendable () async throws -> Void
    ) {
        complete({ (_: Void?, error) in completion?(error) }, operation)
    }
}
