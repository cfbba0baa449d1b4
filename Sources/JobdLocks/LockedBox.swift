/// A value behind jobd's ``Lock``: shared across threads only where the value itself may be
/// (`Sendable`), as swift-service-lifecycle's `LockedValueBox`.
package final class LockedBox<Value> {
    private let lock = Lock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` on the value with the lock held.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }
}

extension LockedBox: @unchecked Sendable where Value: Sendable {}
