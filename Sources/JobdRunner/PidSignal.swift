import CSpawn
import Glibc

/// Signals to a pid that jobd read a moment before (from a cgroup's `cgroup.procs`, or a run's main
/// process's), sent through a pidfd: the pidfd holds the process the pid named when it was opened,
/// and jobd checks that this process is still the one it meant before it signals it. A process
/// that ended in between is not signalled at all, and neither is another process that was given
/// its pid since: `kill(pid)` would reach that one.
enum PidSignal {
    /// `signal` to `pid` if it is in the cgroup `path` (as `/proc/PID/cgroup` names it) once
    /// pinned. A process that left the cgroup, or a pid now another's, is not signalled.
    static func send(_ signal: Int32, to pid: pid_t, inCgroup path: String) {
        _ = pinned(pid) { pidfd in
            guard let text = CgroupFile.read("/proc/\(pid)/cgroup"), CgroupText.unifiedPath(procSelfCgroup: text) == path else { return }
            _ = pidfd_send_signal(pidfd, signal, nil, 0)
        }
    }

    /// `signal` to jobd's own child `pid` while it has not ended (``ProcessSpawner/hasEnded(_:)``):
    /// once the reactor reaped it, the pid may be another process's. Whether it was sent: not to a
    /// process that is not jobd's child (an adopted run's, the keeper's).
    @discardableResult
    static func send(_ signal: Int32, toChild pid: pid_t) -> Bool {
        pinned(pid) { pidfd in
            // Asked after the pidfd is open: a child not yet reaped now is the pidfd's process.
            !ProcessSpawner.hasEnded(pid) && pidfd_send_signal(pidfd, signal, nil, 0) == 0
        } ?? false
    }

    private static func pinned<Result>(_ pid: pid_t, _ body: (Int32) -> Result) -> Result? {
        guard pid > 0 else { return nil }
        let pidfd = pidfd_open(pid, 0)
        guard pidfd >= 0 else { return nil }
        defer { close(pidfd) }
        return body(pidfd)
    }
}
