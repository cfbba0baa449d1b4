import CMalloc
import Glibc
import JobdCalendar
import JobdConfig
import JobdControl
import JobdFleet
import JobdLogging
import JobdRunner
import JobdScheduler
import JobdTimers
import Logging
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
final class MainLoop {
    /// Fault injection for testing the watchdog: with this variable set to a number of seconds,
    /// SIGUSR2 blocks the main loop for that long, as a hung filesystem or a bug would.
    static let stallVariable = "JOBD_FAULT_STALL_SECONDS"

    let options: DaemonOptions
    let logger: Logger
    let scheduler: Scheduler
    let runner: JobRunner
    let notifier: ServiceNotifier
    let continuation: AsyncStream<DaemonEvent>.Continuation
    private let stallSeconds: Double?
    let startedRealtimeUSec = WallClock.nowUSec()

    /// Every run's state and every decision about runs.
    var admission: RunAdmission
    /// Wakes the loop when the next retry is due.
    let retryTimer: DeadlineTimer
    /// `jobd.conf`'s settings, as the last configuration without errors in it had them.
    var settings: DaemonSettings
    /// Job files with errors (and `jobd.conf`'s errors), as the last load found them.
    var broken: [String: JobdConfiguration.BrokenJob] = [:]
    var settingsErrors: [ConfigError] = []
    /// Reloads finished so far, and the last one's outcome.
    var reloadSequence: UInt64 = 0
    var lastReload: ReloadReport?
    /// Clients waiting for the next reload's outcome.
    var reloadWatchers: [ControlReply] = []
    /// Clients waiting for a run to end, by run id.
    var runWaiters: [UInt64: ControlReply] = [:]
    /// The fleet's database (`[Fleet]` in jobd.conf at start), what `STATUS=` says of it, and the
    /// node that claimed each fleet job's last elapse this node saw (MainLoop+Fleet.swift).
    var fleet: FleetDatabase?
    var fleetState: String?
    var fleetLastNode: [String: String] = [:]

    init(
        options: DaemonOptions, settings: DaemonSettings, logger: Logger, scheduler: Scheduler, runner: JobRunner,
        notifier: ServiceNotifier, continuation: AsyncStream<DaemonEvent>.Continuation, stallSeconds: Double?
    ) {
        self.options = options
        self.settings = settings
        self.logger = logger
        self.scheduler = scheduler
        self.runner = runner
        self.notifier = notifier
        self.continuation = continuation
        self.stallSeconds = stallSeconds
        self.admission = RunAdmission(maxConcurrentRuns: settings.maxConcurrentRuns)
        self.retryTimer = DeadlineTimer(queue: scheduler.queue, label: "retry") { continuation.yield(.retriesDue) }
    }

    var stopping: Bool { admission.isStopping }

    /// Loads the first generation and tells systemd that jobd is ready.
    func start(_ configuration: JobdConfiguration, group: inout DiscardingTaskGroup) {
        scheduler.isRunning = { [unowned self] job in self.admission.isActive(job) }
        record(configuration)
        let summary = scheduler.load(configuration.jobs)
        perform(admission.configure(configuration.jobs, maxConcurrentRuns: settings.maxConcurrentRuns, now: .now()), group: &group)
        Self.logConfigErrors(configuration.errors, logger: logger)
        var message = "jobd ready: \(configuration.jobs.count) job(s), generation \(summary.generation)"
        if let brokenSummary = configuration.brokenSummary { message += "; \(brokenSummary) not loaded" }
        logger.event(.daemonReady, level: configuration.errors.isEmpty ? .info : .warning, message, [
            JobdField.generation: String(summary.generation),
            JobdField.leakGraceUSec: String(settings.leakGrace.microseconds),
        ])
        notifier.send(.ready, .status(status))
    }

    /// Keeps what a load found wrong, for `STATUS=`, `jobctl list` and `status`.
    private func record(_ configuration: JobdConfiguration) {
        broken = Dictionary(configuration.broken.map { ($0.name, $0) }) { $1 }
        settingsErrors = configuration.settingsErrors
        if let settings = configuration.settings { self.settings = settings }
    }

