import Glibc
import JobdConfig

/// A run's process group (each run is its own session, so the group's id is the run's first pid):
/// what is left of it after the run's main process ended. A process that started a session or
/// group of its own (`setsid`, `setpgid`, a daemonizing double fork) has left the group and is not
/// seen here; systemd would still find it in the service's cgroup. Used where jobd has no
/// delegated cgroup (``RunTracking``); where it has one, a run's own cgroup holds all of its processes.
enum ProcessGroup {
    /// The processes still in group `pgid` (zombies and processes already exiting not counted:
    /// they are gone, or going, and nothing can stop that).
    static func members(of pgid: pid_t) -> Int {
        guard kill(-pgid, 0) == 0 || errno == EPERM else { return 0 }
        guard case .success(let names) = FileSystem.directoryEntries("/proc") else { return 1 }
        return names.count { name in
            guard let pid = Int32(name), let process = stat(of: pid), process.group == pgid else { return false }
            return !process.isGone && !hasKillPending(pid)
        }
    }

    /// Whether `pid` is still running and not on its way out: not a zombie, not exiting, no SIGKILL
    /// pending. A process killed with SIGKILL is not left behind, however late it is scheduled.
    static func isStaying(_ pid: pid_t) -> Bool {
        guard let process = stat(of: pid) else { return false }
        return !process.isGone && !hasKillPending(pid)
    }

    private static func stat(of pid: pid_t) -> ProcessStat? {
        (try? String(contentsOfProcFile: "/proc/\(pid)/stat")).flatMap(ProcessStat.init)
    }

    /// Whether `pid` has SIGKILL pending (sent, not yet acted on): a process that is about to exit.
    static func hasKillPending(_ pid: pid_t) -> Bool {
        guard let status = try? String(contentsOfProcFile: "/proc/\(pid)/status") else { return false }
        return ProcessStat.killPending(status: status)
    }
}

/// What jobd reads of `/proc/PID/stat` and `/proc/PID/status`: pure, so that tests need no process.
struct ProcessStat: Equatable {
    var state: Character
    var group: pid_t
    /// The kernel's task flags (field 9); `PF_EXITING` (0x4) is set once the process began to exit.
    var flags: UInt64

    init(state: Character, group: pid_t, flags: UInt64) {
        self.state = state
        self.group = group
        self.flags = flags
    }

    /// `PID (COMM) STATE PPID PGRP SESSION TTY TPGID FLAGS …`, where COMM may hold spaces and
    /// parentheses, so the fields count from its last `)`.
    init?(_ text: String) {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 6, let state = fields[0].first, let group = pid_t(fields[2]), let flags = UInt64(fields[6]) else { return nil }
        self.state = state
        self.group = group
        self.flags = flags
    }

    /// A zombie, dead, or exiting process.
    var isGone: Bool { state == "Z" || state == "X" || flags & 0x4 != 0 }

    /// Whether the `SigPnd:` or `ShdPnd:` mask of a `/proc/PID/status` text has SIGKILL (9: bit 8).
    static func killPending(status text: String) -> Bool {
        text.split(separator: "\n").contains { line in
            guard line.hasPrefix("SigPnd:") || line.hasPrefix("ShdPnd:"),
                  let word = line.split(whereSeparator: { $0 == "\t" || $0 == " " }).last,
                  let mask = UInt64(word, radix: 16) else { return false }
            return mask & (1 << (SIGKILL - 1)) != 0
        }
    }
}
