import JobdLogging
package import JobdTimers
package import Logging

/// Logs every timer's schedule and invalidation, with the job (the timer's label), the owner (its
/// tag) and, for invalidations, the reason: the timer half of the leak audit. Invalidations go
/// through an ``OwnerEventBatch``, so that the many of a shutdown or a large reload are logged
/// compactly (`timers.invalidate`) when the scheduler shares its batch with this log.
package struct TimerEventLog: TimerObserver {
    private let logger: Logger
    private let events: OwnerEventBatch

    /// - Parameter events: the scheduler's batch; without one, every invalidation is an entry of its own.
    package init(logger: Logger, events: OwnerEventBatch? = nil) {
        self.logger = logger
        self.events = events ?? OwnerEventBatch(logger: logger)
    }

    package func timerScheduled(_ timer: WeakTimer, deadline: MonotonicInstant) {
        // Its fields are made only for a log that keeps the entry: every owner's arm comes here.
        guard logger.logLevel <= .trace else { return }
        let left = deadline.duration(since: .now())
        logger.event(.timerSchedule, level: .trace, "timer \(timer.id) of \(timer.label) armed, due in \(left)", [
            JobdField.job: timer.label, JobdField.timer: String(timer.id), JobdField.owner: String(timer.tag),
            "JOBD_NEXT_MONOTONIC_USEC": String(deadline.microseconds),
        ])
    }

    package func timerInvalidated(_ timer: WeakTimer, reason: InvalidationReason) {
        events.invalidated(.init(owner: timer.tag, job: timer.label, generation: nil, timer: timer.id), reason: reason)
    }
}