    /// Handles one event; returns `false` when the loop should end.
    func handle(_ event: DaemonEvent, group: inout DiscardingTaskGroup) -> Bool {
        switch event {
        case .due(let due):
            handleDue(due, group: &group)
        case .runFinished(let outcome):
            runEnded(outcome, group: &group)
            if stopping {
                if admission.running == 0 { return false }
                notifier.send(.status("stopping: waiting for \(admission.running) run(s)"))
            } else {
                notifier.send(.status(status))
            }
        case .retriesDue:
            perform(admission.retriesDue(now: .now()), group: &group)
        case .fleetClaimed(let request, let verdict):
            claimed(request, verdict, group: &group)
            if stopping, admission.running == 0 { return false }
        case .fleet(let notice):
            if !stopping { fleetNotice(notice, group: &group) }
        case .watchdogTick:
            notifier.send(.watchdog)
        case .signal(let signal) where signal == .sighup:
            if !stopping { reload(group: &group) }
        case .signal(let signal) where signal == .sigusr2:
            if let stallSeconds {
                logger.warning("fault injection: the main loop stalls for \(stallSeconds)s")
                usleep(UInt32(stallSeconds * 1_000_000))
            }
        case .signal(let signal):
            return beginStop(on: signal, group: &group)
        case .leakCheck:
            scheduler.leakDetector?.check(now: .now()) { [admission] job in !admission.runsInFlight(of: job).isEmpty }
            notifier.send(.status(status))
        case .wallClockSet:
            scheduler.wallClockWasSet()
        case .timeZoneChanged:
            scheduler.timeZoneChanged(to: TimeZoneRules.current(environment: options.environment))
        case .control(let request, let reply):
            handleControl(request, reply: reply, group: &group)
        }
        return true
    }

    /// What `STATUS=` says while jobd runs, in plain words.
    var status: String {
        var text = "\(scheduler.generation.owners.count) job(s), \(admission.running) running"
        if admission.waitingForSlot > 0 { text += ", \(admission.waitingForSlot) waiting for a slot" }
        let failed = scheduler.histories.values.count { $0.lastRun?.result.isFailure == true }
        if failed > 0 { text += ", \(failed) failed" }
        let brokenFiles = broken.count + (settingsErrors.isEmpty ? 0 : 1)
        if brokenFiles > 0 {
            let names = (broken.values.map { String($0.path.split(separator: "/").last ?? "") }.sorted()
                + (settingsErrors.isEmpty ? [] : ["jobd.conf"]))
            text += "; \(brokenFiles) broken file(s): " + names.prefix(5).joined(separator: ", ") + (names.count > 5 ? ", …" : "")
        }
        if let detector = scheduler.leakDetector, detector.leaked > 0 {
            text += "; \(detector.leaked) leaked owner(s)"
        }
        if let fleetState { text += "; fleet: \(fleetState)" }
        return text
    }

    private func handleDue(_ due: DueJob, group: inout DiscardingTaskGroup) {
        let fields = [
            JobdField.job: due.job, JobdField.owner: String(due.ownerID),
            JobdField.generation: String(due.generation), JobdField.timer: String(due.timerID),
        ]
        logger.event(.timerFire, level: .debug, "timer \(due.timerID) of \(due.job) fired", fields)
        guard !stopping else { return }
        guard scheduler.jobDue(due) else {
            logger.event(.runSkip, level: .notice, "\(due.job) fell due but was not run: owner-retired",
                         fields.merging([JobdField.reason: "owner-retired"]) { $1 })
            return
        }
        perform(admission.due(job: due.job, now: .now(), elapse: scheduler.lastDueElapse), group: &group)
    }

