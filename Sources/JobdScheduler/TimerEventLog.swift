import JobdLogging
package import JobdTimers
package import Logging

/// Logs every timer's schedule and invalidation, with the job (the timer's label), the owner (its
/// tag) and, for invalidations, the reason: the timer half of the leak audit.
package struct TimerEventLog: TimerObserver {
    private let logger: Logger

    package init(logger: Logger) {
        self.logger = logger
    }

    package func timerScheduled(_ timer: WeakTimer, deadline: MonotonicInstant) {
        let left = deadline.duration(since: .now())
        logger.event(.timerSchedule, level: .trace, "timer \(timer.id) of \(timer.label) armed, due in \(left)", [
            JobdField.job: timer.label, JobdField.timer: String(timer.id), JobdField.owner: String(timer.tag),
            "JOBD_NEXT_MONOTONIC_USEC": String(deadline.microseconds),
        ])
    }

    package func timerInvalidated(_ timer: WeakTimer, reason: InvalidationReason) {
        logger.event(.timerInvalidate, level: .debug, "timer \(timer.id) of \(timer.label) invalidated: \(reason)", [
            JobdField.job: timer.label, JobdField.timer: String(timer.id), JobdField.owner: String(timer.tag),
            JobdField.reason: reason.rawValue,
        ])
    }
}
