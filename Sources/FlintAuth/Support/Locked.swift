import Foundation

/// A value that is only ever touched while an `NSLock` is held.
///
/// This is FlintAuth's one hand-made synchronisation primitive: the SDK's mutable objects keep
/// their state in a `Locked` and are then `Sendable` without further annotations.
final class Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value. `body` must not wait for other tasks, nor
    /// take a lock that is ever held while this one is taken.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// Reads or writes one property of the value under the lock.
    subscript<Property>(_ keyPath: WritableKeyPath<Value, Property>) -> Property {
        get { withLock { $0[keyPath: keyPath] } }
        set { withLock { $0[keyPath: keyPath] = newValue } }
    }
}
