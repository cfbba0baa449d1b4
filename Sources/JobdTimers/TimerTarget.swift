/// What a ``WeakTimer`` calls when it fires. The timer holds its target weakly.
///
/// `timerFired` runs on the timer queue's timing thread: keep it short (hand the work to another
/// thread or task) so that other timers fire on time.
public protocol TimerTarget: AnyObject, Sendable {
    func timerFired(_ timer: WeakTimer, at now: MonotonicInstant)
}
