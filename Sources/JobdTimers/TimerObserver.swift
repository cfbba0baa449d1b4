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
