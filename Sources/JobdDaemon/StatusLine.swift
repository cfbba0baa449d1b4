import JobdConfig
import JobdScheduler
package import JobdTimers

/// What `STATUS=` says while jobd runs, in plain words, and when it goes out.
///
/// The text changes at nearly every event (a run's start or end), and each `STATUS=` costs jobd the
/// text and a datagram, jobd-keeper a relay, PID 1 a parse and a D-Bus signal that dbus-daemon and
/// logind handle in turn: at a thousand runs a second that was a tenth of a two-core machine. So a
/// change goes out at once when none went out in the last ``interval``, and otherwise once, at
/// the end of that interval, with the text of that moment (``Pacer``). `READY=1` and
/// `STOPPING=1` carry it at once. The job that falls due next is looked for among
/// every owner at most once a second.
package struct StatusLine {
    /// How often `STATUS=` goes out at most while it keeps changing.
    package static let interval: Duration = .milliseconds(100)

    /// When a change of the text goes out.
    package var pace = Pacer(interval: interval)

    private var nextJob: (job: String, at: MonotonicInstant, found: MonotonicInstant)?

    package init() {}

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
