// CSystemd for the socket types (SOCK_DGRAM ...): its headers bring in sys/socket.h, which Swift's Glibc module map leaves to the first module that includes it.
import CSystemd
import Glibc

/// Sends state changes to the service manager over the `sd_notify` protocol, without ever waiting.
///
/// libsystemd's `sd_notify` (systemd 252) sends with a blocking `sendmsg`: when the notify socket's
/// queue is full (PID 1 busy with a `daemon-reload` of many units reads nothing for many seconds;
/// `net.unix.max_dgram_qlen` is 512 under systemd, 10 by default), the caller waits until there
/// is room. jobd notifies from its main loop, which must never wait, so this sender has a socket of
/// its own and sends with `MSG_DONTWAIT`: a full queue is ``Delivery/wouldBlock``, and the caller
/// keeps the message for later (``NotifyOutbox``).
///
/// The address is read from `NOTIFY_SOCKET` once, at ``init()`` (a path, or an abstract address
/// starting with `@`, as `sd_notify` reads it); the variable is left in place.
///
/// ```swift
/// let notifier = Notifier()
/// try notifier.send(.ready, .status("3 jobs scheduled"))
/// ```
package final class Notifier: Sendable {
    /// What happened to a notification that did not fail.
    package enum Delivery: Sendable, Hashable {
        /// The message was queued on the socket in `NOTIFY_SOCKET`.
        case sent
        /// `NOTIFY_SOCKET` is not set: jobd is not running as a `Type=notify` service. Not an error.
        case notUnderSystemd
        /// The socket's queue is full: nothing was sent; send it again later.
        case wouldBlock
    }

    private enum Target {
        case none
        case socket(fd: Int32, address: NotifySocketAddress)
        case broken(SystemdError)
    }

    private let target: Target

    /// A notifier for the socket `NOTIFY_SOCKET` names now.
    package convenience init() {
        self.init(address: getenv("NOTIFY_SOCKET").map { String(cString: $0) })
    }

    /// A notifier for the socket `address` names, as `NOTIFY_SOCKET` would; none for `nil`.
    package init(address: String?) {
        guard let address else {
            target = .none
            return
        }
        let parsed: NotifySocketAddress
        do {
            parsed = try NotifySocketAddress(address)
        } catch {
            target = .broken(error)
            return
        }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else {
            target = .broken(SystemdError(.notifyFailed, errno: POSIXErrorCode(rawValue: errno), context: "socket(AF_UNIX, SOCK_DGRAM) for NOTIFY_SOCKET"))
            return
        }
        target = .socket(fd: fd, address: parsed)
    }

    deinit {
        if case .socket(let fd, _) = target { close(fd) }
    }

    /// Sends all `states` in one message, in order.
    /// - Throws: ``SystemdError`` with code ``SystemdError/Code/notifyFailed`` when `NOTIFY_SOCKET` is
    ///   set but the message could not be sent (a malformed address, no listener, permissions).
    @discardableResult
    package func send(_ states: NotifyState...) throws(SystemdError) -> Delivery {
        try send(states)
    }

    /// Sends all `states` in one message, in order.
    @discardableResult
    package func send(_ states: [NotifyState]) throws(SystemdError) -> Delivery {
        let fd: Int32, address: NotifySocketAddress
        switch target {
        case .none: return .notUnderSystemd
        case .broken(let error): throw error
        case .socket(let socket, let to): (fd, address) = (socket, to)
        }
        let message = Self.message(states)
        let result = address.withSockaddr { pointer, length in
            Array(message.utf8).withUnsafeBytes {
                sendto(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL), pointer, length)
            }
        }
        if result >= 0 { return .sent }
        let failure = errno
        if failure == EAGAIN || failure == EWOULDBLOCK { return .wouldBlock }
        throw SystemdError(
            .notifyFailed, errno: POSIXErrorCode(rawValue: failure),
            context: "sending \(message.debugDescription) to NOTIFY_SOCKET=\(address) failed; check that the socket exists and accepts datagrams")
    }

    /// The exact text ``send(_:)-([NotifyState])`` sends: one `KEY=value` per line.
    package static func message(_ states: [NotifyState]) -> String {
        states.flatMap(\.assignments).map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
    }
}

/// Where `NOTIFY_SOCKET` points: a socket file (`/run/systemd/notify`) or an abstract address
/// (`@name`, which the socket address spells with a leading NUL byte), as `sd_notify` reads it.
package struct NotifySocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// The bytes of `sun_path` that name the socket: the path, or NUL and the abstract name.
    package let path: [UInt8]
    /// The variable's text.
    package let description: String

    /// - Throws: ``SystemdError`` with code ``SystemdError/Code/notifyFailed`` and `EINVAL` when
    ///   `value` is neither an absolute path nor `@` and a name, or is too long for a socket address.
    package init(_ value: String) throws(SystemdError) {
        description = value
        let bytes = Array(value.utf8)
        let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        guard let first = bytes.first, first == UInt8(ascii: "/") || first == UInt8(ascii: "@"), bytes.count > 1,
              !bytes.contains(0) else {
            throw SystemdError(.notifyFailed, errno: .EINVAL,
                               context: "NOTIFY_SOCKET=\(value) is neither an absolute path nor an abstract address (@name)")
        }
        // A path needs its terminating NUL inside sun_path; an abstract name has none.
        guard first == UInt8(ascii: "@") ? bytes.count <= capacity : bytes.count < capacity else {
            throw SystemdError(.notifyFailed, errno: .EINVAL,
                               context: "NOTIFY_SOCKET=\(value) is longer than a socket address may be (\(capacity - 1) bytes)")
        }
        path = first == UInt8(ascii: "@") ? [0] + bytes.dropFirst() : bytes
    }

    /// Runs `body` with this address as a `sockaddr` and its length.
    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        // The family and the name; for a path, its NUL too, as SOCKADDR_UN_LEN counts it.
        let length = MemoryLayout<sa_family_t>.size + path.count + (path.first == 0 ? 0 : 1)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }
}
