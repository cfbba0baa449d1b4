/// The target of a timer bound to a closure: it holds the owner weakly and lends it to the
/// closure, strongly, for one call.
final class ClosureTarget<Owner: AnyObject & Sendable>: TimerTarget, @unchecked Sendable {
    // Set once, before the timer can fire; read on the timing thread only after that.
    private weak var owner: Owner?
    private let handler: @Sendable (Owner, WeakTimer, MonotonicInstant) -> Void

    init(owner: Owner, handler: @escaping @Sendable (Owner, WeakTimer, MonotonicInstant) -> Void) {
        self.owner = owner
        self.handler = handler
    }

    func timerFired(_ timer: WeakTimer, at now: MonotonicInstant) {
        guard let owner else {
            timer.invalidate(reason: .targetGone)
            return
        }
        handler(owner, timer, now)
    }
}
