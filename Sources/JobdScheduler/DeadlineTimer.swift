import JobdTimers

/// A timer that calls back when a deadline of the main loop's passes: the leak check's, the next
/// retry's. Its owner holds it; it holds itself as its timer's target, weakly, like every owner.
public final class DeadlineTimer: TimerTarget {
    public let timer: WeakTimer
    private let onDue: @Sendable () -> Void

    /// `onDue` is called on the timing thread; it should only hand the event to the main loop.
    public init(queue: TimerQueue, label: String, onDue: @escaping @Sendable () -> Void) {
        self.onDue = onDue
        timer = queue.makeTimer(label: label)
        timer.bind(to: self)
    }

    deinit { timer.invalidate(reason: .ownerDeinit) }

    /// Arms the timer for `deadline`, or leaves it unarmed when there is none.
    public func arm(at deadline: MonotonicInstant?) {
        timer.bind(to: self, andScheduleAt: deadline)
    }

    public func timerFired(_ timer: WeakTimer, at now: MonotonicInstant) { onDue() }
}
