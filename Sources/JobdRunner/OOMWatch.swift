import CEventfd
import Glibc
import JobdLocks
import JobdSystem

/// Waits until the kernel's OOM killer strikes in a run's cgroup, so that jobd stops the rest of
/// the run then, as systemd stops a service under its default `OOMPolicy=stop`, rather than when
/// its main process happens to end. On the unified hierarchy the kernel notifies a change of
/// `memory.events` (inotify), and a rise of its `oom_kill` is the kill; on a cgroup v1 memory
/// cgroup it signals an eventfd registered in `cgroup.event_control` for `memory.oom_control` when
/// the cgroup runs out of memory, just before its OOM killer picks a victim. The wait blocks a
/// thread of its own; cancelling the watch wakes it through an eventfd of its own, and it ends.
final class OOMWatch: Sendable {
    /// The inotify or eventfd descriptor the kernel signals.
    private let notification: Int32
    /// The cgroup v2 `memory.events` whose `oom_kill` counts the kills; `nil` on v1, where the
    /// signal itself is the event.
    private let events: String?
    /// The eventfd that wakes the thread.
    private let wake: Int32

    private init(notification: Int32, events: String?, wake: Int32) {
        self.notification = notification
        self.events = events
        self.wake = wake
    }

    /// A watch of `cgroup`'s memory, or `nil` where the kernel offers no notification (no memory
    /// controller for the run: then its OOM kills are still counted when it ends).
    static func start(_ cgroup: RunCgroup) -> OOMWatch? {
        let wake = eventfd(0, Int32(EFD_CLOEXEC))
        guard wake >= 0 else { return nil }
        let notification: Int32
        var events: String?
        if let memory = cgroup.legacy["memory"] {
            notification = eventfd(0, Int32(EFD_CLOEXEC))
            let control = open(memory + "/memory.oom_control", O_RDONLY | O_CLOEXEC)
            defer { if control >= 0 { close(control) } }
            guard notification >= 0, control >= 0,
                  CgroupFile.write(memory + "/cgroup.event_control", "\(notification) \(control)") == nil else {
                if notification >= 0 { close(notification) }
                close(wake)
                return nil
            }
        } else {
            notification = inotify_init1(Int32(IN_CLOEXEC))
            events = cgroup.directory + "/memory.events"
            guard notification >= 0, inotify_add_watch(notification, events, UInt32(IN_MODIFY)) >= 0 else {
                if notification >= 0 { close(notification) }
                close(wake)
                return nil
            }
        }
        return OOMWatch(notification: notification, events: events, wake: wake)
    }

    deinit {
        close(notification)
        close(wake)
    }

    /// Waits on a thread of its own and calls `killed` once the OOM killer struck in the cgroup;
    /// the watch returned wakes the thread (the run ended), and it ends without calling it.
    func begin(_ killed: @escaping @Sendable () -> Void) -> RunDriverWatch {
        do {
            try DetachedThread.start { if self.block() { killed() } }
        } catch {
            return .none
        }
        return RunDriverWatch { [self] in
            var one: UInt64 = 1
            _ = Glibc.write(wake, &one, 8)
        }
    }

    /// On its own thread: sleeps in poll(2) until the kernel or the wake eventfd says something.
    private func block() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        while true {
            if let events, (CgroupFile.read(events).flatMap { CgroupText.oomKills(events: $0) } ?? 0) > 0 { return true }
            var descriptors = [pollfd(fd: notification, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            let ready = retryingOnInterrupt { poll(&descriptors, 2, -1) }
            guard ready > 0, descriptors[1].revents == 0 else { return false }
            // Drain what woke it (inotify events, or the eventfd's 8-byte counter).
            _ = buffer.withUnsafeMutableBytes { read(notification, $0.baseAddress, $0.count) }
            if events == nil { return true }
        }
    }
}
