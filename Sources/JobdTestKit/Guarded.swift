import Foundation

/// A value behind an `NSLock`, for test doubles that run under the thread sanitizer, which cannot
/// see `Synchronization.Mutex` on Linux.
public final class Guarded<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
