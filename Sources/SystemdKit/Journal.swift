import CSystemd
import Glibc

/// Writes entries to the local journal with `sd_journal_sendv`.
///
/// libsystemd silently drops an entry when the journal socket does not exist; this writer checks
/// for the socket first and throws instead, so that the caller can fall back to stderr.
package struct Journal: Sendable {
    /// Where journald receives native-protocol datagrams; libsystemd's sender uses this fixed path.
    package static let socketPath = "/run/systemd/journal/socket"

    package init() {}

    /// Sends one entry made of `fields`, in order. Repeated names make multi-valued fields.
    /// - Throws: ``SystemdError`` with code ``SystemdError/Code/journalUnreachable`` when no journald
    ///   listens on ``socketPath``, or ``SystemdError/Code/journalSendFailed`` for other failures
    ///   (for instance an entry larger than journald accepts).
    package func send(_ fields: [JournalField]) throws(SystemdError) {
        try Self.requireSocket()
        // One contiguous buffer of "NAME=value" items, so every iovec points into memory that lives
        // for the whole call.
        var buffer: [UInt8] = []
        buffer.reserveCapacity(fields.reduce(0) { $0 + $1.name.rawValue.utf8.count + 1 + $1.value.utf8.count })
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(fields.count)
        for field in fields {
            let start = buffer.count
            buffer.append(contentsOf: field.name.rawValue.utf8)
            buffer.append(UInt8(ascii: "="))
            buffer.append(contentsOf: field.value.utf8)
            ranges.append(start..<buffer.count)
        }
        let result = buffer.withUnsafeMutableBytes { raw in
            var iovecs = ranges.map { iovec(iov_base: raw.baseAddress! + $0.lowerBound, iov_len: $0.count) }
            return sd_journal_sendv(&iovecs, Int32(iovecs.count))
        }
        if result == -ECONNREFUSED || result == -ENOENT {
            throw SystemdError(
                .journalUnreachable, errno: POSIXErrorCode(rawValue: -result),
                context: "no journald listens on \(Self.socketPath)"
            )
        }
        try SystemdError.check(result, .journalSendFailed,
                               "sd_journal_sendv of an entry with fields \(fields.map(\.name.rawValue).joined(separator: ","))")
    }

    /// Checks that a journald is listening, without writing an entry: connects a datagram socket to
    /// ``socketPath``, which fails unless some process has it bound.
    /// - Throws: ``SystemdError`` with code ``SystemdError/Code/journalUnreachable``.
    package static func probe() throws(SystemdError) {
        try requireSocket()
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        try SystemdError.check(fd < 0 ? -Glibc.errno : 0, .journalUnreachable, "socket(AF_UNIX, SOCK_DGRAM)")
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            path.copyBytes(from: socketPath.utf8)
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try SystemdError.check(
            result < 0 ? -Glibc.errno : 0, .journalUnreachable, "connect to \(socketPath) (is systemd-journald running?)"
        )
    }

    private static func requireSocket() throws(SystemdError) {
        var info = stat()
        guard stat(socketPath, &info) == 0, (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw SystemdError(
                .journalUnreachable, errno: .ENOENT,
                context: "\(socketPath) is not a socket (is systemd-journald running?)"
            )
        }
    }
}
