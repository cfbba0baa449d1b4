import JobdCalendar
package import JobdConfig
import JobdHandover
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
import JobdMetrics
import JobdHost

/// The executor around jobd's decisions: it turns events (fires, runs that ended, signals, control
/// requests) into calls on the scheduler (owners and timers), the run admission (every run's
/// state) and the reload machine, and performs what they decide. It runs on one task, and reads
/// time, files and processes only through its ``DaemonContext``: a test drives ``handle(_:)`` on a
/// manual timer queue with no process started.
///
/// It keeps no run state of its own: runs in flight, waiting runs and pending retries live in
/// ``RunAdmission``, with the ``Generation`` it applied; processes behind the ``RunLauncher``. What
/// it keeps is the clients waiting for an answer, and what `STATUS=` says.
package final class MainLoop {
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
    /// Each job's `ExpectSuccessWithinSec=` switch (MainLoop+Overdue.swift).
    var successDeadlines = SuccessDeadlines()
    /// Wakes the loop when the next job falls overdue.
    let overdueTimer: DeadlineTimer
    /// Whether a reload reads, who waits for its outcome, and the outcomes so far.
    var reloads = ReloadMachine(jobFiles: JobFileCache())
    /// Wakes the loop when a reload has been reading for ``slowReloadNotice``.
    private let reloadWatch: DeadlineTimer
    /// Wakes the loop when a change of `STATUS=` that waited may go out (``StatusLine/pace``).
    private let statusTimer: DeadlineTimer
    /// `MetricsFile=`'s writes.
    private let metrics: MetricsWriter
    /// What `STATUS=` says, with the job that falls due next.
    private var statusLine = StatusLine()
    /// Clients waiting for a run to end (and, following it, its retries and the runs it started), or for a job to stop.
    var runWaiters: RunWaiters
    /// What `STATUS=` says of the fleet, and who claimed the fleet jobs' last elapses (MainLoop+Fleet.swift).
    var fleetStatus = FleetStatus()
    /// When a burst of runs has drained, free memory goes back to the system.
    var burstTrim = BurstTrim()
    /// The clocks as they stood at the last change of the wall clock (or jobd's start): `clock.change`.
    private var clockOffsets: ClockOffsets
    /// Set once the runs are handed over to the next jobd (a restart): the loop ends at once.
    var handedOver = false

    /// `invocationIDs` makes each run's `JOBD_RUN_ID` (random but in tests).
    package init(
        options: DaemonOptions, settings: DaemonSettings, logger: Logger, scheduler: Scheduler, notifier: ServiceNotifier,
        context: DaemonContext, invocationIDs: @escaping @Sendable () -> String = RunRequest.randomInvocationID
    ) {
        self.options = options
        self.logger = logger
        self.scheduler = scheduler
        self.runWaiters = RunWaiters(taps: context.launcher.outputTaps)
        self.notifier = notifier
        self.context = context
        self.startedRealtimeUSec = context.clocks.realtime().microseconds
        self.clockOffsets = context.clocks.offsets
        self.admission = RunAdmission(
            maxConcurrentRuns: settings.maxConcurrentRuns, runsInFlightCeiling: context.runsInFlightCeiling, invocationIDs: invocationIDs)
        _ = admission.configure(Generation(jobs: [], settings: settings), now: context.clocks.monotonic())
        let post = context.post
        self.retryTimer = DeadlineTimer(queue: scheduler.queue, label: "retry") { post(.retriesDue) }
        self.overdueTimer = DeadlineTimer(queue: scheduler.queue, label: "success-deadline") { post(.successDeadlineDue) }
        self.reloadWatch = DeadlineTimer(queue: scheduler.queue, label: "reload-watch") { post(.reloadIsSlow) }
        self.statusTimer = DeadlineTimer(queue: scheduler.queue, label: "status") { post(.statusDue) }
        self.metrics = MetricsWriter(
            queue: scheduler.queue, rewriteInterval: options.faults.metricsRewrite ?? MetricsFile.rewriteInterval, logger: logger
        ) { post(.writeMetrics) }
    }

    package var stopping: Bool { admission.isStopping }
    /// The monotonic clock and the wall clock's microseconds, as the context reads them.
    var now: MonotonicInstant { context.clocks.monotonic() }
    var wallNowUSec: Int64 { context.clocks.realtime().microseconds }
    /// The configuration applied last: the one the scheduler's owners and the admission's runs follow.
    var generation: Generation { admission.generation }
    /// `jobd.conf`'s settings, as the last configuration without errors in it had them.
    var settings: DaemonSettings { generation.settings }

    /// Loads the first generation and tells systemd that jobd is ready.
    package func start(_ configuration: JobdConfiguration, jobFiles: JobFileCache) {
        let configuration = context.launcher.tracking.applicable(configuration, own: context.launcher.host.ownLimits)
        for warning in context.launcher.tracking.devicePolicyWarnings(configuration.jobs) { logger.warning("\(warning)") }
        reloads = ReloadMachine(jobFiles: jobFiles)
        for job in context.store.disabledJobs() { _ = admission.setDisabled(job, true) }
        let generation = Generation(configuration, after: generation)
        context.apply(generation.settings, logger: logger)
        scheduler.catchUpBurst = settings.catchUpBurst ?? 0
        let summary = scheduler.load(generation, active: admission.activeJobs, now: now)
        perform(admission.configure(generation, now: now))
        context.publishGeneration(generation)
        adoptRuns()
        configureSuccessDeadlines()
        logger.daemonReady(summary, configuration: configuration, settings: settings)
        sendStatus(with: .ready)
        metricsChanged()
    }

    /// Handles one event; returns `false` when the loop should end: jobd is stopping, and no run is
    /// left in flight.
    package func handle(_ event: DaemonEvent) -> Bool {
        dispatch(event)
        if handedOver { return false }
        settle()
        return !stopping || admission.running > 0
    }

    /// Arms, once, the owners of the jobs whose history the event changed, as it left their runs.
    func settle() {
        scheduler.settle(isActive: admission.isActive)
    }

    private func dispatch(_ event: DaemonEvent) {
        switch event {
        case .due(let due):
            handleDue(due)
        case .runFinished(let outcome, let finished):
            runEnded(outcome, finished: finished)
            settle()
            if !stopping || admission.running > 0 { statusChanged() }
        case .retriesDue:
            perform(admission.retriesDue(now: now))
        case .successDeadlineDue:
            checkSuccessDeadlines()
        case .writeMetrics:
            writeMetrics()
        case .fleetClaimed(let request, let verdict):
            claimed(request, verdict)
        case .fleet(let notice):
            if !stopping { fleetNotice(notice) }
        case .watchdogTick:
            notifier.send(.watchdog)
        case .notifyRetry:
            notifier.flush()
        case .statusDue:
            if statusLine.pace.isDue(now: now) { sendStatus() }
        case .signal(let signal) where signal == .sighup:
            if !stopping, let cache = reloads.hangUp(now: now) { beginReload(cache) }
        case .cronChanged(let what):
            // As cron, with no reload command: the same reload as a SIGHUP's, said with its cause.
            guard settings.cron.isEnabled(environment: options.environment) else { return }
            if !stopping, let cache = reloads.hangUp(now: now) { beginReload(cache, because: "cron's files changed (\(what))") }
        case .configurationRead(let configuration, let cache):
            let again = reloads.read(cache)
            if !stopping { finishReload(configuration) }
            if again, !stopping, let cache = reloads.hangUp(now: now) { beginReload(cache) }
        case .previewRead(let configuration, let reply):
            if stopping { return reply.finish(with: .error("jobd is stopping")) }
            reply.finish(with: ControlResponse(type: .reloadPreview, schedule: reloadPreview(of: configuration)))
        case .reloadIsSlow:
            if let reading = reloads.readingFor(now: now), !stopping {
                logger.reloadIsSlow(reading)
                statusChanged()
                reloadWatch.arm(at: now + Self.slowReloadNotice)
            }
        case .signal(let signal) where signal == .sigusr2:
            if let stall = context.stall {
                logger.warning("fault injection: the main loop stalls")
                stall()
            }
        case .signal(let signal) where signal == .sigterm && !stopping && context.stopKind() == .handover:
            handOver()
        case .signal(let signal):
            beginStop(on: signal)
        case .leakCheck:
            scheduler.leakDetector?.check(now: now) { [admission] job in !admission.runsInFlight(of: job).isEmpty }
            statusChanged()
        case .wallClockSet:
            let offsets = context.clocks.offsets
            logger.clockChanged(clockOffsets.change(to: offsets))
            clockOffsets = offsets
            scheduler.wallClockWasSet(active: admission.activeJobs)
            checkSuccessDeadlines()
        case .timeZoneChanged:
            scheduler.timeZoneChanged(to: context.zone(), active: admission.activeJobs)
        case .control(let request, let reply):
            handleControl(request, reply: reply)
        }
    }

    /// What `STATUS=` says, in plain words.
    package var status: String {
        if stopping { return "stopping: waiting for \(admission.running) run(s)" }
        return statusLine.text(scheduler: scheduler, admission: admission, generation: generation,
                        reading: reloads.readingFor(now: now), fleet: fleetStatus.state, now: now)
    }

    /// What `STATUS=` says changed: it goes out now, or with the next one at most
    /// ``StatusLine/interval`` later (the timer).
    func statusChanged() {
        switch statusLine.pace.changed(now: now) {
        case .now: sendStatus()
        case .at(let deadline): statusTimer.arm(at: deadline)
        case .pending: break
        }
    }

    /// Sends `STATUS=` now, with `states` (`READY=1` after a load), and whatever change waited.
    private func sendStatus(with states: NotifyState...) {
        notifier.send(states + [.status(status)])
        statusLine.pace.told(at: now)
    }

    private func handleDue(_ due: DueJob) {
        logger.timerFired(due)
        guard !stopping else { return }
        guard case .due(let elapse) = scheduler.jobDue(due, now: now) else { return logger.ownerRetired(due) }
        perform(admission.due(job: due.job, now: now, elapse: elapse))
    }

    /// Starts a reload: the loader thread reads the configuration (file system reads and account
    /// look-ups may block for long), and the loop goes on scheduling meanwhile. A SIGHUP during a
    /// reload makes another one follow it.
    private func beginReload(_ cache: JobFileCache, because reason: String? = nil) {
        notifier.send(.reloading)
        logger.event(.reloadStart, "reloading \(options.configDirectory)" + (reason.map { ": \($0)" } ?? ""), [:])
        let post = context.post
        context.configuration.read(using: cache) { post(.configurationRead($0, $1)) }
        reloadWatch.arm(at: now + Self.slowReloadNotice)
    }

    /// Applies what the loader read, each job file on its own (``Generation/init(_:after:)``): the
    /// valid changes apply, and the errors are in the journal, `STATUS=` and `jobctl reload`'s output.
    private func finishReload(_ configuration: JobdConfiguration) {
        let configuration = context.launcher.tracking.applicable(configuration, own: context.launcher.host.ownLimits)
        for warning in context.launcher.tracking.devicePolicyWarnings(configuration.jobs) { logger.warning("\(warning)") }
        reloadWatch.arm(at: nil)
        let answer: (report: ReloadReport, watchers: [ControlReply])
        if let fatal = configuration.fatal {
            logger.reloadRejected(fatal, generation: scheduler.generation.number)
            answer = reloads.rejected(fatal, generation: scheduler.generation.number, finishedRealtimeUSec: wallNowUSec)
        } else {
            let previous = generation
            let generation = Generation(configuration, after: previous)
            if generation.settings != settings { context.apply(generation.settings, logger: logger) }
            scheduler.catchUpBurst = generation.settings.catchUpBurst ?? 0
            // The reader looked again at zone files that changed (a tzdata upgrade): so does the
            // local zone, which calendar triggers without a zone of their own follow.
            let zone = context.zone()
            if zone != scheduler.zone { scheduler.timeZoneChanged(to: zone, active: admission.activeJobs) }
            let summary = scheduler.load(generation, active: admission.activeJobs, now: now)
            // A job whose file is gone takes its kept history with it (once its last run ended).
            for name in summary.removed { context.store.saveHistory(of: name, scheduler.histories[name]) }
            perform(admission.configure(generation, now: now))
            context.publishGeneration(generation)
            // A user who may no longer have jobs has none running either.
            for job in configuration.broken where job.revoked { perform(admission.stop(job: job.name, reason: .revoked)) }
            configureSuccessDeadlines()
            scheduler.leakDetector?.grace = settings.leakGrace.duration
            logger.reloadApplied(summary, configuration: configuration, settings: settings, jobFiles: reloads.jobFiles)
            // Whose each name and error is, for what each user is shown of the report: by uid.
            var jobOwners: [String: UInt32] = [:]
            for (names, source) in [(summary.added + summary.changed, generation), (summary.removed, previous)] {
                for name in names { jobOwners[name] = source.definition(of: name)?.owningUID }
            }
            answer = reloads.applied(summary, errors: configuration.errors, owners: configuration.errorOwners.map { $0.map { .user($0.uid) } ?? .root },
                                     jobOwners: jobOwners, finishedRealtimeUSec: wallNowUSec)
        }
        metricsChanged()
        // A reload frees a generation's worth of definitions and owners, spread over the arenas of
        // the threads that made them; give what is free back rather than keep it resident.
        context.trimMemory()
        sendStatus(with: .ready)
        for watcher in answer.watchers { watcher.finish(with: ControlResponse(type: .reloadResult, reload: answer.report.shown(to: watcher.peer))) }
    }

    /// Shutdown: STOPPING=1, every timer invalidated and every owner released, runs that have not
    /// started dropped, then every running job is stopped: SIGTERM, and SIGKILL after its
    /// `TimeoutStopSec=`.
    private func beginStop(on signal: UnixSignal) {
        guard !stopping else { return }
        notifier.send(.stopping, .status("stopping"))
        logger.event(.daemonStop, "jobd stopping on \(signal): \(admission.running) run(s) in flight", [:])
        stopTimers()
        perform(admission.shutdown())
        scheduler.shutdown()
        answerWaiters("jobd is stopping")
        if admission.running > 0 { sendStatus() }
    }

    /// A restart (issue 36): as a stop for the timers, owners and waiting clients, but every run in
    /// flight is left running and recorded for the next jobd, which adopts it; then jobd exits.
    private func handOver() {
        notifier.send(.stopping, .status("handing \(admission.running) run(s) over to the next jobd"))
        logger.event(.daemonStop, "jobd stopping for a restart: \(admission.running) run(s) in flight are handed over", [:])
        stopTimers()
        // Before the owners go: an every-second job keeps its pace in the next jobd.
        context.store.keepPace(of: scheduler.histories)
        scheduler.shutdown()
        answerWaiters("jobd is restarting")
        handOverRuns()
        handedOver = true
        context.exitAfterHandover()
    }

    private func stopTimers() {
        retryTimer.timer.invalidate(reason: .shutdown)
        overdueTimer.timer.invalidate(reason: .shutdown)
        reloadWatch.timer.invalidate(reason: .shutdown)
        metrics.stop()
        if metrics.isDirty { writeMetrics() }
    }

    private func answerWaiters(_ message: String) {
        for waiter in reloads.shutdown() {
            waiter.finish(with: .error(message))
        }
        runWaiters.finishAll(with: .error(message))
    }

    /// Something the metrics show changed: they are written now, or a second after the last write.
    func metricsChanged() {
        if settings.metricsFile != nil { metrics.changed(now: now) }
    }

    private func writeMetrics() {
        metrics.write(to: settings.metricsFile, now: now, again: !stopping) { [self] in metricsText }
    }

    /// What `MetricsFile=` says now.
    package var metricsText: String {
        MetricsFile.text(
            scheduler: scheduler, admission: admission, generation: generation, reloads: reloads.outcomes,
            jobdConf: options.configDirectory + "/jobd.conf", clocks: context.clocks, deadlines: successDeadlines)
    }
}
