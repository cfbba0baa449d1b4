import Glibc
import JobdLocks
import JobdSystem
import SystemPackage

/// An inotify descriptor read on a thread of its own, and the pipe that tells that thread to end:
/// what ``TimeZoneWatch`` and ``CronWatch`` share. Whoever starts it calls ``stop()`` at shutdown;
/// the thread closes the descriptors on its way out.
package final class InotifyThread: Sendable {
    package let fd: Int32
    private let wake: (read: Int32, write: Int32)

    /// One inotify event: the watch it came from, what happened, and the name in the directory.
    package struct Event {
        package var watch: Int32
        package var mask: UInt32
        package var name: String
    }

    /// What ``wait(timeout:)`` found.
    package enum Wait {
        case events([Event])
        case timedOut
        case stopped
    }

    package init?() {
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return nil }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            close(fd)
            return nil
        }
        // Not pipe2, which Swift's Glibc leaves out: jobd makes its watches at start, before it
        // can spawn a job that would inherit the pipe in between.
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        wake = (ends[0], ends[1])
    }

    /// Runs `body` on a thread of its own, then closes the descriptors; `false` (descriptors
    /// closed) when no thread could be had.
    package func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        do {
            try DetachedThread.start { [self] in
                body()
                closeAll()
            }
            return true
        } catch {
            closeAll()
            return false
        }
    }

    /// Ends the thread at its next wait.
    package func stop() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    func closeAll() {
        close(fd)
        close(wake.read)
        close(wake.write)
    }

    /// Waits up to `timeout` milliseconds (`-1`: without end) for events, or for ``stop()``.
    package func wait(timeout: Int32) -> Wait {
        var buffer = [UInt8](repeating: 0, count: 8_192)
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = retryingOnInterrupt { poll(&fds, 2, timeout) }
            if ready < 0 || fds[1].revents != 0 { return .stopped }
            if ready == 0 { return .timedOut }
            guard let count = buffer.withUnsafeMutableBytes({ FileDescriptor(rawValue: fd).readAvailable(into: $0) }) else { continue }
            if count == 0 { return .stopped }
            return .events(Self.events(buffer[0..<count]))
        }
    }

    /// The events in `bytes`: each a header (watch, mask, cookie, length) and a NUL-padded name.
    static func events(_ bytes: ArraySlice<UInt8>) -> [Event] {
        var events: [Event] = []
        var offset = bytes.startIndex
        func word(_ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        while offset + 16 <= bytes.endIndex {
            let nameLength = word(offset + 12)
            let name = bytes[(offset + 16)..<min(offset + 16 + nameLength, bytes.endIndex)].prefix { $0 != 0 }
            events.append(Event(watch: Int32(truncatingIfNeeded: word(offset)), mask: UInt32(truncatingIfNeeded: word(offset + 4)),
                                name: String(decoding: name, as: UTF8.self)))
            offset += 16 + nameLength
        }
        return events
    }
}
