import Foundation
import Glibc
import Synchronization

/// jobd's end of the control socket.
///
/// The socket file is mode 0600, and every connection's peer credentials are checked as well: only
/// root and jobd's own user get an answer; anyone else is told so and disconnected. Each
/// connection has a thread of its own that reads one request (bounded in size and time), hands it
/// to the daemon, and writes the replies, so a slow, silent or vanished client never blocks the
/// daemon's main loop.
public final class ControlServer: Sendable {
    /// At most this many connections at once; more are refused at once.
    public static let maximumConnections = 32

    public let path: String
    private let listenFD: Int32
    private let wakeFDs: (Int32, Int32)
    private let connections = Atomic<Int>(0)
    private let handler: @Sendable (ControlRequest, ControlReply) -> Void

    /// Binds `path` (replacing a stale socket) and starts accepting.
    public init(path: String, handler: @escaping @Sendable (ControlRequest, ControlReply) -> Void) throws(ControlError) {
        self.path = path
        self.handler = handler
        let fd = try UnixStream.makeSocket()
        unlink(path)
        var (address, length) = try UnixStream.address(path)
        let previousMask = umask(0o177)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        let bindErrno = errno
        umask(previousMask)
        guard bound == 0, chmod(path, 0o600) == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw ControlError(.setupFailed, "cannot listen on \(path): \(UnixStream.describe(bindErrno))", errno: bindErrno)
        }
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else {
            close(fd)
            throw ControlError(.setupFailed, "pipe: \(UnixStream.describe(errno))", errno: errno)
        }
        for pipeFD in pipeFDs { _ = fcntl(pipeFD, F_SETFD, FD_CLOEXEC) }
        listenFD = fd
        wakeFDs = (pipeFDs[0], pipeFDs[1])
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Stops accepting and removes the socket file. Connections in progress finish on their own.
    public func stop() {
        var byte: UInt8 = 1
        _ = write(wakeFDs.1, &byte, 1)
        unlink(path)
    }

    private func acceptLoop() {
        var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeFDs.0, events: Int16(POLLIN), revents: 0)]
        defer {
            close(listenFD)
            close(wakeFDs.0)
            close(wakeFDs.1)
        }
        while true {
            let ready = poll(&fds, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 || fds[1].revents != 0 { return }
            let client = accept(listenFD, nil, nil)
            guard client >= 0 else { continue }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            guard connections.add(1, ordering: .relaxed).newValue <= Self.maximumConnections else {
                _ = UnixStream.sendAll(client, Self.encode(.error("too many connections; try again")))
                close(client)
                connections.subtract(1, ordering: .relaxed)
                continue
            }
            Thread.detachNewThread { [self] in
                serve(client)
                close(client)
                connections.subtract(1, ordering: .relaxed)
            }
        }
    }

    private func serve(_ fd: Int32) {
        UnixStream.setTimeouts(fd, seconds: ControlProtocol.requestTimeoutSeconds)
        guard let peer = UnixStream.peerCredentials(fd), peer.uid == 0 || peer.uid == geteuid() else {
            _ = UnixStream.sendAll(fd, Self.encode(.error(
                "permission denied: only root and jobd's own user may use jobd's control socket")))
            return
        }
        var buffer: [UInt8] = []
        let request: ControlRequest
        switch UnixStream.readLine(fd, limit: ControlProtocol.maximumRequestBytes, buffer: &buffer) {
        case .line(let bytes):
            guard let decoded = try? JSONDecoder().decode(ControlRequest.self, from: Data(bytes)) else {
                _ = UnixStream.sendAll(fd, Self.encode(.error("malformed request: expected one JSON object per line")))
                return
            }
            guard decoded.version == ControlProtocol.version else {
                _ = UnixStream.sendAll(fd, Self.encode(.error(
                    "unsupported protocol version \(decoded.version); this jobd speaks version \(ControlProtocol.version)")))
                return
            }
            request = decoded
        case .tooLong:
            _ = UnixStream.sendAll(fd, Self.encode(.error(
                "request too large: at most \(ControlProtocol.maximumRequestBytes) bytes")))
            return
        case .closed, .failed, .timedOut:
            return  // gone, or silent past the timeout: nothing to answer
        }
        let reply = ControlReply()
        handler(request, reply)
        // Replies may come much later (a run with --wait): no send timeout while waiting for them.
        while let response = reply.next() {
            guard UnixStream.sendAll(fd, Self.encode(response)) else { return }
        }
    }

    static func encode(_ response: ControlResponse) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array((try? encoder.encode(response)) ?? Data(#"{"type":"error","version":1}"#.utf8)) + [UInt8(ascii: "\n")]
    }
}

/// The way back to one client: the daemon sends responses, then finishes. Thread-safe.
public final class ControlReply: @unchecked Sendable {
    private let condition = NSCondition()
    private var pending: [ControlResponse] = []
    private var finished = false

    init() {}

    public func send(_ response: ControlResponse) {
        condition.lock()
        if !finished { pending.append(response) }
        condition.broadcast()
        condition.unlock()
    }

    /// No more responses; the connection closes once they are written.
    public func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Sends `response` and finishes.
    public func finish(with response: ControlResponse) {
        send(response)
        finish()
    }

    /// The next response to write, or `nil` when finished and drained.
    func next() -> ControlResponse? {
        condition.lock()
        defer { condition.unlock() }
        while pending.isEmpty && !finished { condition.wait() }
        return pending.isEmpty ? nil : pending.removeFirst()
    }
}
