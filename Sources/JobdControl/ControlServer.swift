import CSocket
import Foundation
import Glibc
import JobdLocks
import Synchronization

/// jobd's end of the control socket.
///
/// The socket file is mode 0600 (0660 and group `jobd` where that group exists), and every
/// connection's peer credentials are checked as well (``ControlAccess``): root and jobd's own user
/// may do everything, members of group `jobd` may list and look; anyone else gets a typed refusal (`permission-denied`)
/// and is disconnected, without ever taking one of the ``maximumConnections`` slots. Each admitted
/// connection has a thread of its own that reads one request (at most 64 KiB, all of it within 5 s
/// of the accept), hands it to the daemon, and writes the replies, so a slow, silent or vanished
/// client never blocks the daemon's main loop. A client that hangs up while it waits frees its
/// slot at once. So 32 idle clients hold their slots for 5 s at most, and only root or jobd's own
/// user can hold one at all: `jobctl reload` is never kept out for longer by anyone else.
package final class ControlServer: Sendable {
    /// At most this many connections at once; more are refused at once.
    package static let maximumConnections = 32
    /// At most this many refused callers are drained at once (so that they read the refusal, not a
    /// broken pipe); beyond that a refusal is sent and the connection closed at once.
    static let maximumRefusing = 4

    package let path: String
    private let listenFD: Int32
    private let wakeFDs: (Int32, Int32)
    private let connections = Atomic<Int>(0)
    private let refusing = Atomic<Int>(0)
    private let handler: @Sendable (ControlRequest, ControlReply) -> Void
    private let access: ControlAccess

    /// Binds `path` (replacing a stale socket) and starts accepting. With a readers' group in
    /// `access`, the socket is mode 0660 and belongs to that group, so that its members can connect.
    package init(
        path: String, access: ControlAccess = ControlAccess(ownUID: geteuid(), readers: nil),
        handler: @escaping @Sendable (ControlRequest, ControlReply) -> Void
    ) throws(ControlError) {
        self.path = path
        self.handler = handler
        self.access = access
        let fd = try UnixStream.makeSocket()
        unlink(path)
        var (address, length) = try UnixStream.address(path)
        let previousMask = umask(0o177)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        let bindErrno = errno
        umask(previousMask)
        // Step by step, each with its own errno: a failed chmod or listen is reported as what it was.
        var failure: (step: String, errno: Int32)?
        if bound != 0 {
            failure = ("bind", bindErrno)
        } else if let readers = access.readers, chown(path, uid_t.max, readers.gid) != 0 {
            failure = ("chown", errno)
        } else if chmod(path, access.readers == nil ? 0o600 : 0o660) != 0 {
            failure = ("chmod", errno)
        } else if listen(fd, 64) != 0 {
            failure = ("listen", errno)
        }
        if let failure {
            close(fd)
            throw ControlError(.setupFailed, "cannot listen on \(path): \(failure.step): \(UnixStream.describe(failure.errno))",
                               errno: failure.errno)
        }
        var pipeFDs: [Int32] = [0, 0]
        guard pipe2(&pipeFDs, O_CLOEXEC) == 0 else {
            let pipeErrno = errno
            close(fd)
            throw ControlError(.setupFailed, "pipe: \(UnixStream.describe(pipeErrno))", errno: pipeErrno)
        }
        listenFD = fd
        wakeFDs = (pipeFDs[0], pipeFDs[1])
        do {
            try DetachedThread.start { [self] in acceptLoop() }
        } catch {
            for open in [fd, pipeFDs[0], pipeFDs[1]] { close(open) }
            unlink(path)
            throw ControlError(.setupFailed, "cannot serve \(path): \(error)", errno: error.code)
        }
    }

    /// Stops accepting and removes the socket file. Connections in progress finish on their own.
    package func stop() {
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
            let client = accept4(listenFD, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
            guard client >= 0 else { continue }
            // The request's deadline runs from the accept: 5 s for all of it, not per byte.
            let deadline = ContinuousClock.now + .seconds(ControlProtocol.requestTimeoutSeconds)
            let level = UnixStream.peerCredentials(client).map {
                access.level(uid: $0.uid, gid: $0.gid, groups: UnixStream.peerGroups(client))
            } ?? .none
            guard level != .none else {
                refuse(client, .error(access.refusal, code: .permissionDenied), deadline: deadline)
                continue
            }
            guard connections.add(1, ordering: .relaxed).newValue <= Self.maximumConnections else {
                connections.subtract(1, ordering: .relaxed)
                refuse(client, .error("too many connections (\(Self.maximumConnections)); try again", code: .busy), deadline: deadline)
                continue
            }
            do {
                try DetachedThread.start { [self] in
                    serve(client, level: level, deadline: deadline)
                    close(client)
                    connections.subtract(1, ordering: .relaxed)
                }
            } catch {
                connections.subtract(1, ordering: .relaxed)
                refuse(client, .error("jobd cannot serve this connection: \(error); try again", code: .busy), deadline: deadline)
            }
        }
    }

    /// Sends `response` and closes `fd`, on a thread of its own while few are refusing, after
    /// reading what the client sends (by its deadline), so that it reads the refusal rather than a
    /// broken pipe; beyond that, at once.
    private func refuse(_ fd: Int32, _ response: ControlResponse, deadline: ContinuousClock.Instant) {
        UnixStream.setSendTimeout(fd, seconds: 1)
        guard refusing.add(1, ordering: .relaxed).newValue <= Self.maximumRefusing else {
            refusing.subtract(1, ordering: .relaxed)
            _ = UnixStream.sendAll(fd, response.jsonLine)
            close(fd)
            return
        }
        do {
            try DetachedThread.start { [self] in
                Self.answerLast(fd, response, deadline: deadline)
                close(fd)
                refusing.subtract(1, ordering: .relaxed)
            }
        } catch {
            refusing.subtract(1, ordering: .relaxed)
            _ = UnixStream.sendAll(fd, response.jsonLine)
            close(fd)
        }
    }

    /// Sends a last (error) response and ends the connection gracefully: the write side first, then
    /// the rest of what the client sends is read and dropped (by the deadline), so that the close
    /// that follows never breaks a connection whose client is still writing.
    private static func answerLast(_ fd: Int32, _ response: ControlResponse, deadline: ContinuousClock.Instant) {
        guard UnixStream.sendAll(fd, response.jsonLine) else { return }
        shutdown(fd, Int32(SHUT_WR))
        UnixStream.drain(fd, limit: ControlProtocol.maximumRequestBytes * 2, deadline: deadline)
    }

    private func serve(_ fd: Int32, level: ControlAccess.Level, deadline: ContinuousClock.Instant) {
        UnixStream.setSendTimeout(fd, seconds: ControlProtocol.requestTimeoutSeconds)
        func reject(_ message: String, _ code: ControlErrorCode) {
            Self.answerLast(fd, .error(message, code: code), deadline: deadline)
        }
        var buffer: [UInt8] = []
        let request: ControlRequest
        switch UnixStream.readLine(fd, limit: ControlProtocol.maximumRequestBytes, buffer: &buffer, deadline: deadline) {
        case .line(let bytes):
            guard let decoded = try? JSONDecoder().decode(ControlRequest.self, from: Data(bytes)) else {
                reject("malformed request: expected one JSON object per line", .badRequest)
                return
            }
            guard decoded.version == ControlProtocol.version else {
                reject("unsupported protocol version \(decoded.version); this jobd speaks version \(ControlProtocol.version)",
                       .unsupportedVersion)
                return
            }
            guard level == .full || ControlAccess.isReadOnly(decoded.command) else {
                reject(ControlAccess.readOnlyRefusal(decoded.command, group: access.readers?.name ?? ControlAccess.readersGroupName),
                       .permissionDenied)
                return
            }
            request = decoded
        case .tooLong:
            reject("request too large: at most \(ControlProtocol.maximumRequestBytes) bytes", .badRequest)
            return
        case .closed, .failed, .timedOut:
            return  // gone, or not done by the deadline: nothing to answer
        }
        let reply = ControlReply()
        // A run's output comes at the job's pace: a client may read it slowly (a terminal that
        // scrolls back) without being cut off; jobd meanwhile queues a bounded number of lines.
        if request.streamsOutput { UnixStream.setSendTimeout(fd, seconds: 0) }
        handler(request, reply)
        // Replies may come much later (a run with --wait): no deadline while waiting for them, but
        // a client that hangs up meanwhile ends the wait, and frees its slot, at once.
        while let line = reply.next(unlessHungUp: fd)?.line {
            guard UnixStream.sendAll(fd, line) else { break }
        }
        reply.abandon()
    }
}