    /// Reads the configuration again. Each job file on its own: a broken file keeps its job's
    /// previous definition (a new broken file adds nothing; a deleted file removes its job), the
    /// valid changes apply, and the errors are in the journal, `STATUS=` and `jobctl reload`'s
    /// output. A broken `jobd.conf` keeps the settings jobd has.
    private func reload(group: inout DiscardingTaskGroup) {
        notifier.send(.reloading)
        logger.event(.reloadStart, "reloading \(options.configDirectory)", [:])
        let configuration = JobDirectory(path: options.configDirectory).read()
        let errors = configuration.errors
        reloadSequence += 1
        if let fatal = configuration.fatal {
            Self.logConfigErrors([fatal], logger: logger)
            lastReload = ReloadReport(
                sequence: reloadSequence, accepted: false, generation: scheduler.generation.number,
                errors: [fatal.description], finishedRealtimeUSec: WallClock.nowUSec())
            logger.event(.reloadFailed, level: .error,
                         "reload rejected, generation \(scheduler.generation.number) keeps running: \(fatal.message)",
                         [JobdField.generation: String(scheduler.generation.number), JobdField.reason: fatal.message])
        } else {
            // A broken file keeps the definition its job has now, if it has one.
            let kept = configuration.broken.compactMap { scheduler.generation.owners[$0.name]?.definition }
            let jobs = (configuration.jobs + kept).sorted { $0.name < $1.name }
            record(configuration)
            let summary = scheduler.load(jobs)
            perform(admission.configure(jobs, maxConcurrentRuns: settings.maxConcurrentRuns, now: .now()), group: &group)
            scheduler.leakDetector?.grace = settings.leakGrace.duration
            Self.logConfigErrors(errors, logger: logger)
            lastReload = ReloadReport(
                sequence: reloadSequence, accepted: errors.isEmpty, generation: summary.generation, added: summary.added,
                changed: summary.changed, removed: summary.removed, kept: summary.kept,
                errors: errors.map(\.description), finishedRealtimeUSec: WallClock.nowUSec())
            let fields = [
                JobdField.generation: String(summary.generation),
                JobdField.leakGraceUSec: String(settings.leakGrace.microseconds),
            ]
            if errors.isEmpty {
                logger.event(.reloadDone, "reload done: \(summary)", fields)
            } else {
                // Applied, but not all of it: a failed `systemctl reload`, as a rejected one is.
                let reason = "\(errors.count) configuration error(s) in \(configuration.brokenSummary ?? "the configuration")"
                logger.event(.reloadFailed, level: .error,
                             "reload incomplete: \(reason), which keep their previous state; \(summary)",
                             fields.merging([JobdField.reason: reason]) { $1 })
            }
        }
        // A reload frees a generation's worth of definitions and owners, spread over the arenas of
        // the threads that made them; give what is free back rather than keep it resident.
        malloc_trim(0)
        notifier.send(.ready, .status(status))
        let outcome = ControlResponse(type: .reloadResult, reload: lastReload)
        for watcher in reloadWatchers { watcher.finish(with: outcome) }
        reloadWatchers.removeAll()
    }

    /// Shutdown: STOPPING=1, every timer invalidated and every owner released, runs that have not
    /// started dropped, then every running job is stopped: SIGTERM, and SIGKILL after its
    /// `TimeoutStopSec=`. Returns `false` when nothing is left to wait for.
    private func beginStop(on signal: UnixSignal, group: inout DiscardingTaskGroup) -> Bool {
        guard !stopping else { return true }
        notifier.send(.stopping, .status("stopping"))
        logger.event(.daemonStop, "jobd stopping on \(signal): \(admission.running) run(s) in flight", [:])
        retryTimer.timer.invalidate(reason: .shutdown)
        perform(admission.shutdown(), group: &group)
        scheduler.shutdown()
        for waiter in reloadWatchers + Array(runWaiters.values) { waiter.finish(with: .error("jobd is stopping")) }
        reloadWatchers.removeAll()
        runWaiters.removeAll()
        guard admission.running > 0 else { return false }
        notifier.send(.status("stopping: waiting for \(admission.running) run(s)"))
        return true
    }

    static func logConfigErrors(_ errors: [ConfigError], logger: Logger) {
        for error in errors {
            var fields = [JobdField.file: error.file, JobdField.reason: error.message]
            if let line = error.line { fields[JobdField.line] = String(line) }
            logger.event(.configError, level: .error, error.description, fields)
        }
    }
}
