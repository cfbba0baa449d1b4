package import JobdConfig
import JobdLogging

/// One run, from its `Assert…=` to its `run.exit`, as a pure state machine: each event (the account
/// was resolved, the cgroup made, the process spawned or exited, a stop asked for, the stop's
/// timeout passed…) returns the actions to perform, in order, as ``RunAdmission`` does for admission.
/// It reads no clock, touches no file and starts no process: ``JobRunner`` performs its actions
/// through a ``RunDriver`` and tells it what came of them, and tests drive it event by event.
///
/// What it decides: which step comes next, the run's result (from its termination, the reason jobd
/// stopped it and the OOM killer), when SIGTERM and SIGKILL go, whether the cgroup and `PrivateTmp=`'s
/// directories stay for the processes `KillMode=process` leaves, what `run.start` and `run.exit`
/// say, whether mail is due, and the outcome.
package struct RunLifecycle: Sendable {
    package enum Phase: Sendable, Hashable {
        /// `Assert…=`, the account, the environment files and the working directory.
        case preparing
        /// The cgroup and `PrivateTmp=`'s directories.
        case placing
        /// The process is being started; it has no pid yet.
        case spawning
        case running
        /// SIGTERM went; SIGKILL follows after `TimeoutStopSec=` unless the process exits first.
        case stopping
        /// The process ended (or never started): its fence, leftovers, cgroup and directories.
        case reaping
        case done
    }

    package enum Event: Sendable, Equatable {
        /// Every `Assert…=` holds (or the job has none).
        case assertionsHeld
        /// This `Assert…=` does not hold: the run ends `assert` before anything of it starts.
        case assertionFailed(String)
        case accountResolved
        case accountFailed(String)
        /// `EnvironmentFile=`s read and the working directory resolved.
        case environmentRead
        case environmentFailed(String)
        /// The run's cgroup, at `path`, or `nil` where the run is tracked by its process group.
        case cgroupMade(path: String?)
        case cgroupFailed(String)
        case privateTmpMade
        case privateTmpFailed(String)
        /// The process runs its command (the trampoline's handshake, if any, succeeded).
        case spawned(pid: Int32)
        case spawnFailed(String)
        case exited(RunTermination)
        /// `RuntimeMaxSec=`, `jobctl stop`, jobd's stop, `Overlap=replace`, an OOM kill…
        case stopRequested(StopReason)
        /// SIGTERM went to the run's processes (or waits for its process, not started yet).
        case stopSent
        /// The main process had already ended when the stop was to be sent, its end not yet heard:
        /// nothing was sent, and the run ends as its process did, not stopped (issue 39).
        case endedBeforeStop
        /// `TimeoutStopSec=` passed since SIGTERM.
        case stopTimeoutElapsed
        /// The run's fence stopped it: its node lost the fleet lease. `endedAt`: when, wall clock µs.
        case fenceStopped(endedAt: Int64?)
        /// The fence did not stop it.
        case fenceHeld
        /// How many processes the run left in its process group or cgroup when its main process ended.
        case leftoversCounted(Int)
        /// The leftovers of a `KillMode=control-group` run are gone.
        case leftoversStopped
        /// The cgroup is removed (or kept), and what the run used, read from it before.
        case cgroupRemoved(usage: RunUsage?, oomKills: UInt64)
        case privateTmpRemoved
        /// The run left the registry; `elapsed` since it began.
        case reaped(elapsed: TimeSpan)
    }

    package enum Action: Sendable, Equatable {
        case checkAssertions
        case resolveAccount
        /// Read `EnvironmentFile=`s and resolve the working directory.
        case readEnvironment
        case makeCgroup
        case makePrivateTmp
        /// Start the process; it reports ``Event/spawned(pid:)`` then ``Event/exited(_:)``, or ``Event/spawnFailed(_:)``.
        case spawn
        /// Watch for `RuntimeMaxSec=`, stop requests and OOM kills beside the process.
        case watch
        /// Log `run.start` with the pid.
        case logStart(pid: Int32, fields: [String: String])
        /// Log `run.start` at error: the run could not start, and why.
        case logStartFailure(message: String, fields: [String: String])
        /// Unless the main process has already ended (``Event/endedBeforeStop``): log the stop
        /// (`run.timeout` or `run.stop`) and send SIGTERM and SIGCONT to the run's processes (``Event/stopSent``).
        case terminate(StopReason, fields: [String: String])
        /// Report ``Event/stopTimeoutElapsed`` once `TimeoutStopSec=` (bounded by jobd's own stop) has passed.
        case armStopTimeout
        /// Log `run.kill` and send SIGKILL to the run's processes.
        case kill(fields: [String: String])
        /// Stop watching: the process was reaped.
        case stopWatching
        /// Ask the fence whether it stopped the run.
        case checkFence
        /// Log `run.stop` with `lease-lost`.
        case logFenceStop(fields: [String: String])
        case countLeftovers
        /// Log `run.leftovers` and stop them: SIGTERM, SIGKILL after `TimeoutStopSec=`.
        case stopLeftovers(count: Int, fields: [String: String])
        /// Log `run.leftovers`: `KillMode=process` leaves them running.
        case keepLeftovers(count: Int, fields: [String: String])
        /// Read what the run used and remove its cgroup, or keep it while processes the run left are in it.
        case removeCgroup(keep: Bool)
        case removePrivateTmp
        /// Take the run out of the registry and read the clock.
        case reap
        case logExit(message: String, fields: [String: String], failure: Bool)
        /// Compose the run's mail (`MailTo=`) from its output; sent after the run is reported.
        case mail(result: RunResult, fields: [String: String])
        /// The run is over: report it.
        case finish(RunOutcome)
    }

    /// What the run is, of its definition, as far as its decisions need it.
    package struct Plan: Sendable, Equatable {
        package var job: String
        package var runID: UInt64
        package var invocationID: String
        package var command: String
        package var needsAccount: Bool
        package var privateTmp: Bool
        package var killMode: KillMode
        package var ignoresFailure: Bool
        package var success: SuccessExitStatus
        package var hasFence: Bool
        package var mailTo: [String]
        package var mailOn: MailPolicy

        package init(_ definition: JobDefinition, runID: UInt64, invocationID: String, hasFence: Bool) {
            job = definition.name
            self.runID = runID
            self.invocationID = invocationID
            command = definition.command.text
            needsAccount = definition.user != nil || definition.group != nil || !definition.supplementaryGroups.isEmpty
            privateTmp = definition.sandbox.privateTmp
            killMode = definition.killMode
            ignoresFailure = definition.command.ignoresFailure
            success = definition.successExitStatus
            self.hasFence = hasFence
            mailTo = definition.mailTo
            mailOn = definition.mailOn
        }
    }

    package let plan: Plan
    package internal(set) var phase = Phase.preparing
    /// The run's journal fields: its job and numbers, the caller's, its cgroup; `run.exit`'s at the end.
    package internal(set) var fields: [String: String]
    package internal(set) var pid: Int32?
    package internal(set) var termination: RunTermination?
    /// The first reason jobd gave for stopping the run.
    package internal(set) var stopReason: StopReason?
    package internal(set) var failedAssertion = false
    package internal(set) var hasCgroup = false
    package internal(set) var hasPrivateTmp = false
    package internal(set) var fencedEnd: Int64?
    package internal(set) var leftovers = 0
    var usage: RunUsage?
    var oomKills: UInt64 = 0
    /// Cleanup steps still to report before the run is reaped.
    var pendingCleanup = 0

    package init(_ plan: Plan, fields extraFields: [String: String] = [:]) {
        self.plan = plan
        fields = extraFields.merging([
            JobdField.job: plan.job, JobdField.run: String(plan.runID), JobdField.runID: plan.invocationID,
        ]) { $1 }
    }

    /// The first actions: the run begins with its `Assert…=`.
    package func start() -> [Action] { [.checkAssertions] }
}
