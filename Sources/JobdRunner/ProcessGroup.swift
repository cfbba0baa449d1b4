import Glibc
import JobdConfig

/// A run's process group (each run is its own session, so the group's id is the run's first pid):
/// what is left of it after the run's main process ended. A process that started a session or
/// group of its own (`setsid`, `setpgid`, a daemonizing double fork) has left the group and is not
/// seen here; systemd would still find it in the service's cgroup. Used where jobd has no
/// delegated cgroup (``RunTracking``); where it has one, a run's own cgroup holds all of its processes.
enum ProcessGroup {
    /// The processes still in group `pgid` (zombies not counted: they are already gone).
    static func members(of pgid: pid_t) -> Int {
        guard kill(-pgid, 0) == 0 || errno == EPERM else { return 0 }
        guard case .success(let names) = FileSystem.directoryEntries("/proc") else { return 1 }
        return names.count { name in
            guard let pid = Int32(name), let (group, state) = groupAndState(of: pid) else { return false }
            return group == pgid && state != "Z" && state != "X"
        }
    }

    /// The process group and state letter of `pid`, from `/proc/PID/stat`: `PID (COMM) STATE PPID
    /// PGRP …`, where COMM may hold spaces and parentheses, so the fields count from its last `)`.
    private static func groupAndState(of pid: pid_t) -> (pid_t, Character)? {
        guard let text = try? String(contentsOfProcFile: "/proc/\(pid)/stat"),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 2, let state = fields[0].first, let group = pid_t(fields[2]) else { return nil }
        return (group, state)
    }
}
