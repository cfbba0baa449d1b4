import Glibc
package import JobdConfig
package import JobdTimers

#if canImport(System)
import System
#else
import SystemPackage
#endif

/// How a run ended, in the terms systemd writes to the journal.
package enum RunTermination: Sendable, Equatable, CustomStringConvertible {
    /// The process exited with this status.
    case exited(Int32)
    /// A signal killed the process.
    case killed(signal: Int32)
    /// A signal killed the process and it dumped core.
    case dumped(signal: Int32)
    /// The process could not be started; the reason says why.
    case failedToStart(String)

    /// `EXIT_CODE=` as systemd writes it.
    package var exitCode: String {
        switch self {
        case .exited: "exited"
        case .killed: "killed"
        case .dumped: "dumped"
        case .failedToStart: "failed-to-start"
        }
    }

    /// `EXIT_STATUS=` as systemd writes it: the status, or the signal's name.
    package var exitStatus: String {
        switch self {
        case .exited(let status): String(status)
        case .killed(let signal), .dumped(let signal): SignalName.name(of: signal)
        case .failedToStart: "203"
        }
    }

    /// As a shell reports it: the exit status, 128 plus the signal for a killed run, and for one
    /// that never started 203, systemd's `EXIT_EXEC`, which `EXIT_STATUS=` says too: one number
    /// for "could not start" in the journal, `jobctl run --wait`, `status` and the metrics.
    package var shellStatus: Int32 {
        switch self {
        case .exited(let status): status
        case .killed(let signal), .dumped(let signal): 128 + signal
        case .failedToStart: 203
        }
    }

    /// Why the run could not start, for one that did not.
    package var startFailure: String? {
        if case .failedToStart(let reason) = self { reason } else { nil }
    }

    package var description: String {
        switch self {
        case .exited(let status): "exited with status \(status)"
        case .killed(let signal): "killed by SIG\(SignalName.name(of: signal))"
        case .dumped(let signal): "killed by SIG\(SignalName.name(of: signal)) (core dumped)"
        case .failedToStart(let reason): "failed to start: \(reason)"
        }
    }
}

/// A finished run.
package struct RunOutcome: Sendable {
    package var runID: UInt64
    /// `JOBD_RUN_ID=`: unique across restarts and machines.
    package var invocationID: String
    package var job: String
    package var pid: Int32?
    package var termination: RunTermination
    package var started: MonotonicInstant
    package var finished: MonotonicInstant
    /// How it ended, in systemd's words (`JOBD_RESULT=`).
    package var result: RunResult
    /// Why jobd stopped the run, if it did.
    package var stopReason: StopReason?
    /// When a fleet run stopped by its fence really ended (wall clock, microseconds since the
    /// epoch), as its supervisor saw it: jobd may have been stopped then, and heard of it later.
    package var fencedEnd: Int64?
    /// The mail the run's output is to go out as (`MailTo=`), sent after the run is reported.
    package var mail: RunMail?

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
        switch stopReason {
        case .runtimeExceeded?: return .timeout
        case .oomKill?: return .oomKill
        case .replaced?, .requested?, .shutdown?: return .stopped
        case .leaseLost?: return .lost
        case nil: break
        }
        if oomKilled { return .oomKill }
        switch termination {
        case .exited(let status): return status == 0 || ignoresFailure || success.statuses.contains(status) ? .success : .exitCode
        case .killed(let signal): return success.signals.contains(signal) ? .success : .signal
        case .dumped(let signal): return success.signals.contains(signal) ? .success : .coreDump
        case .failedToStart: return .startFailed
        }
    }
}

extension RunOutcome {
    /// A run's outcome as a launcher other than ``JobRunner`` reports it (the daemon's tests).
    package init(
        runID: UInt64, invocationID: String, job: String, termination: RunTermination, started: MonotonicInstant,
        finished: MonotonicInstant, result: RunResult, stopReason: StopReason? = nil
    ) {
        self.init(runID: runID, invocationID: invocationID, job: job, pid: nil, termination: termination, started: started,
                  finished: finished, result: result, stopReason: stopReason, mail: nil)
    }
}

extension RunTermination {
    /// How a process killed by `signal` ended. swift-subprocess reports a core dump (`CLD_DUMPED`)
    /// as a plain signal, so this applies the kernel's own conditions for writing one: a signal
    /// whose default action dumps core, and a core size limit above zero or a `core_pattern` that
    /// pipes to a handler (which the limit does not stop). It says `killed` for a dump that failed
    /// to be written.
    /// `coreLimit`: the run's own soft `RLIMIT_CORE` where it has one (`LimitCORE=`), else jobd's,
    /// which the run inherited.
    static func signaled(_ signal: Int32, coreLimit: UInt64? = nil) -> RunTermination {
        let dumpsCore: Set<Int32> = [SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS, SIGXCPU, SIGXFSZ]
        guard dumpsCore.contains(signal) else { return .killed(signal: signal) }
        var limit = rlimit()
        let limited = coreLimit.map { $0 == 0 } ?? (getrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit) == 0 && limit.rlim_cur == 0)
        guard limited else { return .dumped(signal: signal) }
        let pattern = (try? String(contentsOfProcFile: "/proc/sys/kernel/core_pattern")) ?? ""
        return pattern.hasPrefix("|") ? .dumped(signal: signal) : .killed(signal: signal)
    }
}

extension String {
    /// A small file from /proc, read with one read(2).
    init(contentsOfProcFile path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Errno(rawValue: errno) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { throw Errno(rawValue: errno) }
        self = String(decoding: buffer.prefix(count), as: UTF8.self)
    }
}
