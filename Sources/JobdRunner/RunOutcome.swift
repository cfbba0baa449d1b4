import JobdTimers

/// How a run ended, in the terms systemd writes to the journal.
public enum RunTermination: Sendable, Equatable, CustomStringConvertible {
    /// The process exited with this status.
    case exited(Int32)
    /// A signal killed the process.
    case killed(signal: Int32)
    /// The process could not be started; the reason says why.
    case failedToStart(String)

    /// `EXIT_CODE=` as systemd writes it.
    public var exitCode: String {
        switch self {
        case .exited: "exited"
        case .killed: "killed"
        case .failedToStart: "failed-to-start"
        }
    }

    /// `EXIT_STATUS=` as systemd writes it: the status, or the signal's name.
    public var exitStatus: String {
        switch self {
        case .exited(let status): String(status)
        case .killed(let signal): SignalName.name(of: signal)
        case .failedToStart: "203"
        }
    }

    /// As a shell reports it: the exit status, 128 plus the signal for a killed run, 127 for one
    /// that never started (the shell's "command not found").
    public var shellStatus: Int32 {
        switch self {
        case .exited(let status): status
        case .killed(let signal): 128 + signal
        case .failedToStart: 127
        }
    }

    public var description: String {
        switch self {
        case .exited(let status): "exited with status \(status)"
        case .killed(let signal): "killed by SIG\(SignalName.name(of: signal))"
        case .failedToStart(let reason): "failed to start: \(reason)"
        }
    }
}

/// A finished run.
public struct RunOutcome: Sendable {
    public var runID: UInt64
    public var job: String
    public var pid: Int32?
    public var termination: RunTermination
    public var started: MonotonicInstant
    public var finished: MonotonicInstant
    /// Whether the run counts as a success (`-` before the command ignores a failing status).
    public var succeeded: Bool
}

enum SignalName {
    static func name(of signal: Int32) -> String {
        let names: [Int32: String] = [
            1: "HUP", 2: "INT", 3: "QUIT", 4: "ILL", 5: "TRAP", 6: "ABRT", 7: "BUS", 8: "FPE", 9: "KILL",
            10: "USR1", 11: "SEGV", 12: "USR2", 13: "PIPE", 14: "ALRM", 15: "TERM", 17: "CHLD", 18: "CONT",
            19: "STOP", 20: "TSTP", 21: "TTIN", 22: "TTOU", 24: "XCPU", 25: "XFSZ", 26: "VTALRM", 27: "PROF",
            31: "SYS",
        ]
        return names[signal] ?? String(signal)
    }
}
