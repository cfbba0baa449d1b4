import JobdCalendar
import JobdConfig
package import JobdScheduler
package import JobdTimers
package import Logging

/// `MetricsFile=`'s writes: at most once a second after something changed (a run ended, a reload),
/// once a minute anyway with nothing changing (so that the file's age says jobd is alive), and at
/// the stop. A failure is said once until a write succeeds again, not at every run.
package final class MetricsWriter {
    private let timer: DeadlineTimer
    private let rewriteInterval: Duration
    private let logger: Logger
    /// Whether something changed since the last write.
    package private(set) var isDirty = false
    private var written: MonotonicInstant?
    private var failed = false

    /// `onDue` is called on the timing thread when a write is due: it should make the loop call
    /// ``write(to:now:again:text:)``.
    package init(queue: TimerQueue, rewriteInterval: Duration, logger: Logger, onDue: @escaping @Sendable () -> Void) {
        timer = DeadlineTimer(queue: queue, label: "metrics", onDue: onDue)
        self.rewriteInterval = rewriteInterval
        self.logger = logger
    }

    /// Something the metrics show changed: a write is due now, or a second after the last one.
    package func changed(now: MonotonicInstant) {
        guard !isDirty else { return }
        isDirty = true
        let earliest = written.map { $0 + .seconds(1) } ?? now
        timer.arm(at: max(earliest, now))
    }

    /// Writes `text` to `path` (nothing without one); with `again`, the next write is due a
    /// rewrite interval later.
    package func write(to path: String?, now: MonotonicInstant, again: Bool, text: () -> String) {
        isDirty = false
        guard let path else { return }
        written = now
        if again { timer.arm(at: now + rewriteInterval) }
        do {
            try MetricsFile(path: path).write(text())
            failed = false
        } catch {
            if !failed { logger.warning("MetricsFile=: \(error)") }
            failed = true
        }
    }

    /// jobd stops: no write is due any more but the last.
    package func stop() {
        timer.timer.invalidate(reason: .shutdown)
    }
}

extension MetricsFile {
    /// The metrics of jobd as its scheduler, run admission and configuration have them.
    package static func text(
        scheduler: Scheduler, admission: RunAdmission, generation: Generation, reloads: ReloadOutcomes, jobdConf: String,
        clocks: Scheduler.Clocks, deadlines: SuccessDeadlines = SuccessDeadlines()
    ) -> String {
        let brokenFiles = generation.broken.values.map(\.path).sorted() + (generation.settingsErrors.isEmpty ? [] : [jobdConf])
        let daemon = MetricsFile.Daemon(
            startRealtime: scheduler.daemonStartRealtime,
            generation: scheduler.generation.number, liveOwners: JobOwner.liveCount,
            leakedOwners: scheduler.leakDetector?.leaked ?? 0, armedTimers: scheduler.queue.armedCount,
            reloads: reloads, brokenFiles: brokenFiles)
        let now = clocks.monotonic(), wallNow = clocks.realtime().microseconds
        let jobs = scheduler.generation.owners.values.sorted { $0.name < $1.name }.map { owner in
            MetricsFile.Job(
                name: owner.name, history: scheduler.histories[owner.name] ?? JobHistory(),
                running: admission.runsInFlight(of: owner.name).count, disabled: admission.disabled.contains(owner.name),
                nextElapse: owner.timer.deadline.map { RealtimeInstant(microseconds: wallNow + $0.duration(since: now).nanosecondsSaturated / 1_000) },
                expectSuccessWithin: owner.definition.expectSuccessWithin, overdue: deadlines.isOverdue(owner.name),
                fleet: owner.definition.runOn == .oneNode)
        }
        return MetricsFile.render(daemon: daemon, jobs: jobs)
    }
}
