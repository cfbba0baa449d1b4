/// How a run ended, in systemd's vocabulary for a service's `Result=` (`JOBD_RESULT=` on `run.exit`).
package enum RunResult: String, Sendable, Hashable, CaseIterable {
    /// The command exited with status 0 (or any status, with `-` before it).
    case success
    /// The command exited with a status other than 0.
    case exitCode = "exit-code"
    /// A signal killed the command.
    case signal
    /// A signal killed the command and it dumped core.
    case coreDump = "core-dump"
    /// The run outlived its `RuntimeMaxSec=` and jobd stopped it.
    case timeout
    /// The kernel's OOM killer killed a process in the run's cgroup (past its `MemoryMax=`, or
    /// the machine out of memory).
    case oomKill = "oom-kill"
    /// The command could not be started (no such program, a missing `EnvironmentFile=`, an account
    /// that no longer exists, …).
    case startFailed = "start-failed"
    /// jobd stopped the run on purpose: `Overlap=replace`, `jobctl stop`, or jobd's own stop. Not a failure.
    case stopped
    /// An `Assert…=` of the job did not hold at the start: the command was not run. A failure,
    /// which no `Restart=` retries (as systemd's).
    case assert
    /// The node running it stopped renewing its fleet lease (it died, or lost the database): another
    /// node recorded the run lost when the lease lapsed. A failure.
    case lost
    /// The jobd that ran it stopped without recording its end (it was killed, crashed, or the
    /// watchdog ended it): the next jobd found the run in its state directory and recorded it so.
    /// A failure, which starts `OnFailure=` jobs but no `Restart=` retry: nobody knows whether the
    /// command finished its work.
    case abandoned

    /// Whether the run counts as failed: for `jobctl status`'s exit status, `Restart=on-failure` and `OnFailure=`.
    package var isFailure: Bool {
        switch self {
        case .success, .stopped: false
        case .exitCode, .signal, .coreDump, .timeout, .oomKill, .startFailed, .lost, .assert, .abandoned: true
        }
    }
}
