import JobdLocks

/// A value behind jobd's lock, for test doubles (which run under the thread sanitizer too):
/// shared across threads only where the value may be (`Sendable`).
package final class Guarded<Value> {
    private let box: LockedBox<Value>

    package init(_ value: Value) {
        box = LockedBox(value)
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try box.withLock(body)
    }
}

extension Guarded: @unchecked Sendable where Value: Sendable {}
