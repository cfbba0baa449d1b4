import Glibc
import JobdSystem

/// The few Unix-socket operations both ends of the control socket need, with errno kept.
enum UnixStream {
    /// `struct ucred` (pid, uid, gid), which Swift's Glibc module leaves out without `_GNU_SOURCE`.
    struct PeerCredentials {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    static func address(_ path: String) throws(ControlError) -> (sockaddr_un, socklen_t) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw ControlError(.setupFailed, "socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return (address, socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + 1))
    }

    static func makeSocket() throws(ControlError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ControlError(.setupFailed, "socket: \(describe(errno))", errno: errno) }
        return fd
    }

    static func peerCredentials(_ fd: Int32) -> PeerCredentials? {
        var credentials = PeerCredentials()
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        let result = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length)
        return result == 0 ? credentials : nil
    }

    /// The peer's supplementary groups (`SO_PEERGROUPS`, Linux 4.13); none where they cannot be had.
    static func peerGroups(_ fd: Int32) -> [gid_t] {
        let peerGroups: Int32 = 59  // SO_PEERGROUPS, which Swift's Glibc module does not name
        var groups = [gid_t](repeating: 0, count: 64)
        var length = socklen_t(groups.count * MemoryLayout<gid_t>.size)
        var result = groups.withUnsafeMutableBytes { getsockopt(fd, SOL_SOCKET, peerGroups, $0.baseAddress, &length) }
        if result != 0 && errno == ERANGE {
            groups = [gid_t](repeating: 0, count: Int(length) / MemoryLayout<gid_t>.size)
            result = groups.withUnsafeMutableBytes { getsockopt(fd, SOL_SOCKET, peerGroups, $0.baseAddress, &length) }
        }
        guard result == 0 else { return [] }
        return Array(groups.prefix(Int(length) / MemoryLayout<gid_t>.size))
    }

    /// Bounds each send: a client that does not read its reply is given up on.
    static func setSendTimeout(_ fd: Int32, seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads and drops what the peer sends until it closes, `limit` bytes or `deadline`.
    static func drain(_ fd: Int32, limit: Int, deadline: ContinuousClock.Instant) {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        var total = 0
        while total < limit, waitReadable(fd, until: deadline) == nil {
            let count = chunk.withUnsafeMutableBytes { room in retryingOnInterrupt { recv(fd, room.baseAddress, room.count, 0) } }
            if count <= 0 { return }
            total += count
        }
    }

    /// Writes all of `bytes`; `false` when the peer is gone or stalls past the send timeout.
    /// `MSG_NOSIGNAL`: a client that hangs up mid-reply must not kill the daemon with SIGPIPE.
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { rest in
                retryingOnInterrupt { send(fd, rest.baseAddress, rest.count, Int32(MSG_NOSIGNAL)) }
            }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    enum LineResult {
        case line([UInt8])
        case tooLong
        case closed
        case timedOut
        case failed(Int32)
    }

    /// Reads up to a newline, at most `limit` bytes, by `deadline` where there is one (else with
    /// the socket's receive timeout). Each byte received is looked at once, however long the line:
    /// a search starts where the last one ended.
    static func readLine(
        _ fd: Int32, limit: Int, buffer: inout [UInt8], deadline: ContinuousClock.Instant? = nil
    ) -> LineResult {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var scanned = 0
        while true {
            if let newline = firstNewline(buffer, from: scanned) {
                guard newline == buffer.count - 1 else {
                    let line = Array(buffer[..<newline])
                    buffer.removeSubrange(...newline)
                    return .line(line)
                }
                // Nothing after the line (the usual case): the buffer is the line, not copied
                // (a list of 10,000 jobs is a line of megabytes).
                buffer.removeLast()
                return .line(takeAll(&buffer))
            }
            scanned = buffer.count
            if buffer.count > limit { return .tooLong }
            if let deadline {
                switch waitReadable(fd, until: deadline) {
                case .none: break
                case .some(ETIMEDOUT): return .timedOut
                case .some(let error): return .failed(error)
                }
            }
            let count = chunk.withUnsafeMutableBytes { room in retryingOnInterrupt { recv(fd, room.baseAddress, room.count, 0) } }
            if count < 0 { return .failed(errno) }
            if count == 0 {
                // The peer closed after a last line without its newline: that line, once.
                return buffer.isEmpty ? .closed : .line(takeAll(&buffer))
            }
            // Grown fourfold, not twofold: fewer copies of a long line (a list of every job).
            if buffer.count + count > buffer.capacity { buffer.reserveCapacity(max(4 * buffer.capacity, chunk.count)) }
            buffer += chunk[..<count]
        }
    }

    /// The first newline at or after `start` (`memchr`: a list's line is megabytes).
    private static func firstNewline(_ buffer: [UInt8], from start: Int) -> Int? {
        buffer.withUnsafeBufferPointer { bytes in
            guard start < bytes.count, let base = bytes.baseAddress,
                  let found = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// The whole buffer, handed over without a copy, leaving it empty.
    private static func takeAll(_ buffer: inout [UInt8]) -> [UInt8] {
        let all = buffer
        buffer = []
        return all
    }

    /// Waits until `fd` can be read (or is hung up on) or `deadline` passes: `nil` when readable,
    /// `ETIMEDOUT` at the deadline, else poll's errno.
    static func waitReadable(_ fd: Int32, until deadline: ContinuousClock.Instant) -> Int32? {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return ETIMEDOUT }
            let milliseconds = Int32(clamping: left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return nil }
            if ready < 0 && errno != EINTR { return errno }
        }
    }

    static func describe(_ errno: Int32) -> String {
        String(cString: strerror(errno))
    }
}
