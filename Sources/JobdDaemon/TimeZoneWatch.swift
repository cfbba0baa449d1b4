import Glibc
import JobdLocks

/// Hears `/etc/localtime` change (`timedatectl set-timezone` replaces the link) with inotify on
/// `/etc`, and calls back on a thread of its own. `TZ` in jobd's environment wins over the file,
/// and then there is nothing to watch. ``stop()`` ends the thread and closes its descriptors: jobd
/// calls it at shutdown.
final class TimeZoneWatch: Sendable {
    private let context: Context

    init?(onChange: @escaping @Sendable () -> Void) {
        let fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE)
        var wake: [Int32] = [-1, -1]
        guard inotify_add_watch(fd, "/etc", mask) >= 0, pipe(&wake) == 0 else {
            close(fd)
            return nil
        }
        // Not pipe2, which Swift's Glibc leaves out: jobd makes this watch at start, before it can
        // spawn a job that would inherit the pipe in between.
        for end in wake { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        context = Context(fd: fd, wake: (wake[0], wake[1]), onChange: onChange)
        do {
            try DetachedThread.start { [context] in context.run() }
        } catch {
            context.closeAll()
            return nil
        }
    }

    /// Ends the watching thread; it closes the descriptors on its way out.
    func stop() {
        var byte: UInt8 = 1
        _ = write(context.wake.write, &byte, 1)
    }

    private final class Context: Sendable {
        let fd: Int32
        let wake: (read: Int32, write: Int32)
        let onChange: @Sendable () -> Void

        init(fd: Int32, wake: (Int32, Int32), onChange: @escaping @Sendable () -> Void) {
            self.fd = fd
            self.wake = wake
            self.onChange = onChange
        }

        func closeAll() {
            close(fd)
            close(wake.read)
            close(wake.write)
        }

        func run() {
            defer { closeAll() }
            var buffer = [UInt8](repeating: 0, count: 4096)
            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            while true {
                let ready = poll(&fds, 2, -1)
                if ready < 0 && errno == EINTR { continue }
                if ready < 0 || fds[1].revents != 0 { return }
                let count = read(fd, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return }
                // Events are a header and a NUL-padded name; react only to "localtime".
                var offset = 0
                var changed = false
                while offset + 16 <= count {
                    let nameLength = Int(buffer[offset + 12]) | Int(buffer[offset + 13]) << 8
                        | Int(buffer[offset + 14]) << 16 | Int(buffer[offset + 15]) << 24
                    let nameBytes = buffer[(offset + 16)..<min(offset + 16 + nameLength, count)].prefix { $0 != 0 }
                    if String(decoding: nameBytes, as: UTF8.self) == "localtime" { changed = true }
                    offset += 16 + nameLength
                }
                if changed { onChange() }
            }
        }
    }
}
