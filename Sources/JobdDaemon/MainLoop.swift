import JobdCalendar
package import JobdConfig
import JobdControl
import JobdFleet
import JobdLocks
import JobdLogging
import JobdRunner
package import JobdScheduler
import JobdTimers
package import Logging
import SystemdKit
import UnixSignals

/// The executor around jobd's decisions: it turns events (fires, runs that ended, signals, control
/// requests) into calls on the scheduler (owners and timers) and the run admission (every run's
/// state), and performs what they decide. It runs on one task: nothing here is shared with another
/// thread except through the event stream and the run registry.
///
/// It keeps no run state of its own: runs in flight, waiting runs and pending retries live in
/// ``RunAdmission``, processes in the runner's ``RunRegistry``. What it keeps is the configuration
/// it applied, the outcome of reloads, and the clients waiting for an answer.
package final class MainLoop {
    /// Fault injection for testing the watchdog: with this variable set to a number of seconds,
    /// SIGUSR2 blocks the main loop for that long, as a hung filesystem or a bug would.
    static let stallVariable = "JOBD_FAULT_STALL_SECONDS"
    /// Fault injection for testing slow reloads: with this variable set to a number of seconds,
    /// the loader thread waits that long before it reads the configuration at a reload, as a hung
    /// NFS mount or a slow LDAP server would make it.
    static let slowLoadVariable = "JOBD_FAULT_SLOW_LOAD_SECONDS"
    /// How long a reload may read before `STATUS=` says it is taking long.
    static let slowReloadNotice: Duration = .seconds(5)

    let options: DaemonOptions
    let logger: Logger
    let scheduler: Scheduler
    let notifier: ServiceNotifier
    /// Clocks, configuration, state, runs and the fleet: all the loop reads and starts goes through it.
    let context: DaemonContext
    let startedRealtimeUSec: Int64

    /// Every run's state and every decision about runs.
    var admission: RunAdmission
    /// Wakes the loop when the next retry is due.
    let retryTimer: DeadlineTimer
    /// `jobd.conf`'s settings, as the last configuration without errors in it had them.
    var settings: DaemonSettings
    /// Job files with errors (and `jobd.conf`'s errors), as the last load found them.
    var broken: [String: JobdConfiguration.BrokenJob] = [:]
    var settingsErrors: [ConfigError] = []
    /// What `STATUS=` says of them: the last load's ``JobdConfiguration/brokenSummary``.
    private var brokenSummary: String?
    /// Whether a reload reads, who waits for its outcome, and the outcomes so far.
    var reloads = ReloadMachine(jobFiles: JobFileCache())
    /// Wakes the loop when a reload has been reading for ``slowReloadNotice``.
    private let reloadWatch: DeadlineTimer
    /// `MetricsFile=`: written at most once a second after something changed (a run ended, a
    /// reload), and at the stop.
    private let metricsTimer: DeadlineTimer
    private var metricsDirty = false
    private var metricsWritten: MonotonicInstant?
    private var metricsFailed = false
    /// The job that falls due next, for `STATUS=`: looked for among every owner at most once a
    /// second, since `STATUS=` goes out at every run's end.
    private var nextJob: (job: String, at: MonotonicInstant, found: MonotonicInstant)?
    /// Clients waiting for a run to end (and, following it, its retries and the runs it started).
    var runWaiters: RunWaiters
    /// Clients waiting for a job's runs to end after `jobctl stop --wait`, by job.
    var stopWaiters: [String: [ControlReply]] = [:]
    /// What `STATUS=` says of the fleet, and the node that claimed each fleet job's last elapse
    /// this node saw (MainLoop+Fleet.swift).
    var fleetState: String?
    var fleetLastNode: [String: String] = [:]

    /// `invocationIDs` makes each run's `JOBD_RUN_ID` (random but in tests).
    package init(
        options: DaemonOptions, settings: DaemonSettings, logger: Logger, scheduler: Scheduler, notifier: ServiceNotifier,
        context: DaemonContext, invocationIDs: @escaping @Sendable () -> String = RunRequest.randomInvocationID
    ) {
        self.options = options
        self.settings = settings
        self.logger = logger
        self.scheduler = scheduler
        self.runWaiters = RunWaiters(taps: context.launcher.outputTaps)
        self.notifier = notifier
        self.context = context
        self.startedRealtimeUSec = context.clocks.realtime().microseconds
        self.admission = RunAdmission(maxConcurrentRuns: settings.maxConcurrentRuns, invocationIDs: invocationIDs)
        let post = context.post
        self.retryTimer = DeadlineTimer(queue: scheduler.queue, label: "retry") { post(.retriesDue) }
        self.reloadWatch = DeadlineTimer(queue: scheduler.queue, label: "reload-watch") { post(.reloadIsSlow) }
        self.metricsTimer = DeadlineTimer(queue: scheduler.queue, label: "metrics") { post(.writeMetrics) }
    }

    package var stopping: Bool { admission.isStopping }
    /// The monotonic clock and the wall clock's microseconds, as the context reads them.
    var now: MonotonicInstant { context.clocks.monotonic() }
    var wallNowUSec: Int64 { context.clocks.realtime().microseconds }

    /// Loads the first generation and tells systemd that jobd is ready.
    package func start(_ configuration: JobdConfiguration, jobFiles: JobFileCache) {
        let configuration = applicable(configuration)
        reloads = ReloadMachine(jobFiles: jobFiles)
        scheduler.isRunning = { [unowned self] job in self.admission.isActive(job) }
        for job in context.store.disabledJobs() { _ = admission.setDisabled(job, true) }
        record(configuration)
        limitTasks()
        let summary = scheduler.load(configuration.jobs, now: now)
        perform(admission.configure(configuration.jobs, maxConcurrentRuns: settings.maxConcurrentRuns, now: now))
        Self.logConfigErrors(configuration.errors, logger: logger)
        var message = "jobd ready: \(configuration.jobs.count) job(s), generation \(summary.generation)"
        if let brokenSummary = configuration.brokenSummary { message += "; \(brokenSummary) not loaded" }
        logger.event(.daemonReady, level: configuration.errors.isEmpty ? .info : .warning, message, [
            JobdField.generation: String(summary.generation),
            JobdField.leakGraceUSec: String(settings.leakGrace.microseconds),
        ])
        notifier.send(.ready, .status(status))
        metricsChanged()
    }

    /// Keeps what a load found wrong, for `STATUS=`, `jobctl list` and `status`.
    private func record(_ configuration: JobdConfiguration) {
        broken = Dictionary(configuration.broken.map { ($0.name, $0) }) { $1 }
        settingsErrors = configuration.settingsErrors
        brokenSummary = configuration.brokenSummary
        if let settings = configuration.settings { self.settings = settings }
    }

    /// `configuration` with each job that asks for what this jobd cannot do moved to the broken
    /// files, with the reason at its line: `TasksMax=` where no pids controller is at hand (never
    /// a limit silently not applied).
    private func applicable(_ configuration: JobdConfiguration) -> JobdConfiguration {
        let refusal: String? = switch context.launcher.tracking {
        case .cgroups(let cgroup): cgroup.tasksLimitRefusal
        case .processGroups(let reason): "runs are tracked by process group, not cgroup (\(reason))"
        }
        guard let refusal else { return configuration }
        var configuration = configuration
        configuration.breakJobs { definition in
            definition.tasksMax == nil ? [] : [ConfigError(
                file: definition.path, line: definition.tasksMaxLine, message: "TasksMax= cannot be applied: \(refusal)",
                hint: "run jobd under its unit (Delegate=yes, with the pids controller), or remove TasksMax=")]
        }
        return configuration
    }

    /// Sets the task limits of the runs (`RunsTasksMax=`, `DefaultTasksMax=`) in jobd's cgroup.
    private func limitTasks() {
        guard case .cgroups(let cgroup) = context.launcher.tracking else { return }
        switch cgroup.limitTasks(settings) {
        case .success(let budget):
            let runs = budget.runs.map { "at most \($0) tasks" } ?? "no task limit"
            let each = budget.defaultPerRun.map { "\($0) each by default" } ?? "no limit each by default"
            logger.info("runs hold \(runs) together, \(each) (RunsTasksMax=, DefaultTasksMax=)")
        case .failure(let failure):
            logger.warning("the runs' task limits are not set: \(failure)")
        }
    }

    /// Handles one event; returns `false` when the loop should end.
    package func handle(_ event: DaemonEvent) -> Bool {
        switch event {
        case .due(let due):
            handleDue(due)
        case .runFinished(let outcome):
            runEnded(outcome)
            if stopping {
                if admission.running == 0 { return false }
                notifier.send(.status("stopping: waiting for \(admission.running) run(s)"))
            } else {
                notifier.send(.status(status))
            }
        case .retriesDue:
            perform(admission.retriesDue(now: now))
        case .writeMetrics:
            writeMetrics()
        case .fleetClaimed(let request, let verdict):
            claimed(request, verdict)
            if stopping, admission.running == 0 { return false }
        case .fleet(let notice):
            if !stopping { fleetNotice(notice) }
        case .watchdogTick:
            notifier.send(.watchdog)
        case .notifyRetry:
            notifier.flush()
        case .signal(let signal) where signal == .sighup:
            if !stopping, let cache = reloads.hangUp(now: now) { beginReload(cache) }
        case .configurationRead(let configuration, let cache):
            let again = reloads.read(cache)
            if !stopping { finishReload(configuration) }
            if again, !stopping, let cache = reloads.hangUp(now: now) { beginReload(cache) }
        case .reloadIsSlow:
            if let reading = reloads.readingFor(now: now), !stopping {
                let seconds = reading.components.seconds
                logger.warning("reload still reading the configuration after \(seconds)s (a hung file system, or slow account look-ups?); jobs run on meanwhile")
                notifier.send(.status(status))
                reloadWatch.arm(at: now + Self.slowReloadNotice)
            }
        case .signal(let signal) where signal == .sigusr2:
            if let stall = context.stall {
                logger.warning("fault injection: the main loop stalls")
                stall()
            }
        case .signal(let signal):
            return beginStop(on: signal)
        case .leakCheck:
            scheduler.leakDetector?.check(now: now) { [admission] job in !admission.runsInFlight(of: job).isEmpty }
            notifier.send(.status(status))
        case .wallClockSet:
            scheduler.wallClockWasSet()
        case .timeZoneChanged:
            scheduler.timeZoneChanged(to: context.zone())
        case .control(let request, let reply):
            handleControl(request, reply: reply)
        }
        return true
    }

    /// What `STATUS=` says while jobd runs, in plain words.
    package var status: String {
        var text = "\(scheduler.generation.owners.count) job(s), \(admission.running) running"
        let disabled = admission.disabled.count { scheduler.generation.owners[$0] != nil }
        if disabled > 0 { text += ", \(disabled) disabled" }
        if admission.waitingForSlot > 0 { text += ", \(admission.waitingForSlot) waiting for a slot" }
        let failed = scheduler.histories.values.count { $0.lastRun?.result.isFailure == true }
        if failed > 0 { text += ", \(failed) failed" }
        if let brokenSummary { text += "; " + brokenSummary }
        if let detector = scheduler.leakDetector, detector.leaked > 0 {
            text += "; \(detector.leaked) leaked owner(s)"
        }
        if let reading = reloads.readingFor(now: now) {
            let seconds = reading.components.seconds
            if seconds >= 1 { text += "; reloading for \(seconds)s, still reading the configuration" }
        }
        if let next = nextDueJob() {
            let left = max(0, next.at.duration(since: now).components.seconds)
            text += "; next: \(next.job) in \(TimeSpan.seconds(UInt64(left)))"
        }
        if let fleetState { text += "; fleet: \(fleetState)" }
        return text
    }

    private func handleDue(_ due: DueJob) {
        let fields = [
            JobdField.job: due.job, JobdField.owner: String(due.ownerID),
            JobdField.generation: String(due.generation), JobdField.timer: String(due.timerID),
        ]
        logger.event(.timerFire, level: .debug, "timer \(due.timerID) of \(due.job) fired", fields)
        guard !stopping else { return }
        guard scheduler.jobDue(due, now: now) else {
            logger.event(.runSkip, level: .notice, "\(due.job) fell due but was not run: owner-retired",
                         fields.merging([JobdField.reason: "owner-retired"]) { $1 })
            return
        }
        perform(admission.due(job: due.job, now: now, elapse: scheduler.lastDueElapse))
    }

    /// Starts a reload: the loader thread reads the configuration (file system reads and account
    /// look-ups may block for long), and the loop goes on scheduling meanwhile. A SIGHUP during a
    /// reload makes another one follow it.
    private func beginReload(_ cache: JobFileCache) {
        notifier.send(.reloading)
        logger.event(.reloadStart, "reloading \(options.configDirectory)", [:])
        let post = context.post
        context.configuration.read(using: cache) { post(.configurationRead($0, $1)) }
        reloadWatch.arm(at: now + Self.slowReloadNotice)
    }

    /// Applies what the loader read. Each job file on its own: a broken file keeps its job's
    /// previous definition (a new broken file adds nothing; a deleted file removes its job), the
    /// valid changes apply, and the errors are in the journal, `STATUS=` and `jobctl reload`'s
    /// output. A broken `jobd.conf` keeps the settings jobd has.
    private func finishReload(_ configuration: JobdConfiguration) {
        let configuration = applicable(configuration)
        reloadWatch.arm(at: nil)
        let errors = configuration.errors
        let report: ReloadReport
        if let fatal = configuration.fatal {
            Self.logConfigErrors([fatal], logger: logger)
            report = ReloadReport(
                sequence: 0, accepted: false, generation: scheduler.generation.number,
                errors: [fatal.description], finishedRealtimeUSec: wallNowUSec)
            logger.event(.reloadFailed, level: .error,
                         "reload rejected, generation \(scheduler.generation.number) keeps running: \(fatal.message)",
                         [JobdField.generation: String(scheduler.generation.number), JobdField.reason: fatal.message])
        } else {
            // A broken file keeps the definition its job has now, if it has one.
            let kept = configuration.broken.compactMap { scheduler.generation.owners[$0.name]?.definition }
            var jobs = kept.isEmpty ? configuration.jobs : configuration.jobs + kept
            // File name order is job name order but where a name has a character that sorts before
            // `.` (`a-b.job` before `a.job`): sorted only then.
            if zip(jobs, jobs.dropFirst()).contains(where: { !($0.name < $1.name) }) { jobs.sort { $0.name < $1.name } }
            let limits = settings
            record(configuration)
            if settings != limits { limitTasks() }
            // The reader looked again at zone files that changed (a tzdata upgrade): so does the
            // local zone, which calendar triggers without a zone of their own follow.
            let zone = context.zone()
            if zone != scheduler.zone { scheduler.timeZoneChanged(to: zone) }
            let summary = scheduler.load(jobs, now: now)
            // A job whose file is gone takes its kept history with it (once its last run ended).
            for name in summary.removed { context.store.saveHistory(of: name, scheduler.histories[name]) }
            // The same jobs under the same limit: run admission has nothing to learn.
            if summary.kept.count != jobs.count || !summary.removed.isEmpty || settings.maxConcurrentRuns != admission.maxConcurrentRuns {
                perform(admission.configure(jobs, maxConcurrentRuns: settings.maxConcurrentRuns, now: now))
            }
            scheduler.leakDetector?.grace = settings.leakGrace.duration
            Self.logConfigErrors(errors, logger: logger)
            report = ReloadReport(
                sequence: 0, accepted: errors.isEmpty, generation: summary.generation, added: summary.added,
                changed: summary.changed, removed: summary.removed, kept: summary.kept,
                errors: errors.map(\.description), finishedRealtimeUSec: wallNowUSec)
            let fields = [
                JobdField.generation: String(summary.generation),
                JobdField.leakGraceUSec: String(settings.leakGrace.microseconds),
            ]
            if errors.isEmpty {
                logger.event(.reloadDone, "reload done: \(summary); \(reloads.jobFiles.parsed) job file(s) new or changed and read, \(reloads.jobFiles.reused) unchanged", fields)
            } else {
                // Applied, but not all of it: a failed `systemctl reload`, as a rejected one is.
                let reason = "\(errors.count) configuration error(s) in \(configuration.brokenSummary ?? "the configuration")"
                logger.event(.reloadFailed, level: .error,
                             "reload incomplete: \(reason), which keep their previous state; \(summary)",
                             fields.merging([JobdField.reason: reason]) { $1 })
            }
        }
        let (outcome, watchers) = reloads.finished(report, as: configuration.fatal != nil ? .rejected : errors.isEmpty ? .applied : .partial)
        metricsChanged()
        // A reload frees a generation's worth of definitions and owners, spread over the arenas of
        // the threads that made them; give what is free back rather than keep it resident.
        context.trimMemory()
        notifier.send(.ready, .status(status))
        for watcher in watchers { watcher.finish(with: ControlResponse(type: .reloadResult, reload: outcome)) }
    }

    /// Shutdown: STOPPING=1, every timer invalidated and every owner released, runs that have not
    /// started dropped, then every running job is stopped: SIGTERM, and SIGKILL after its
    /// `TimeoutStopSec=`. Returns `false` when nothing is left to wait for.
    private func beginStop(on signal: UnixSignal) -> Bool {
        guard !stopping else { return true }
        notifier.send(.stopping, .status("stopping"))
        logger.event(.daemonStop, "jobd stopping on \(signal): \(admission.running) run(s) in flight", [:])
        retryTimer.timer.invalidate(reason: .shutdown)
        reloadWatch.timer.invalidate(reason: .shutdown)
        metricsTimer.timer.invalidate(reason: .shutdown)
        if metricsDirty { writeMetrics() }
        perform(admission.shutdown())
        scheduler.shutdown()
        for waiter in reloads.shutdown() + stopWaiters.values.flatMap({ $0 }) {
            waiter.finish(with: .error("jobd is stopping"))
        }
        runWaiters.finishAll(with: .error("jobd is stopping"))
        stopWaiters.removeAll()
        guard admission.running > 0 else { return false }
        notifier.send(.status("stopping: waiting for \(admission.running) run(s)"))
        return true
    }

    /// The enabled job that falls due next, at most a second old.
    private func nextDueJob() -> (job: String, at: MonotonicInstant)? {
        let now = self.now
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

    /// Something the metrics show changed: write them now, or a second after the last write. With
    /// nothing changing they are written once a minute anyway (``writeMetrics()``), so that the
    /// file's age says jobd is alive.
    func metricsChanged() {
        guard settings.metricsFile != nil, !metricsDirty else { return }
        metricsDirty = true
        let earliest = metricsWritten.map { $0 + .seconds(1) } ?? now
        metricsTimer.arm(at: max(earliest, now))
    }

    private func writeMetrics() {
        metricsDirty = false
        guard let path = settings.metricsFile else { return }
        let now = self.now
        metricsWritten = now
        if !stopping { metricsTimer.arm(at: now + MetricsFile.rewriteInterval(environment: options.environment)) }
        let brokenFiles = broken.values.map(\.path).sorted() + (settingsErrors.isEmpty ? [] : [options.configDirectory + "/jobd.conf"])
        let daemon = MetricsFile.Daemon(
            startRealtime: scheduler.daemonStartRealtime,
            generation: scheduler.generation.number, liveOwners: JobOwner.liveCount,
            leakedOwners: scheduler.leakDetector?.leaked ?? 0, armedTimers: scheduler.queue.armedCount,
            reloads: reloads.outcomes, brokenFiles: brokenFiles)
        let wallNow = wallNowUSec
        let jobs = scheduler.generation.owners.values.sorted { $0.name < $1.name }.map { owner in
            MetricsFile.Job(
                name: owner.name, history: scheduler.histories[owner.name] ?? JobHistory(),
                running: admission.runsInFlight(of: owner.name).count, disabled: admission.disabled.contains(owner.name),
                nextElapse: owner.timer.deadline.map { RealtimeInstant(microseconds: wallNow + $0.duration(since: now).nanosecondsSaturated / 1_000) })
        }
        do {
            try MetricsFile(path: path).write(MetricsFile.render(daemon: daemon, jobs: jobs))
            metricsFailed = false
        } catch {
            // Said once until a write succeeds again, not at every run.
            if !metricsFailed { logger.warning("MetricsFile=: \(error)") }
            metricsFailed = true
        }
    }

    static func logConfigErrors(_ errors: [ConfigError], logger: Logger) {
        for error in errors {
            var fields = [JobdField.file: error.file, JobdField.reason: error.message]
            if let line = error.line { fields[JobdField.line] = String(line) }
            logger.event(.configError, level: .error, error.description, fields)
        }
    }
}
