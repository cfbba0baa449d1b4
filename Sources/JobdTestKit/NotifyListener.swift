import Foundation
import Glibc
import Synchronization
import JobdSystem

/// A Unix datagram socket standing in for systemd's notify socket: every message jobd sends is
/// recorded with the `CLOCK_MONOTONIC` time it arrived, and a test can await the next one.
package final class NotifyListener: @unchecked Sendable {
    package struct Message: Sendable, CustomStringConvertible {
        package var text: String
        /// Arrival, in nanoseconds on `CLOCK_MONOTONIC`.
        package var arrival: UInt64
        /// The message's assignments, `KEY=value` per line.
        package var assignments: [String: String] {
            var result: [String: String] = [:]
            for line in text.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                result[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            return result
        }
        package var description: String { text.replacingOccurrences(of: "\n", with: " | ") }
    }

    /// The value for `NOTIFY_SOCKET`.
    package let address: String
    private let fd: Int32
    private let path: String
    private let received = AwaitableLog<Message>()
    private let started = Atomic<Bool>(false)

    /// - Parameter reading: whether to read from the start; a test of a notify socket nobody reads
    ///   passes `false`, fills its queue with ``fillQueue()``, and reads later with ``resume()``.
    package init(reading: Bool = true) throws {
        path = NSTemporaryDirectory() + "jobd-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        address = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let result = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        if reading { resume() }
    }

    /// Starts reading (once), for a listener made with `reading: false`.
    package func resume() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        Thread.detachNewThread { [self] in receiveLoop() }
    }

    /// Sends datagrams (`filler N`) to this socket, without waiting, until its queue has no room:
    /// as PID 1's notify socket is while a long `daemon-reload` keeps it from reading. Returns how
    /// many it took (`net.unix.max_dgram_qlen` and the sender's buffer decide).
    package func fillQueue() throws -> Int {
        let sender = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard sender >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(sender) }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        var count = 0
        while count < 1_000_000 {
            let text = Array("filler \(count)".utf8)
            let sent = withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(sender, text, text.count, Int32(MSG_DONTWAIT), $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            if sent < 0 {
                if errno == EAGAIN { return count }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            count += 1
        }
        return count
    }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        unlink(path)
    }

    /// Every message so far.
    package var messages: [Message] { received.all }

    /// This process's environment for a jobd that notifies this listener, as under the unit:
    /// `NOTIFY_SOCKET` set, and `WATCHDOG_USEC` only if `watchdog` is given (this process's own
    /// `WATCHDOG_` variables dropped), then `extra`.
    package func daemonEnvironment(watchdog: Duration? = nil, _ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("WATCHDOG_") }
        environment["NOTIFY_SOCKET"] = address
        if let watchdog {
            let (seconds, attoseconds) = watchdog.components
            environment["WATCHDOG_USEC"] = String(seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        }
        return environment.merging(extra) { $1 }
    }

    /// Waits for a message at index `start` or later that satisfies `predicate`; returns its index.
    @discardableResult
    package func waitForMessage(
        from start: Int = 0, timeout: Duration = .seconds(30), _ description: String,
        where predicate: (Message) -> Bool
    ) throws -> Int {
        try received.waitFor(from: start, timeout: timeout, "notify message: \(description)", where: predicate)
    }

    private func receiveLoop() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { room in retryingOnInterrupt { recv(fd, room.baseAddress, room.count, 0) } }
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            if count <= 0 {
                received.close()
                return
            }
            received.append(contentsOf: [Message(
                text: String(decoding: buffer[..<count], as: UTF8.self),
                arrival: UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec))])
        }
    }
}
