import JobdConfig
import JobdLocks
import JobdTimers

/// The timers of every run in flight (`RuntimeMaxSec=`, `TimeoutStopSec=`): one ``TimerQueue``
/// (one thread, one timerfd) for all of them, made with the first, so that no run holds a task
/// asleep for its timer (issue 39: each such task kept kilobytes of frames while its run ran).
final class RunTimers: Sendable {
    /// One armed timer. The queue holds it weakly; the ``RunDriverWatch`` it is returned in holds
    /// it strongly, so that a run that drops its watch drops its timer.
    private final class Alarm: TimerTarget {
        private let fire: @Sendable () -> Void

        init(_ fire: @escaping @Sendable () -> Void) {
            self.fire = fire
        }

        func timerFired(_ timer: WeakTimer, at now: MonotonicInstant) { fire() }
    }

    private let queue = LockedBox<TimerQueue?>(nil)

    /// Makes the queue unless it is made: call it before a run's process is spawned, so that a
    /// run whose timers could not fire does not start.
    func prepare() -> Result<Void, RunPreparationError> {
        made().map { _ in () }
    }

    private func made() -> Result<TimerQueue, RunPreparationError> {
        queue.withLock { queue -> Result<TimerQueue, RunPreparationError> in
            if let queue { return .success(queue) }
            do throws(TimerError) {
                let made = try TimerQueue()
                queue = made
                return .success(made)
            } catch {
                return .failure(RunPreparationError(description: "cannot start the runs' timers: \(error.description)"))
            }
        }
    }

    /// Calls `fire` on the timers' thread once `duration` has passed, unless cancelled first; an
    /// infinite duration never fires.
    func schedule(after duration: TimeSpan, _ fire: @escaping @Sendable () -> Void) -> RunDriverWatch {
        guard !duration.isInfinite, case .success(let queue) = made() else { return .none }
        let alarm = Alarm(fire)
        let timer = queue.makeTimer(label: "run")
        timer.bind(to: alarm, andScheduleAt: .now() + duration.duration)
        return RunDriverWatch { [alarm] in
            withExtendedLifetime(alarm) { timer.cancel() }
        }
    }
}
