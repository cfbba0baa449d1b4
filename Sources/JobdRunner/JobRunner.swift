import Glibc
package import JobdConfig
import JobdLocks
import JobdLogging
import JobdTimers
package import Logging

#if canImport(System)
import System
#else
import SystemPackage
#endif

/// Starts a job's command and waits for it, logging `run.start` (with the PID) and `run.exit`
/// (with `EXIT_CODE=`, `EXIT_STATUS=` and the duration). A command that cannot be started is a
/// failed run that is logged, never an error that reaches the daemon.
///
/// Each run gets its own session (and so its own process group), stdin from `/dev/null`, the job's
/// working directory and account (`User=`, `Group=`), and a clean environment (see
/// ``environment(for:account:files:runID:)``), and, where jobd has a delegated cgroup subtree, a
/// cgroup of its own (``RunTracking``). Each run is stopped when it outlives `RuntimeMaxSec=` or
/// when jobd asks (``RunRegistry``): SIGTERM to its processes, then SIGKILL after `TimeoutStopSec=`.
package struct JobRunner: Sendable {
    /// The `PATH` a job gets unless its `Environment=` sets one: systemd's default for services.
    package static let defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

    let logger: Logger
    private let inheritedLanguage: String?
    /// Every run this runner has in flight.
    package let registry: RunRegistry
    /// Who follows which run's output (`jobctl run --wait`).
    package let outputTaps: RunOutputTaps
    /// Each user's budget of journal lines for their own jobs' output.
    package let outputBudget: OutputBudget
    /// Process groups or cgroups; without one given, found out (and logged) here.
    package let tracking: RunTracking
    /// What performs each run's steps.
    package let driver: any RunDriver
    /// Told each run's process once it runs its command, on the run's own task: jobd records it at
    /// once, so that the next jobd can adopt the run if this one is killed (issue 36), even while
    /// its main loop is behind a burst.
    package var spawned: (@Sendable (SpawnedRun) -> Void)?

    /// jobd's: runs on the system (``SystemRunDriver``), its assertions judged on `host`, each
    /// with `descriptorLimit` as its `RLIMIT_NOFILE` (``DescriptorLimit/runs``; `nil`: jobd's own);
    /// `beforeAccountLookUp` is where a test makes account look-ups slow.
    package init(
        logger: Logger, environment: [String: String], host: any HostFacts, registry: RunRegistry = RunRegistry(),
        tracking: RunTracking? = nil, descriptorLimit: ResourceLimit? = nil, beforeAccountLookUp: (@Sendable () -> Void)? = nil
    ) {
        let tracking = tracking ?? .detect(logger: logger)
        let (taps, budget) = (RunOutputTaps(), OutputBudget())
        let driver = SystemRunDriver(logger: logger, environment: environment, host: host, registry: registry, outputTaps: taps,
                                     outputBudget: budget, tracking: tracking, descriptorLimit: descriptorLimit,
                                     beforeAccountLookUp: beforeAccountLookUp)
        self.init(logger: logger, environment: environment, driver: driver, registry: registry, tracking: tracking, outputTaps: taps,
                  outputBudget: budget)
    }

    /// A runner whose runs `driver` performs (an in-memory one in tests).
    package init(
        logger: Logger, environment: [String: String], driver: any RunDriver, registry: RunRegistry = RunRegistry(),
        tracking: RunTracking, outputTaps: RunOutputTaps = RunOutputTaps(), outputBudget: OutputBudget = OutputBudget()
    ) {
        self.logger = logger
        self.inheritedLanguage = environment["LANG"]
        self.driver = driver
        self.registry = registry
        self.tracking = tracking
        self.outputTaps = outputTaps
        self.outputBudget = outputBudget
    }

    /// The machine runs are judged on.
    package var host: any HostFacts { driver.host }

    /// The environment a run of `definition` gets, as systemd composes a service's: a default
    /// `PATH`, `LANG` from jobd's, `USER`, `LOGNAME`, `HOME` and `SHELL` of its `User=`, then its
    /// `Environment=`, then its `EnvironmentFile=`s (later ones win), then `context` (what a run
    /// started by another job's outcome is told), and `JOBD_JOB`, `JOBD_RUN`, `JOBD_RUN_ID`.
    package func environment(
        for definition: JobDefinition, account: Account? = nil, files: [EnvironmentVariable] = [], runID: UInt64,
        invocationID: String = "", context: [String: String] = [:]
    ) -> [String: String] {
        Self.environment(for: definition, inheritedLanguage: inheritedLanguage, account: account, files: files, runID: runID,
                         invocationID: invocationID, context: context)
    }

    package static func environment(
        for definition: JobDefinition, inheritedLanguage: String?, account: Account?, files: [EnvironmentVariable], runID: UInt64,
        invocationID: String, context: [String: String]
    ) -> [String: String] {
        var environment = ["PATH": Self.defaultPath]
        if let inheritedLanguage { environment["LANG"] = inheritedLanguage }
        if let account, let user = account.userName {
            environment["USER"] = user
            environment["LOGNAME"] = user
            if let home = account.home { environment["HOME"] = home }
            if let shell = account.shell { environment["SHELL"] = shell }
        }
        for variable in definition.environment + files { environment[variable.name] = variable.value }
        environment.merge(context) { $1 }
        environment["JOBD_JOB"] = definition.name
        environment["JOBD_RUN"] = String(runID)
        if !invocationID.isEmpty { environment["JOBD_RUN_ID"] = invocationID }
        return environment
    }

    /// Runs `definition`'s command to completion. `context` is added to its environment; `fields`
    /// to each of its journal entries. A fleet run's `fence` is watched by its supervisor (``RunFence``).
    /// Returns how it ended, and the mail its output is to go out as (`MailTo=`), to be sent after
    /// the run is reported (``mail(_:sendmail:)``).
    ///
    /// The run's ``RunLifecycle`` decides each step; this performs them through the ``driver`` and
    /// hands it what came of them, one event at a time. While the process runs, the run is this
    /// one task waiting on its inbox, and nothing else (issue 39): the driver posts the process's
    /// start and end there from its reactor, the registry its stop requests, and a timer shared
    /// by every run the ends of `RuntimeMaxSec=` and `TimeoutStopSec=` (``RunWatch``).
    ///
    /// With `adopted`, the run is one an earlier jobd started and handed over (issue 36): its
    /// process is followed from where that jobd left it, and its end recorded as any run's.
    package func run(
        _ definition: JobDefinition, runID: UInt64, invocationID: String,
        context: [String: String] = [:], fields extraFields: [String: String] = [:], fence: RunFence? = nil,
        adopted: AdoptedProcess? = nil
    ) async -> (outcome: RunOutcome, mail: RunMail?) {
        finish(await drive(definition, runID: runID, invocationID: invocationID, context: context, fields: extraFields, fence: fence,
                           adopted: adopted))
    }

    /// ``run(_:runID:invocationID:context:fields:fence:adopted:)`` in a task of its own: tells `ended`
    /// how the run ended, then sends its mail, after the run is reported: a slow MTA holds up no
    /// retry or notifier. Neither is kept in the task's frame while the run is in flight (issue 39).
    package func run(
        _ definition: JobDefinition, runID: UInt64, invocationID: String, context: [String: String] = [:],
        fields extraFields: [String: String] = [:], fence: RunFence? = nil, adopted: AdoptedProcess? = nil, sendmail: String,
        ended: @Sendable (RunOutcome) -> Void
    ) async {
        let run = await drive(definition, runID: runID, invocationID: invocationID, context: context, fields: extraFields, fence: fence,
                              adopted: adopted)
        report(run, to: ended)
        if run.mail != nil { await mailDue(of: run, sendmail: sendmail) }
    }

    @inline(never)
    private func report(_ run: RunInProgress, to ended: @Sendable (RunOutcome) -> Void) {
        ended(finish(run).outcome)
    }

    @inline(never)
    private func mailDue(of run: RunInProgress, sendmail: String) async {
        if let mail = run.mail { await self.mail(mail, sendmail: sendmail) }
    }

    /// Performs the run's lifecycle to its end.
    @inline(never)
    private func drive(
        _ definition: JobDefinition, runID: UInt64, invocationID: String, context: [String: String], fields extraFields: [String: String],
        fence: RunFence?, adopted: AdoptedProcess?
    ) async -> RunInProgress {
        // Only the run's reference and its inbox live in this frame, which the task holds while the
        // process runs; the steps are performed in functions of their own, synchronous where they can
        // be: a task keeps its frames' deepest extent until it ends (issue 39).
        let (run, events) = begin(definition, runID: runID, invocationID: invocationID, context: context, fields: extraFields,
                                  fence: fence, adopted: adopted)
        var posted = events.makeAsyncIterator()
        while true {
            switch advance(run) {
            case .perform:
                run.post(await performSuspending(of: run))
            case .wait:
                guard let received = await posted.next() else { return run }
                if let termination = run.receive(received) { run.post([.exited(await termination())]) }
            case .done:
                return run
            }
        }
    }
}

/// A run's process as it runs its command (``JobRunner/spawned``).
package struct SpawnedRun: Sendable {
    package var job: String
    package var invocationID: String
    package var pid: Int32
    /// Its cgroup, where runs are tracked by cgroup.
    package var cgroup: RunCgroup?

    package init(job: String, invocationID: String, pid: Int32, cgroup: RunCgroup?) {
        (self.job, self.invocationID, self.pid, self.cgroup) = (job, invocationID, pid, cgroup)
    }
}
