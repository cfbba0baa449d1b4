import CJobdExec
package import JobdUnitFile

/// How a run ended, in the terms systemd writes to the journal.
package enum RunTermination: Sendable, Hashable, CustomStringConvertible {
    /// The process exited with this status.
    case exited(Int32)
    /// A signal killed the process.
    case killed(signal: Int32)
    /// A signal killed the process and it dumped core.
    case dumped(signal: Int32)
    /// The process could not be started; the reason says why.
    case failedToStart(String)
    /// Nobody saw it end: the jobd that started it stopped without recording its end (``RunResult/abandoned``).
    case unknown

    /// `EXIT_CODE=` as systemd writes it.
    package var exitCode: String {
        switch self {
        case .exited: "exited"
        case .killed: "killed"
        case .dumped: "dumped"
        case .failedToStart: "failed-to-start"
        case .unknown: "unknown"
        }
    }

    /// `EXIT_STATUS=` as systemd writes it: the status, or the signal's name.
    package var exitStatus: String {
        switch self {
        case .exited(let status): String(status)
        case .killed(let signal), .dumped(let signal): SignalName.name(of: signal)
        case .failedToStart: String(Self.failedToStartStatus)
        case .unknown: "-"
        }
    }

    /// As a shell reports it: the exit status, 128 plus the signal for a killed run, and for one
    /// that never started 203, systemd's `EXIT_EXEC`, which `EXIT_STATUS=` says too: one number
    /// for "could not start" in the journal, `jobctl run --wait`, `status` and the metrics.
    package var shellStatus: Int32 {
        switch self {
        case .exited(let status): status
        case .killed(let signal), .dumped(let signal): 128 + signal
        case .failedToStart: Self.failedToStartStatus
        case .unknown: 255
        }
    }

    /// systemd's `EXIT_EXEC`, jobd-cgexec's status for a command it could not execute (its header's).
    package static let failedToStartStatus = Int32(EXIT_EXEC)

    /// Why the run could not start, for one that did not.
    package var startFailure: String? {
        if case .failedToStart(let reason) = self { reason } else { nil }
    }

    package var description: String {
        switch self {
        case .exited(let status): "exited with status \(status)"
        case .killed(let signal): "killed by SIG\(SignalName.name(of: signal))"
        case .dumped(let signal): "killed by SIG\(SignalName.name(of: signal)) (core dumped)"
        case .failedToStart(let reason): Self.failedToStartPrefix + reason
        case .unknown: "end unknown: the jobd that ran it stopped without recording it"
        }
    }

    private static let failedToStartPrefix = "failed to start: "

    /// The termination that ``exitCode``, ``exitStatus`` and ``description`` describe, as a saved
    /// history has them; `nil` when they describe none.
    package init?(exitCode: String, exitStatus: String, description: String) {
        switch (exitCode, Int32(exitStatus), SignalName.number(named: exitStatus) ?? Int32(exitStatus)) {
        case ("exited", let status?, _):
            self = .exited(status)
        case ("killed", _, let signal?):
            self = .killed(signal: signal)
        case ("dumped", _, let signal?):
            self = .dumped(signal: signal)
        case ("failed-to-start", _, _) where description.hasPrefix(Self.failedToStartPrefix):
            self = .failedToStart(String(description.dropFirst(Self.failedToStartPrefix.count)))
        case ("unknown", _, _):
            self = .unknown
        default:
            return nil
        }
    }
}

/// How one run ended: what the runner reports, and what the run admission, the job's history (and
/// the file it is kept in), the clients waiting for the run (`jobctl run --wait`, as a `RunReport`
/// on the wire) and the metrics all take as it is. In JobdConfig, the lowest module that the
/// runner, the scheduler and the daemon all see, beside the results and stop reasons it is made of.
package struct RunOutcome: Sendable, Hashable {
    /// The run's number in this jobd; 0 for a run of an earlier jobd, read back from its history.
    package var runID: UInt64
    /// `JOBD_RUN_ID=`: unique across restarts and machines.
    package var invocationID: String {
        get { storedInvocationID.text }
        set { storedInvocationID = StoredInvocationID(newValue) }
    }
    /// The same, kept without an allocation of its own (``StoredInvocationID``).
    private var storedInvocationID: StoredInvocationID
    package var job: String
    package var termination: RunTermination
    /// How it ended, in systemd's words (`JOBD_RESULT=`).
    package var result: RunResult
    /// From its start to its end, as `run.exit` says it (`DURATION_USEC=`).
    package var duration: TimeSpan
    /// Why jobd stopped the run, if it did.
    package var stopReason: StopReason?
    /// When a fleet run stopped by its fence really ended (wall clock, microseconds since the
    /// epoch), as its supervisor saw it: jobd may have been stopped then, and heard of it later.
    package var fencedEnd: Int64?

    package init(
        runID: UInt64, invocationID: String, job: String, termination: RunTermination, result: RunResult, duration: TimeSpan,
        stopReason: StopReason? = nil, fencedEnd: Int64? = nil
    ) {
        self.runID = runID
        self.storedInvocationID = StoredInvocationID(invocationID)
        self.job = job
        self.termination = termination
        self.result = result
        self.duration = duration
        self.stopReason = stopReason
        self.fencedEnd = fencedEnd
    }

    /// Whether the run counts as a success (`-` before the command ignores a failing status).
    package var succeeded: Bool { result == .success }

    /// The result of a run that ended as `termination`: a run jobd stopped at `RuntimeMaxSec=` timed
    /// out, one it stopped for another reason was stopped, whatever its exit status; one in whose
    /// cgroup the kernel's OOM killer killed a process (`oomKilled`) ended `oom-kill`, as systemd's
    /// service does, whatever its exit status (the killed process may not be the main one, whose
    /// shell then exits 137).
    package static func result(
        of termination: RunTermination, stopReason: StopReason?, ignoresFailure: Bool, success: SuccessExitStatus = SuccessExitStatus(),
        oomKilled: Bool = false
    ) -> RunResult {
        if case .failedToStart = termination { return .startFailed }
        if case .unknown = termination { return .abandoned }
        switch stopReason {
        case .runtimeExceeded?: return .timeout
        case .oomKill?: return .oomKill
        case .replaced?, .requested?, .shutdown?, .revoked?: return .stopped
        case .leaseLost?: return .lost
        case nil: break
        }
        if oomKilled { return .oomKill }
        switch termination {
        case .exited(let status): return status == 0 || ignoresFailure || success.statuses.contains(status) ? .success : .exitCode
        case .killed(let signal): return success.signals.contains(signal) ? .success : .signal
        case .dumped(let signal): return success.signals.contains(signal) ? .success : .coreDump
        case .failedToStart: return .startFailed
        case .unknown: return .abandoned
        }
    }
}
