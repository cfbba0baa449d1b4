package import JobdTimers

/// A timer that calls back when a deadline of the main loop's passes: the leak check's, the next
/// retry's. Its owner holds it; it holds itself as its timer's target, weakly, like every owner.
package final class DeadlineTimer: TimerTarget {
    package let timer: WeakTimer
    private let onDue: @Sendable () -> Void

    /// `onDue` is called on the timing thread; it should only hand the event to the main loop.
    package init(queue: TimerQueue, label: String, onDue: @escaping @Sendable () -> Void) {
        self.onDue = onDue
        timer = queue.makeTimer(label: label)
        timer.bind(to: self)
    }

    deinit { timer.invalidate(reason: .ownerDeinit) }

    /// Arms the timer for `deadline`, or leaves it unarmed when there is none.
    package func arm(at deadline: MonotonicInstant?) {
        timer.bind(to: self, andScheduleAt: deadline)
    }

    package func timerFired(_ timer: WeakTimer, at now: MonotonicInstant) { onDue() }
}
