import Glibc

/// Hears `/etc/localtime` change (`timedatectl set-timezone` replaces the link) with inotify on
/// `/etc`, and calls back on a thread of its own. `TZ` in jobd's environment wins over the file,
/// and then there is nothing to watch. ``stop()`` ends the thread and closes its descriptors: jobd
/// calls it at shutdown.
package final class TimeZoneWatch: Sendable {
    private let thread: InotifyThread

    package init?(onChange: @escaping @Sendable () -> Void) {
        guard let thread = InotifyThread() else { return nil }
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE)
        guard inotify_add_watch(thread.fd, "/etc", mask) >= 0 else {
            thread.closeAll()
            return nil
        }
        self.thread = thread
        let started = thread.start {
            // React only to "localtime".
            while case .events(let events) = thread.wait(timeout: -1) {
                if events.contains(where: { $0.name == "localtime" }) { onChange() }
            }
        }
        if !started { return nil }
    }

    /// Ends the watching thread; it closes the descriptors on its way out.
    package func stop() {
        thread.stop()
    }
}
