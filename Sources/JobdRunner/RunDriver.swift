package import JobdProcess
package import JobdConfig
package import JobdTimers

/// What performs a run's actions (``RunLifecycle/Action``) for ``JobRunner``: the system's
/// (``SystemRunDriver``: NSS, files, cgroups, processes), or a test's, in memory, which starts no
/// process and whose clock the test advances. Each method does one step and says what came of it;
/// every decision about what comes next is the lifecycle's, and the run's own journal entries
/// (start, stop, kill, leftovers, exit) are the runner's; the driver logs only what it meets on the
/// way (a line of output, a skipped line of an `EnvironmentFile=`, a cgroup it fell back from).
package protocol RunDriver: Sendable {
    /// The machine the run's `Assert…=` are judged on.
    var host: any HostFacts { get }
    /// The clock a run's duration is measured by.
    func now() -> MonotonicInstant
    /// Calls `fire` once `duration` has passed (`RuntimeMaxSec=`, `TimeoutStopSec=`), from a timer
    /// shared by every run (no task sleeps for a run), unless cancelled first.
    func schedule(after duration: TimeSpan, _ fire: @escaping @Sendable () -> Void) -> RunDriverWatch
    /// `User=`, `Group=` and `SupplementaryGroups=`.
    func resolveAccount(_ definition: JobDefinition) async -> Result<Account?, RunPreparationError>
    /// The `EnvironmentFile=`s, the environment and the working directory of a run.
    func prepare(
        _ definition: JobDefinition, account: Account?, runID: UInt64, invocationID: String, context: [String: String]
    ) async -> Result<SpawnConfiguration, RunPreparationError>
    /// The run's cgroup (`nil`: tracked by its process group), and the task limit it needs as
    /// `RLIMIT_NPROC` where the cgroup cannot hold it.
    func makeCgroup(
        _ definition: JobDefinition, runID: UInt64, invocationID: String, fields: [String: String], user: UInt32?
    ) -> Result<(cgroup: RunCgroup?, tasksRlimit: ResourceLimit?), RunPreparationError>
    func makePrivateTmp(job: String) -> Result<PrivateTmp, RunPreparationError>
    /// Starts the process and returns: what comes of it is reported through `reports`, from
    /// whichever thread learns it (jobd's: the reactor's), so that no task waits for a run's
    /// process. Each line it writes goes to the journal and to `mailed`.
    func spawn(
        _ configuration: SpawnConfiguration, definition: JobDefinition, runID: UInt64, fields: [String: String],
        mailed: (@Sendable (String) -> Void)?, reports: RunProcessReports
    )
    /// Follows a process an earlier jobd handed over, as ``spawn`` does one it starts; `reports`'
    /// `ended` says only that it was followed to its end (`.success(.unknown)`): its exit status is
    /// the keeper's (``AdoptedProcess/end``), which the runner asks.
    func adopt(
        _ process: AdoptedProcess, definition: JobDefinition, runID: UInt64, fields: [String: String],
        mailed: (@Sendable (String) -> Void)?, reports: RunProcessReports
    )
    /// Stops following every run and returns their processes and pipes, open (a handover).
    func handOver() -> [RunReactor.Detached]
    /// Calls `killed` once the OOM killer kills a process in the run's cgroup, unless cancelled
    /// first; never where it cannot tell.
    func watchOOMKills(in cgroup: RunCgroup, _ killed: @escaping @Sendable () -> Void) -> RunDriverWatch
    /// Sends `signal` (SIGTERM with SIGCONT, or SIGKILL) to the run's processes, now or once it has one.
    func signal(runID: UInt64, _ signal: Int32)
    /// Whether jobd's child `pid`, a run's main process, has ended, whether or not its end was
    /// reported yet: a stop asked for after that does not stop the run.
    func hasEnded(pid: Int32) -> Bool
    /// Whether the run's fence stopped it, and when it ended then.
    func fenceStopped(_ fence: RunFence) -> (ended: Int64?, stopped: Bool)
    /// How many processes are left in the run's process group `group`, or its cgroup.
    func countLeftovers(group: Int32, cgroup: RunCgroup?) -> Int
    /// SIGTERM (and SIGCONT) to what is left; true once it is gone within `grace`.
    func terminateLeftovers(group: Int32, cgroup: RunCgroup?, grace: TimeSpan) async -> Bool
    /// SIGKILL to what is left, and a short wait for it to go.
    func killLeftovers(group: Int32, cgroup: RunCgroup?) async
    /// What the run used, how many of its processes the OOM killer killed, and the cgroup removed,
    /// or kept (`keep`) until its last process is gone.
    func removeCgroup(_ cgroup: RunCgroup, keep: Bool) -> (usage: RunUsage?, oomKills: UInt64)
    /// Returns why the directories could not be removed, if they could not.
    func removePrivateTmp(_ privateTmp: PrivateTmp) async -> String?
}

/// What a run's process reports to its run (``RunDriver/spawn(_:definition:runID:fields:mailed:reports:)``).
package struct RunProcessReports: Sendable {
    /// The process runs its command, with this pid; none of its output is forwarded before
    /// `proceed` is called (once `run.start` is logged).
    package var started: @Sendable (_ pid: Int32, _ proceed: @escaping @Sendable () -> Void) -> Void
    /// How it ended once reaped, or why it could not start: called once, last.
    package var ended: @Sendable (Result<RunTermination, RunPreparationError>) -> Void
}

/// A timer or a watch a driver armed for a run: `cancel` disarms it (it may have fired already).
package struct RunDriverWatch: Sendable {
    package var cancel: @Sendable () -> Void

    package init(cancel: @escaping @Sendable () -> Void) {
        self.cancel = cancel
    }

    /// Nothing to cancel: a watch that cannot be had.
    package static let none = RunDriverWatch {}
}

/// Why a run could not be prepared; it is logged and the run counts as failed to start.
package struct RunPreparationError: Error, CustomStringConvertible, Sendable {
    package var description: String

    package init(description: String) {
        self.description = description
    }
}

extension RunDriver {
    /// A driver with no processes of its own hands nothing over.
    package func handOver() -> [RunReactor.Detached] { [] }
}
