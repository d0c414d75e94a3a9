import Foundation

/// Runs `operation` in a new task and reports its outcome to `completion` on the main actor, as
/// FirebaseAuth calls its completion handlers on the main queue. Backs the completion-handler twins of
/// the SDK's `async` methods.
func completeOnMainActor<Value: Sendable>(
    _ completion: (@MainActor (Value?, (any Error)?) -> Void)?,
    _ operation: @escaping @Sendable () async throws -> Value
) {
    Task {
        let outcome: Result<Value, any Error>
        do {
            outcome = .success(try await operation())
        } catch {
            outcome = .failure(error)
        }
        guard let completion else { return }
        await MainActor.run {
            switch outcome {
            case .success(let value): completion(value, nil)
            case .failure(let error): completion(nil, error)
            }
        }
    }
}

/// `completeOnMainActor(_:_:)` for operations that produce no value.
func completeOnMainActor(
    _ completion: (@MainActor ((any Error)?) -> Void)?,
    _ operation: @escaping @Sendable () async throws -> Void
) {
    completeOnMainActor(completion.map { completion in { @MainActor (_: Void?, error) in completion(error) } }, operation)
}
