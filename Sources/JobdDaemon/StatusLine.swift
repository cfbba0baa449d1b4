import JobdConfig
import JobdScheduler
import JobdTimers

/// What `STATUS=` says while jobd runs, in plain words. The job that falls due next is looked for
/// among every owner at most once a second, since `STATUS=` goes out at every run's end.
struct StatusLine {
    private var nextJob: (job: String, at: MonotonicInstant, found: MonotonicInstant)?

    mutating func text(
        scheduler: Scheduler, admission: RunAdmission, generation: Generation, reading: Duration?, fleet: String?,
        now: MonotonicInstant
    ) -> String {
        var text = "\(scheduler.generation.owners.count) job(s), \(admission.running) running"
        let disabled = admission.disabled.count { scheduler.generation.owners[$0] != nil }
        if disabled > 0 { text += ", \(disabled) disabled" }
        if admission.waitingForSlot > 0 { text += ", \(admission.waitingForSlot) waiting for a slot" }
        let failed = scheduler.histories.values.count { $0.lastRun?.result.isFailure == true }
        if failed > 0 { text += ", \(failed) failed" }
        if let brokenSummary = generation.brokenSummary { text += "; " + brokenSummary }
        if let detector = scheduler.leakDetector, detector.leaked > 0 {
            text += "; \(detector.leaked) leaked owner(s)"
        }
        if let reading {
            let seconds = reading.components.seconds
            if seconds >= 1 { text += "; reloading for \(seconds)s, still reading the configuration" }
        }
        if let next = nextDueJob(scheduler: scheduler, admission: admission, now: now) {
            let left = max(0, next.at.duration(since: now).components.seconds)
            text += "; next: \(next.job) in \(TimeSpan.seconds(UInt64(left)))"
        }
        if let fleet { text += "; fleet: \(fleet)" }
        return text
    }

    /// The enabled job that falls due next, at most a second old.
    private mutating func nextDueJob(scheduler: Scheduler, admission: RunAdmission, now: MonotonicInstant) -> (job: String, at: MonotonicInstant)? {
        if let nextJob, now < nextJob.found + .seconds(1), nextJob.at >= now,
           scheduler.generation.owners[nextJob.job]?.timer.deadline == nextJob.at {
            return (nextJob.job, nextJob.at)
        }
        var earliest: (job: String, at: MonotonicInstant)?
        for owner in scheduler.generation.owners.values where !admission.disabled.contains(owner.name) {
            guard let deadline = owner.timer.deadline else { continue }
            if earliest.map({ deadline < $0.at }) ?? true { earliest = (owner.name, deadline) }
        }
        nextJob = earliest.map { ($0.job, $0.at, now) }
        return earliest
    }
}
