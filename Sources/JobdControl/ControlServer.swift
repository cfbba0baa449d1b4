import CSocket
import Glibc
import JobdLocks

/// jobd's end of the control socket.
///
/// The socket file is mode 0666 (group `jobd` where that group exists): every user may connect, and
/// every connection's peer credentials decide what it may do (``ControlAccess``): root and jobd's
/// own user everything, members of group `jobd` list and look, any other user act on their own
/// jobs (`USER:JOB`) only; anything else gets a typed refusal (`permission-denied`).
///
/// Slots go by role (``ControlSlots``): at most 32 connections at once, of which readers may hold 4
/// between them and other users 8 (each uid at most `UserConnectionsMax=`, 4 by default), so 20 stay for root and jobd's user whatever others do. Each admitted connection
/// has a thread of its own that reads one request (at most 64 KiB, all of it within 5 s of the
/// accept), hands it to the daemon, and writes the replies, so a slow, silent or vanished client
/// never blocks the daemon's main loop. A client that hangs up while it waits frees its slot at
/// once; a client that reads nothing of its replies for 5 s (60 s for a run's output, which comes
/// at the job's pace) is given up on. So a reader's idle connection holds a slot for 5 s at most,
/// and readers never hold more than their 4: `jobctl reload` and root's `status` are never kept out
/// by anyone but root.
///
/// A refusal (no access, no slot, no thread to serve the connection) is an `error` reply, after
/// which the accept thread itself reads and drops what the client still sends, until it hangs up
/// or 5 s after the accept: the client reads why, not a broken pipe, and refusing needs no thread.
package final class ControlServer: Sendable {
    /// At most this many connections at once; more are refused at once.
    package static let maximumConnections = ControlSlots.Limits.jobd.total
    /// At most this many refused callers are drained at once (so that they read the refusal, not a
    /// broken pipe); beyond that a refusal is sent and the connection closed at once.
    static let maximumRefusing = 16
    /// How long a client that asked for a run's output may read none of it before it is cut off.
    /// The lines are in the journal anyway.
    package static let streamIdleTimeoutSeconds = 60

    package let path: String
    private let listenFD: Int32
    private let wakeFDs: (Int32, Int32)
    private let slots = LockedBox(ControlSlots())
    private let handler: @Sendable (ControlRequest, ControlReply) -> Void
    private let access: ControlAccess

    /// Binds `path` (replacing a stale socket) and starts accepting; the socket is mode 0666, and
    /// belongs to the readers' group of `access` where there is one.
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
        // No umask around the bind: umask is the whole process's, and a run started on another thread
        // meanwhile would inherit it. Nobody can connect before listen(), which follows the chmod.
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        let bindErrno = errno
        // Step by step, each with its own errno: a failed chmod or listen is reported as what it was.
        var failure: (step: String, errno: Int32)?
        if bound != 0 {
            failure = ("bind", bindErrno)
        } else if let readers = access.readers, chown(path, uid_t.max, readers.gid) != 0 {
            failure = ("chown", errno)
        } else if chmod(path, 0o666) != 0 {
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

    /// How many connections one user other than root and jobd's own (one uid) may hold at once
    /// (`UserConnectionsMax=`): at start and at each reload. Connections already served stay.
    package func limitUserConnections(_ limit: Int) {
        slots.withLock { $0.limits.perUser = limit }
    }

    /// Stops accepting and removes the socket file. Connections in progress finish on their own.
    package func stop() {
        var byte: UInt8 = 1
        _ = write(wakeFDs.1, &byte, 1)
        unlink(path)
    }

    /// A refused connection whose client is still being read from, until it hangs up or `deadline`.
    private struct Refusal {
        let fd: Int32
        let deadline: ContinuousClock.Instant
        var drained = 0
    }

    private func acceptLoop() {
        var refusals: [Refusal] = []
        defer {
            for refusal in refusals { close(refusal.fd) }
            close(listenFD)
            close(wakeFDs.0)
            close(wakeFDs.1)
        }
        while true {
            var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeFDs.0, events: Int16(POLLIN), revents: 0)]
            fds += refusals.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let timeout: Int32 = refusals.map(\.deadline).min().map { deadline -> Int32 in
                let left = ContinuousClock.now.duration(to: deadline)
                return left <= .zero ? 0 : Int32(clamping: left.components.seconds * 1_000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            } ?? -1
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 || fds[1].revents != 0 { return }
            refusals = Self.drain(refusals, readable: fds[2...].map { $0.revents != 0 })
            guard fds[0].revents != 0 else { continue }
            let client = accept4(listenFD, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
            guard client >= 0 else { continue }
            // The request's deadline runs from the accept: 5 s for all of it, not per byte.
            let deadline = ContinuousClock.now + .seconds(ControlProtocol.requestTimeoutSeconds)
            let peer = UnixStream.peerCredentials(client).map { credentials in
                let groups = UnixStream.peerGroups(client)
                return ControlPeer(uid: credentials.uid, gid: credentials.gid, groups: groups,
                                   level: access.level(uid: credentials.uid, gid: credentials.gid, groups: groups))
            }
            guard let peer, let role = peer.slotRole else {
                refuse(client, .error(access.refusal, code: .permissionDenied), deadline: deadline, into: &refusals)
                continue
            }
            if case .refused(let why) = slots.withLock({ $0.admit(role) }) {
                refuse(client, .error(why, code: .busy), deadline: deadline, into: &refusals)
                continue
            }
            do {
                try DetachedThread.start { [self] in
                    serve(client, peer: peer, deadline: deadline)
                    close(client)
                    slots.withLock { $0.release(role) }
                }
            } catch {
                slots.withLock { $0.release(role) }
                refuse(client, .error("jobd cannot serve this connection now (\(error)); try again", code: .busy),
                       deadline: deadline, into: &refusals)
            }
        }
    }

    /// Sends `response` and ends the connection's writing side; the client's reading side is then
    /// drained by the accept loop (``drain(_:readable:)``) while few are refusing, so that the
    /// client reads the refusal rather than a broken pipe; beyond that, it is closed at once.
    private func refuse(_ fd: Int32, _ response: ControlResponse, deadline: ContinuousClock.Instant, into refusals: inout [Refusal]) {
        // A new connection's send buffer is empty: the line goes at once or not at all.
        let line = response.jsonLine
        let sent = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        guard sent == line.count, refusals.count < Self.maximumRefusing else {
            close(fd)
            return
        }
        shutdown(fd, Int32(SHUT_WR))
        refusals.append(Refusal(fd: fd, deadline: deadline))
    }

    /// Reads and drops what refused clients sent (`readable`, in the order of `refusals`); closes
    /// those that hung up, sent too much or are past their deadline, and returns the others.
    private static func drain(_ refusals: [Refusal], readable: [Bool]) -> [Refusal] {
        var kept: [Refusal] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let now = ContinuousClock.now
        for (index, var refusal) in refusals.enumerated() {
            var done = refusal.deadline <= now
            if !done && readable[index] {
                let count = chunk.withUnsafeMutableBytes { recv(refusal.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if count > 0 { refusal.drained += count }
                done = (count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN))
                    || refusal.drained > ControlProtocol.maximumRequestBytes * 2
            }
            if done { close(refusal.fd) } else { kept.append(refusal) }
        }
        return kept
    }

    /// Sends a last (error) response and ends the connection gracefully: the write side first, then
    /// the rest of what the client sends is read and dropped (by the deadline), so that the close
    /// that follows never breaks a connection whose client is still writing.
    private static func answerLast(_ fd: Int32, _ response: ControlResponse, deadline: ContinuousClock.Instant) {
        guard UnixStream.sendAll(fd, response.jsonLine) else { return }
        shutdown(fd, Int32(SHUT_WR))
        UnixStream.drain(fd, limit: ControlProtocol.maximumRequestBytes * 2, deadline: deadline)
    }

    private func serve(_ fd: Int32, peer: ControlPeer, deadline: ContinuousClock.Instant) {
        var peer = peer
        // Looked up here, not on the accept thread: the user database may be slow (LDAP).
        peer.userName = ControlPeer.userName(of: peer.uid)
        UnixStream.setSendTimeout(fd, seconds: ControlProtocol.requestTimeoutSeconds)
        func reject(_ message: String, _ code: ControlErrorCode) {
            Self.answerLast(fd, .error(message, code: code), deadline: deadline)
        }
        var buffer: [UInt8] = []
        let request: ControlRequest
        switch UnixStream.readLine(fd, limit: ControlProtocol.maximumRequestBytes, buffer: &buffer, deadline: deadline) {
        case .line(let bytes):
            guard let decoded = try? ControlRequest(jsonLine: bytes) else {
                reject("malformed request: expected one JSON object per line", .badRequest)
                return
            }
            guard decoded.version == ControlProtocol.version else {
                reject("unsupported protocol version \(decoded.version); this jobd speaks version \(ControlProtocol.version)",
                       .unsupportedVersion)
                return
            }
            request = decoded
        case .tooLong:
            reject("request too large: at most \(ControlProtocol.maximumRequestBytes) bytes", .badRequest)
            return
        case .closed, .failed, .timedOut:
            return  // gone, or not done by the deadline: nothing to answer
        }
        let reply = ControlReply(peer: peer)
        // A run's output comes at the job's pace: a client may read it slowly (a terminal that
        // scrolls back) and jobd meanwhile queues a bounded number of lines; but a client that
        // reads nothing for a minute is gone in all but name, and keeps its thread and slot no
        // longer (the lines are in the journal anyway).
        if request.streamsOutput { UnixStream.setSendTimeout(fd, seconds: Self.streamIdleTimeoutSeconds) }
        handler(request, reply)
        // Replies may come much later (a run with --wait): no deadline while waiting for them, but
        // a client that hangs up meanwhile ends the wait, and frees its slot, at once.
        while let line = reply.next(unlessHungUp: fd)?.line {
            guard UnixStream.sendAll(fd, line) else { break }
        }
        reply.abandon()
    }
}
