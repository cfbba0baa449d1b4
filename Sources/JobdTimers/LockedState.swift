import JobdLocks

/// The timer queue's state behind jobd's ``Lock`` (pthread-based, which the thread sanitizer
/// sees). Unlike ``LockedBox``, it is shared whatever its state: the state holds the timers, which
/// only the queue touches, and only with the lock held.
final class LockedState<State>: @unchecked Sendable {
    private let lock = Lock()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&state) }
    }
}
