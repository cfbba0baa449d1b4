package import JobdCalendar
package import JobdConfig
package import JobdFleet
package import JobdHandover
package import JobdRunner
package import JobdScheduler
import JobdState
import Logging

/// What the main loop reads time, files and processes through, and where its events go: the
/// system's in jobd (``Daemon``), doubles in tests, which then drive ``MainLoop/handle(_:)`` on a
/// manual timer queue in milliseconds, with no process started.
package struct DaemonContext: Sendable {
    /// The monotonic clock runs and timers are measured by, and the wall clock operators read.
    package var clocks: Scheduler.Clocks
    /// Where a reload reads the configuration.
    package var configuration: any ConfigurationSource
    /// What survives a restart: disabled jobs, the jobs' histories.
    package var store: any DaemonStateStore
    /// Starts and stops the runs' processes.
    package var launcher: any RunLauncher
    /// The fleet's claims (`[Fleet]` in jobd.conf), or `nil` without a fleet.
    package var fleet: (any FleetClaims)?
    /// Where the loop's own events go (a run ended, a timer of its own fired, a reload read).
    package var post: @Sendable (DaemonEvent) -> Void
    /// The local time zone, as it is now.
    package var zone: @Sendable () -> TimeZoneRules
    /// Gives free memory back to the system (after a reload freed a generation, and once a burst
    /// of runs has drained: ``BurstTrim``).
    package var trimMemory: @Sendable () -> Void = {}
    /// How many runs jobd's descriptors allow in flight at once (`nil`: no bound).
    package var runsInFlightCeiling: Int?
    /// Applies `UserConnectionsMax=` to the control socket, at start and at each reload.
    package var limitUserConnections: @Sendable (Int) -> Void = { _ in }
    /// Gives the connections' threads the generation the loop applies now (``ControlAuthorizer``).
    package var publishGeneration: @Sendable (Generation) -> Void = { _ in }
    /// What a SIGTERM means now: a restart that hands the runs over, or a stop (issue 36).
    package var stopKind: @Sendable () -> StopKind = { .stop }
    /// After a handover: the process ends, its runs left running (``Daemon`` exits).
    package var exitAfterHandover: @Sendable () -> Void = {}
    /// The pipes the jobd before left in systemd's file descriptor store, by name, taken once.
    package var takeStoredDescriptors: @Sendable () -> [String: Int32] = { [:] }
    /// Puts a run's pipe in systemd's file descriptor store under `name`.
    package var storeDescriptor: @Sendable (Int32, String) -> Void = { _, _ in }
    /// Forgets jobd-keeper's records of every process but these (at start, once runs are adopted).
    package var forgetKeeperRecords: @Sendable (Set<Int32>) -> Void = { _ in }
    /// How the process ended, if jobd-keeper has recorded it yet.
    package var keeperRecord: @Sendable (ProcessIdentity) -> EndedRun? = { _ in nil }
    /// How the process of a run handed over ended, as jobd-keeper recorded it, waiting for the
    /// record if the process has just ended (``RunTermination/unknown`` when there is none).
    package var keeperEnd: @Sendable (ProcessIdentity) async -> RunTermination = { _ in .unknown }
    /// The start time of the live process `pid` (`/proc/PID/stat`), `nil` when there is none.
    package var processStartTicks: @Sendable (Int32) -> UInt64? = { _ in nil }
    /// Fault injection (``DaemonFaults/stall``, the tests' own build only): blocks the loop, as a hung filesystem would.
    package var stall: (@Sendable () -> Void)?

    package init(
        clocks: Scheduler.Clocks, configuration: any ConfigurationSource, store: any DaemonStateStore,
        launcher: any RunLauncher, fleet: (any FleetClaims)? = nil, post: @escaping @Sendable (DaemonEvent) -> Void,
        zone: @escaping @Sendable () -> TimeZoneRules = { .utc }
    ) {
        self.clocks = clocks
        self.configuration = configuration
        self.store = store
        self.launcher = launcher
        self.fleet = fleet
        self.post = post
        self.zone = zone
    }

    /// Applies `jobd.conf`'s settings beyond the loop's own: the runs' task limit, the users' output
    /// budget and the control socket's `UserConnectionsMax=`, at start and at each reload that changed them.
    func apply(_ settings: DaemonSettings, logger: Logger) {
        launcher.tracking.limitTasks(settings, logger: logger)
        launcher.outputBudget.configure(settings.userLogRateLimit)
        limitUserConnections(settings.userConnectionsMax)
    }
}

/// Where the configuration comes from.
package protocol ConfigurationSource: Sendable {
    /// Reads the configuration off the main loop (file system reads and account look-ups may block
    /// for long), reading again only the job files that changed since `cache`; calls `done` with
    /// what it read, on any thread.
    func read(using cache: JobFileCache, done: @escaping @Sendable (JobdConfiguration, JobFileCache) -> Void)
}

/// What jobd keeps across restarts, as the main loop writes it.
package protocol DaemonStateStore: Sendable {
    func disabledJobs() -> Set<String>
    func setDisabled(_ job: String, _ disabled: Bool)
    func saveHistory(of job: String, _ history: JobHistory?)
    /// Keeps `run` as in flight until ``runEnded(_:)`` says it ended: what the next jobd records
    /// as abandoned if this one stops first without a word (``abandonedRuns()``).
    func runStarted(_ run: RunInFlightRecord)
    func runEnded(_ invocationID: String)
    /// The runs an earlier jobd kept as in flight and never recorded the end of, oldest first;
    /// each is forgotten once it is recorded (``runEnded(_:)``).
    func abandonedRuns() -> [RunInFlightRecord]
    /// At a handover: every job's history with the monotonic instants its schedule counts from, for
    /// the next jobd of this boot (``JobHistory/savedText(pace:)``).
    func keepPace(of histories: JobHistories)
}

