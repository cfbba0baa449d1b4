import CMalloc
import Glibc
import JobdCalendar
import JobdConfig
import JobdControl
import JobdLogging
import JobdRunner
import JobdScheduler
import JobdTimers
import Logging
import SystemdKit
import UnixSignals

/// The main loop's state and its handling of each event. It runs on one task: nothing here is
/// shared with another thread except through the event stream and the run registry.
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

    /// Runs started and not yet ended.
    var running = 0
    var stopping = false
    /// `jobd.conf`'s settings, as the last accepted configuration had them.
    var settings: DaemonSettings
    /// Runs waiting for a free slot under `MaxConcurrentRuns=`, in the order they fell due.
    var slotWaiting: [WaitingRun] = []
    /// Per job, the run waiting for the job's run in flight to end (`Overlap=queue` or `replace`).
    var overlapWaiting: [String: (runID: UInt64, dueAt: MonotonicInstant)] = [:]
    private var lastReloadProblem: String?
    /// Reloads finished so far, and the last one's outcome.
    var reloadSequence: UInt64 = 0
    var lastReload: ReloadReport?
    /// Clients waiting for the next reload's outcome.
    var reloadWatchers: [ControlReply] = []
    /// Clients waiting for a run to end, by run id.
    var runWaiters: [UInt64: ControlReply] = [:]

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
    }

    /// Loads the first generation and tells systemd that jobd is ready.
    func start(_ definitions: [JobDefinition]) {
        let summary = scheduler.load(definitions)
        logger.event(.daemonReady, "jobd ready: \(definitions.count) job(s), generation \(summary.generation)", [
            JobdField.generation: String(summary.generation),
            JobdField.leakGraceUSec: String(settings.leakGrace.microseconds),
        ])
        notifier.send(.ready, .status(status))
    }

    /// Handles one event; returns `false` when the loop should end.
    func handle(_ event: DaemonEvent, group: inout DiscardingTaskGroup) -> Bool {
        switch event {
        case .due(let due):
            handleDue(due, group: &group)
        case .runFinished(let outcome):
            runEnded(outcome, group: &group)
            if stopping {
                if running == 0 { return false }
                notifier.send(.status("stopping: waiting for \(running) run(s)"))
            } else {
                notifier.send(.status(status))
            }
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
            scheduler.leakDetector?.check(now: .now()) { [scheduler] job in (scheduler.histories[job]?.running ?? 0) > 0 }
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

    /// What `STATUS=` says while jobd runs.
    var status: String {
        let queue = scheduler.queue
        var text = "Generation \(scheduler.generation.number): \(scheduler.generation.owners.count) job(s), "
            + "\(JobOwner.liveCount) owner(s), \(queue.armedCount) timer(s) armed, \(running) running"
        if !slotWaiting.isEmpty { text += ", \(slotWaiting.count) waiting for a slot" }
        if let detector = scheduler.leakDetector, detector.retiredAlive > 0 {
            text += "; \(detector.retiredAlive) retired owner(s) alive, \(detector.leaked) leaked"
        }
        if let lastReloadProblem { text += "; last reload rejected: \(lastReloadProblem)" }
        return text
    }

    private func handleDue(_ due: DueJob, group: inout DiscardingTaskGroup) {
        let fields = [
            JobdField.job: due.job, JobdField.owner: String(due.ownerID),
            JobdField.generation: String(due.generation), JobdField.timer: String(due.timerID),
        ]
        logger.event(.timerFire, "timer \(due.timerID) of \(due.job) fired", fields)
        guard !stopping else { return }
        _ = act(on: scheduler.jobDue(due), job: due.job, fields: fields, group: &group)
    }

    /// Reads the configuration again; all or nothing. A configuration with any error leaves the
    /// running generation untouched, and says why in `STATUS=` and the journal.
    private func reload(group: inout DiscardingTaskGroup) {
        notifier.send(.reloading)
        logger.event(.reloadStart, "reloading \(options.configDirectory)", [:])
        switch JobDirectory(path: options.configDirectory).loadConfiguration() {
        case .success(let configuration):
            let summary = scheduler.load(configuration.jobs)
            apply(configuration.daemon, group: &group)
            lastReloadProblem = nil
            logger.event(.reloadDone, "reload done: \(summary)", [
                JobdField.generation: String(summary.generation),
                JobdField.leakGraceUSec: String(configuration.daemon.leakGrace.microseconds),
            ])
            reloadSequence += 1
            lastReload = ReloadReport(
                sequence: reloadSequence, accepted: true, generation: summary.generation, added: summary.added,
                changed: summary.changed, removed: summary.removed, kept: summary.kept,
                finishedRealtimeUSec: WallClock.nowUSec())
        case .failure(let errors):
            reloadSequence += 1
            lastReload = ReloadReport(
                sequence: reloadSequence, accepted: false, generation: scheduler.generation.number,
                errors: errors.errors.map(\.description), finishedRealtimeUSec: WallClock.nowUSec())
            Self.logConfigErrors(errors, logger: logger)
            lastReloadProblem = "\(errors.errors.count) error(s); first: \(errors.errors[0].location): \(errors.errors[0].message)"
            logger.event(.reloadFailed, level: .error,
                         "reload rejected, generation \(scheduler.generation.number) keeps running: "
                         + "\(errors.errors.count) configuration error(s)",
                         [JobdField.generation: String(scheduler.generation.number)])
        }
        // A reload frees a generation's worth of definitions and owners, spread over the arenas of
        // the threads that made them; give what is free back rather than keep it resident.
        malloc_trim(0)
        notifier.send(.ready, .status(status))
        let outcome = ControlResponse(type: .reloadResult, reload: lastReload)
        for watcher in reloadWatchers { watcher.finish(with: outcome) }
        reloadWatchers.removeAll()
    }

    /// Makes `settings` jobd's own; a raised `MaxConcurrentRuns=` starts waiting runs at once.
    private func apply(_ settings: DaemonSettings, group: inout DiscardingTaskGroup) {
        self.settings = settings
        scheduler.leakDetector?.grace = settings.leakGrace.duration
        startWaitingRuns(group: &group)
    }

    /// Shutdown: STOPPING=1, every timer invalidated and every owner released, runs that have not
    /// started dropped, then every running job is stopped: SIGTERM, and SIGKILL after its
    /// `TimeoutStopSec=`. Returns `false` when nothing is left to wait for.
    private func beginStop(on signal: UnixSignal, group: inout DiscardingTaskGroup) -> Bool {
        guard !stopping else { return true }
        stopping = true
        notifier.send(.stopping, .status("stopping"))
        logger.event(.daemonStop, "jobd stopping on \(signal): \(running) run(s) in flight", [:])
        scheduler.shutdown()
        for waiter in reloadWatchers + Array(runWaiters.values) { waiter.finish(with: .error("jobd is stopping")) }
        reloadWatchers.removeAll()
        runWaiters.removeAll()
        slotWaiting.removeAll()
        overlapWaiting.removeAll()
        guard running > 0 else { return false }
        runner.registry.stopAll(reason: .shutdown)
        notifier.send(.status("stopping: waiting for \(running) run(s)"))
        return true
    }

    static func logConfigErrors(_ errors: ConfigErrors, logger: Logger) {
        for error in errors.errors {
            var fields = [JobdField.file: error.file]
            if let line = error.line { fields[JobdField.line] = String(line) }
            logger.event(.configError, level: .error, error.description, fields)
        }
    }
}
