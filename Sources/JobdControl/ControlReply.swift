import CSocket
import Glibc
import JobdLocks
import JobdSystem

/// The way back to one client: the daemon sends responses, then finishes. Thread-safe. The
/// serving thread waits for them beside the client's socket (a pipe wakes it), so that it sees a
/// hang-up at once; after that, responses are dropped.
package final class ControlReply: @unchecked Sendable {
    /// At most this many output lines wait for a client; more are dropped and counted, and the
    /// client hears how many (`run-output-lost`) once it has caught up.
    package static let outputQueueLimit = 1_024

    /// A response to write: as it is, or as a line that the serving thread makes when it is due.
    enum Outgoing {
        case response(ControlResponse)
        case made(@Sendable () -> [UInt8])

        /// The bytes to send, newline included.
        var line: [UInt8] {
            switch self {
            case .response(let response): response.jsonLine
            case .made(let make): make()
            }
        }
    }

    private let condition = Condition()
    private var pending: [Outgoing] = []
    private var finished = false
    private var queuedOutput = 0
    private var lostOutput = 0
    /// Written to whenever there is something new; `-1` once abandoned.
    private var wake: (read: Int32, write: Int32) = (-1, -1)

    /// Who asked: `nil` for a reply made inside jobd (no connection).
    package let peer: ControlPeer?

    package init(peer: ControlPeer? = nil) {
        self.peer = peer
        var fds: [Int32] = [-1, -1]
        if pipe2(&fds, O_CLOEXEC | O_NONBLOCK) == 0 { wake = (fds[0], fds[1]) }
    }

    deinit { closeWake() }

    package func send(_ response: ControlResponse) {
        condition.withLock {
            if !finished { pending.append(.response(response)) }
            signalLocked()
        }
    }

    /// Sends the line that `make` makes, newline included, and finishes. `make` runs on the thread
    /// that serves the client, not the caller's: a reply that costs milliseconds to make (`list`
    /// at 10,000 jobs) then keeps no one else waiting (issue 19: the daemon's main loop).
    package func finish(making make: @escaping @Sendable () -> [UInt8]) {
        condition.withLock {
            if !finished { pending.append(.made(make)) }
            finished = true
            signalLocked()
        }
    }

    /// One line of a run's output: queued if fewer than ``outputQueueLimit`` wait, else counted as lost.
    package func sendOutput(_ line: String, standardOutput: Bool) {
        condition.withLock {
            guard !finished else { return }
            guard queuedOutput < Self.outputQueueLimit else {
                lostOutput += 1
                return
            }
            var response = ControlResponse(type: .runOutput)
            response.line = line
            response.stream = standardOutput ? "stdout" : "stderr"
            pending.append(.response(response))
            queuedOutput += 1
            signalLocked()
        }
    }

    /// The next pending response (with the lock held): a note of lost lines first, once the
    /// queue has half emptied, or before the last response.
    private func takeLocked() -> Outgoing {
        if lostOutput > 0, queuedOutput <= Self.outputQueueLimit / 2 || pending.count == 1 {
            var note = ControlResponse(type: .runOutputLost)
            note.lost = lostOutput
            lostOutput = 0
            return .response(note)
        }
        let outgoing = pending.removeFirst()
        if case .response(let response) = outgoing, response.type == .runOutput { queuedOutput -= 1 }
        return outgoing
    }

    /// No more responses; the connection closes once they are written.
    package func finish() {
        condition.withLock {
            finished = true
            signalLocked()
        }
    }

    /// Sends `response` and finishes.
    package func finish(with response: ControlResponse) {
        send(response)
        finish()
    }

    /// The lines sent and not yet written, newline included, and whether the reply is finished:
    /// for a reader in the same process (the daemon's tests), in place of a client's socket.
    package func takeSent() -> (lines: [[UInt8]], finished: Bool) {
        let (taken, done) = condition.withLock { () -> ([Outgoing], Bool) in
            defer { pending.removeAll() }
            queuedOutput = 0
            return (pending, self.finished)
        }
        return (taken.map(\.line), done)
    }

    /// The client is gone (or served): later responses are dropped, and the pipe is closed.
    func abandon() {
        condition.withLock {
            finished = true
            pending.removeAll()
            closeWake()
        }
    }

    /// The next response to write, or `nil` when finished and drained, or when the client on
    /// `client` hung up first.
    func next(unlessHungUp client: Int32) -> Outgoing? {
        var watched = Int16(JOBD_POLLRDHUP)
        /// What the lock's holder found: the answer, or the pipe to wait on beside the client.
        enum Step {
            case answer(Outgoing?)
            case poll(wakeFD: Int32)
        }
        while true {
            let step = condition.withLock { () -> Step in
                if !pending.isEmpty { return .answer(takeLocked()) }
                let wakeFD = wake.read
                guard !finished && wakeFD >= 0 else {
                    // Without a pipe (pipe2 failed): wait on the condition alone, as before.
                    while !finished && pending.isEmpty && wakeFD < 0 { condition.wait() }
                    return .answer(pending.isEmpty ? nil : takeLocked())
                }
                return .poll(wakeFD: wakeFD)
            }
            let wakeFD: Int32
            switch step {
            case .answer(let outgoing): return outgoing
            case .poll(let fd): wakeFD = fd
            }
            var fds = [pollfd(fd: client, events: watched, revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
            if retryingOnInterrupt({ poll(&fds, 2, -1) }) < 0 { return nil }
            // Hung up (or broken): POLLHUP and POLLERR come whatever is asked for. A half-close
            // (POLLRDHUP alone) may still read the answer: stop watching for it.
            if fds[0].revents & Int16(POLLHUP | POLLERR) != 0 { return nil }
            if fds[0].revents & Int16(JOBD_POLLRDHUP) != 0 { watched = 0 }
            if fds[1].revents != 0 {
                var bytes = [UInt8](repeating: 0, count: 64)
                _ = read(wakeFD, &bytes, bytes.count)
            }
        }
    }

    private func signalLocked() {
        condition.broadcast()
        if wake.write >= 0 {
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
        }
    }

    private func closeWake() {
        if wake.read >= 0 { close(wake.read) }
        if wake.write >= 0 { close(wake.write) }
        wake = (-1, -1)
    }
}
