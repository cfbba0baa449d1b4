package import CPidfd
import Glibc
import JobdSystem

/// Awaits the end of any process, also one that is not a child of the test (a job's grandchild),
/// through a pidfd: it becomes readable when the process exits, so waiting is on an event.
package enum ProcessExit {
    /// Whether the process `pid` has ended (exited, or a zombie) within `timeout`. A pid that no
    /// longer exists has ended.
    package static func wait(for pid: pid_t, timeout: Duration = .seconds(30)) -> Bool {
        let fd = pidfd_open(pid, 0)
        guard fd >= 0 else { return errno == ESRCH }
        defer { close(fd) }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1_000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return retryingOnInterrupt { poll(&descriptor, 1, milliseconds) } == 1
    }

    /// Whether the process `pid` is alive now (a zombie is not).
    package static func isAlive(_ pid: pid_t) -> Bool {
        !wait(for: pid, timeout: .zero)
    }
}
