import JobdLogging
package import JobdTimers
package import Logging

/// Watches owners after they are retired, by a reload or at shutdown, through weak references:
/// an owner still alive `grace` after its retirement is a leak, logged as `owner.leak` (warning)
/// with what jobd knows of its holders; if it goes away later, `owner.late-deinit`.
///
/// Its check runs on a timer of its own on the same queue (an owner of a `WeakTimer`, like every
/// other): armed for the earliest retirement's grace end while anything is watched, unarmed
/// otherwise. Used from the main loop only.
package final class LeakDetector {
    private struct Watched {
        weak var owner: JobOwner?
        let id: UInt64
        let job: String
        let generation: UInt64
        let retiredAt: MonotonicInstant
        var reported = false
    }

    /// How long a retired owner may live; a reload may change it (`LeakGraceSec=`).
    package var grace: Duration
    private let logger: Logger
    private var watched: [Watched] = []
    private let check: DeadlineTimer?

    /// `onCheckDue` is called on the timing thread when a check is due; the main loop should then
    /// call ``check(now:isRunning:)``.
    package init(grace: Duration, queue: TimerQueue?, logger: Logger, onCheckDue: @escaping @Sendable () -> Void) {
        self.grace = grace
        self.logger = logger
        check = queue.map { DeadlineTimer(queue: $0, label: "leak-check", onDue: onCheckDue) }
    }

    /// Retired owners still alive: leaked, or not yet past their grace.
    package var retiredAlive: Int { watched.filter { $0.owner != nil }.count }
    /// Retired owners reported as leaked and still alive.
    package var leaked: Int { watched.filter { $0.owner != nil && $0.reported }.count }

    /// Starts watching `owners`, retired at `now`. The caller lets go of them right after.
    package func retire(_ owners: [JobOwner], now: MonotonicInstant) {
        for owner in owners {
            watched.append(Watched(owner: owner, id: owner.id, job: owner.name, generation: owner.generation, retiredAt: now))
        }
        rearm()
    }

    /// Forgets the watched owners that are already gone and were never reported: there is nothing
    /// more to see of them. The scheduler calls it once a reload has let its retired owners go, so
    /// that the watch holds only owners still alive (each entry keeps its owner's weak-reference
    /// side table), not every owner the reloads of the last grace period retired.
    package func forgetReleased() {
        let before = watched.count
        watched.removeAll { $0.owner == nil && !$0.reported }
        if watched.count != before { rearm() }
    }

    /// How many owners are watched (alive, or gone since the last look): for tests.
    package var watchedCount: Int { watched.count }

    /// Reports owners alive past their grace, and leaked owners that went away since. A job with a
    /// run in flight gets its grace extended until the run ends (`isRunning`).
    package func check(now: MonotonicInstant, isRunning: (String) -> Bool = { _ in false }) {
        var remaining: [Watched] = []
        for var entry in watched {
            guard let owner = entry.owner else {
                if entry.reported {
                    logger.event(.ownerLateDeinit, level: .warning,
                                 "owner \(entry.id) of \(entry.job) was released \(now.duration(since: entry.retiredAt)) after its retirement",
                                 fields(entry))
                }
                continue
            }
            if !entry.reported, now.duration(since: entry.retiredAt) >= grace, !isRunning(entry.job) {
                entry.reported = true
                // What jobd knows: neither a generation nor a run holds it (runs hold definitions), so
                // the holder is outside the scheduler. The retain count is a hint, not an exact figure.
                let approximateCount = _getRetainCount(owner)
                var leakFields = fields(entry)
                leakFields[JobdField.reason] = "held outside jobd's generations and runs "
                    + "(strong reference count about \(approximateCount), including this check's)"
                logger.event(.ownerLeak, level: .warning,
                             "owner \(entry.id) of \(entry.job) from generation \(entry.generation) is still alive "
                             + "\(now.duration(since: entry.retiredAt)) after its retirement: a leak", leakFields)
            }
            remaining.append(entry)
        }
        watched = remaining
        rearm()
    }

    private func fields(_ entry: Watched) -> [String: String] {
        [JobdField.job: entry.job, JobdField.owner: String(entry.id), JobdField.generation: String(entry.generation)]
    }

    /// The next check: the earliest unreported retirement's grace end; leaked owners are looked at
    /// again every grace period, to see them go.
    private func rearm() {
        guard let check else { return }
        let pending = watched.filter { !$0.reported }.map { $0.retiredAt + grace }.min()
        let leakedAgain = watched.contains { $0.reported } ? MonotonicInstant.now() + grace : nil
        let next = [pending, leakedAgain].compactMap { $0 }.min()
        check.arm(at: next)
    }
}
