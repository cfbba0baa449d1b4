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
    /// Waits `duration` (`RuntimeMaxSec=`, `TimeoutStopSec=`); throws when cancelled.
    func sleep(for duration: TimeSpan) async throws
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
    /// Starts the process and waits until it is reaped: `started` is called with its pid once it
    /// runs its command (and before any of its output is logged); each line it writes goes to the
    /// journal and to `mailed`.
    func spawn(
        _ configuration: SpawnConfiguration, definition: JobDefinition, runID: UInt64, fields: [String: String],
        mailed: (@Sendable (String) -> Void)?, started: @escaping @Sendable (Int32) async -> Void
    ) async -> Result<RunTermination, RunPreparationError>
    /// Follows a process an earlier jobd handed over until it ends, as ``spawn`` does one it starts.
    func adopt(
        _ process: AdoptedProcess, definition: JobDefinition, runID: UInt64, fields: [String: String],
        mailed: (@Sendable (String) -> Void)?, started: @escaping @Sendable (Int32) async -> Void
    ) async -> Result<RunTermination, RunPreparationError>
    /// Stops following every run and returns their processes and pipes, open (a handover).
    func handOver() -> [RunReactor.Detached]
    /// Returns true once the OOM killer killed a process in the run's cgroup; false if it cannot tell.
    func oomKilled(in cgroup: RunCgroup) async -> Bool
    /// Sends `signal` (SIGTERM with SIGCONT, or SIGKILL) to the run's processes, now or once it has one.
    func signal(runID: UInt64, _ signal: Int32)
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
