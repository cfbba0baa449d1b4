import Glibc

/// Hears `/etc/localtime` change (`timedatectl set-timezone` replaces the link) with inotify on
/// `/etc`, and calls back on a thread of its own. `TZ` in jobd's environment wins over the file,
/// and then there is nothing to watch.
final class TimeZoneWatch: Sendable {
    private let fd: Int32

    init?(onChange: @escaping @Sendable () -> Void) {
        let fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE)
        guard inotify_add_watch(fd, "/etc", mask) >= 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
        let context = Context(fd: fd, onChange: onChange)
        do {
            try DaemonThread.start { context.run() }
        } catch {
            close(fd)
            return nil
        }
    }

    private final class Context: Sendable {
        let fd: Int32
        let onChange: @Sendable () -> Void
        init(fd: Int32, onChange: @escaping @Sendable () -> Void) {
            self.fd = fd
            self.onChange = onChange
        }

        func run() {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
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
