/// What a ``WeakTimer`` calls when it fires. The timer holds its target weakly.
///
/// `timerFired` runs on the timer queue's timing thread: keep it short (hand the work to another
/// thread or task) so that other timers fire on time.
public protocol TimerTarget: AnyObject, Sendable {
    func timerFired(_ timer: WeakTimer, at now: MonotonicInstant)
}

/// Hears of every timer's life on a ``TimerQueue``: the leak audit is built on these calls.
///
/// Calls come on whichever thread caused the event (the timing thread for fires and
/// `target-gone`, the releasing thread for `owner-deinit`), never with the queue's lock held.
public protocol TimerObserver: Sendable {
    func timerScheduled(_ timer: WeakTimer, deadline: MonotonicInstant)
    func timerInvalidated(_ timer: WeakTimer, reason: InvalidationReason)
}

extension TimerObserver {
    public func timerScheduled(_ timer: WeakTimer, deadline: MonotonicInstant) {}
}