extension DaemonStateStore {
    package func keepPace(of histories: JobHistories) {}
}

/// Starts runs and stops them.
package protocol RunLauncher: Sendable {
    /// Cgroups or process groups: what limits the runs can be given.
    var tracking: RunTracking { get }
    /// Who follows which run's output (`jobctl run --wait`).
    var outputTaps: RunOutputTaps { get }
    /// Each user's budget of journal lines for their own jobs' output (jobd.conf).
    var outputBudget: OutputBudget { get }
    /// Starts a run of `definition` as `request`; `ended` is called (on any thread) with its outcome.
    func launch(
        _ definition: JobDefinition, as request: RunRequest, context: [String: String], fields: [String: String],
        sendmail: String, fence: RunFence?, ended: @escaping @Sendable (RunOutcome) -> Void)
    /// Mails `definition`'s `MailTo=` that the job fell overdue at `deadline` (`ExpectSuccessWithinSec=`),
    /// off the main loop: the account look-up and sendmail may block.
    func mailOverdue(_ definition: JobDefinition, deadline: RealtimeInstant, lastSuccess: RealtimeInstant?, sendmail: String)
    /// Stops every run in flight of `job`.
    func stop(job: String, reason: StopReason)
    /// Stops every run in flight, and any that starts from now on; with `within`, each gets SIGKILL
    /// once `within` has passed at the latest, whatever its `TimeoutStopSec=`.
    func stopAll(reason: StopReason, within: TimeSpan?)
    /// The process of run `runID`, while it runs.
    func pid(of runID: UInt64) -> Int32?
    /// The machine runs are judged on: their `Condition…=`, and jobd's own limits for their `Limit…=`.
    var host: any HostFacts { get }
    /// Follows `adopted`, a run an earlier jobd started, as `request` (issue 36); `ended` as for ``launch``.
    /// A fleet run whose claim this jobd took over keeps its `fence`: stopped by it, it ends `lost`.
    func adopt(
        _ definition: JobDefinition, as request: RunRequest, adopted: AdoptedProcess, fields: [String: String], sendmail: String,
        fence: RunFence?, ended: @escaping @Sendable (RunOutcome) -> Void)
    /// Leaves every run in flight running and returns them, for the next jobd (a restart).
    func handOver() -> [JobRunner.HandedRun]
}

extension RunLauncher {
    /// A launcher of no real processes adopts a run as it starts one.
    package func adopt(
        _ definition: JobDefinition, as request: RunRequest, adopted: AdoptedProcess, fields: [String: String], sendmail: String,
        fence: RunFence?, ended: @escaping @Sendable (RunOutcome) -> Void
    ) {
        launch(definition, as: request, context: [:], fields: fields, sendmail: sendmail, fence: fence, ended: ended)
    }

    package func handOver() -> [JobRunner.HandedRun] { [] }

    /// The first of `definition`'s `Condition…=` that does not hold now, if one does not.
    package func unmetCondition(of definition: JobDefinition) -> UnitCondition? {
        host.failing(definition, assertions: false)
    }
}

/// Claims of fleet jobs' elapses, off the main loop.
package protocol FleetClaims: Sendable {
    var settings: FleetSettings { get }
    /// Claims `key` for `request`; `verdict` is called (on any thread) with the answer.
    func claim(_ key: ClaimKey, for request: RunRequest, verdict: @escaping @Sendable (ClaimVerdict) -> Void)
    /// Records the result of the run that holds a claim, and, for a run its fence stopped, when it
    /// really ended.
    func finish(runID: String, result: String, endedAt: RealtimeInstant?)
    /// The fence of a claimed run (`JOBD_RUN_ID`), which its supervisor watches.
    func fence(ofRun runID: String) -> RunFence?
    /// Carries over the claims and fences an earlier jobd left (issue 36): takes over the kept
    /// claims, ends the released ones with `result`, and removes the fences `decision` names.
    func carryOver(_ decision: ClaimCarryOver, jobs: [String: String], result: String)
    /// The names in the fence directory, which an earlier jobd may have left.
    func leftFences() -> [String]
}

extension DaemonContext {
    /// Claims the request's elapse off the main loop; the verdict comes back as `.fleetClaimed`.
    func claim(_ request: RunRequest) {
        guard let fleet, let elapse = request.scheduledElapse else {
            post(.fleetClaimed(request, .unavailable(reason: "no-fleet")))
            return
        }
        let post = self.post
        fleet.claim(ClaimKey(job: request.job, elapse: elapse, attempt: request.attempt), for: request) { post(.fleetClaimed(request, $0)) }
    }

    /// A run ended: its claim, if this node holds one, records the result (whatever the job's
    /// definition says now: a reload may have removed it meanwhile), with the time a run its fence
    /// stopped really ended.
    func fleetRunEnded(_ outcome: RunOutcome) {
        fleet?.finish(runID: outcome.invocationID, result: outcome.result.rawValue,
                      endedAt: outcome.fencedEnd.map(RealtimeInstant.init(microseconds:)))
    }
}

extension StateDirectory: DaemonStateStore {}
