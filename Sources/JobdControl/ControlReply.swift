import CSocket
import Foundation
import Glibc
import Synchronization

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

    private let condition = NSCondition()
    private var pending: [Outgoing] = []
    private var finished = false
    private var queuedOutput = 0
    private var lostOutput = 0
    /// Written to whenever there is something new; `-1` once abandoned.
    private var wake: (read: Int32, write: Int32) = (-1, -1)

    /// Who asked: `nil` for a reply made inside jobd (no connection).
    package let peer: ControlPeer?

    init(peer: ControlPeer? = nil) {
        self.peer = peer
        var fds: [Int32] = [-1, -1]
        if pipe2(&fds, O_CLOEXEC | O_NONBLOCK) == 0 { wake = (fds[0], fds[1]) }
    }

    deinit { closeWake() }

    package func send(_ response: ControlResponse) {
        condition.lock()
        if !finished { pending.append(.response(response)) }
        signalLocked()
        condition.unlock()
    }

    /// Sends the line that `make` makes, newline included, and finishes. `make` runs on the thread
    /// that serves the client, not the caller's: a reply that costs milliseconds to make (`list`
    /// at 10,000 jobs) then keeps no one else waiting (issue 19: the daemon's main loop).
    package func finish(making make: @escaping @Sendable () -> [UInt8]) {
        condition.lock()
        if !finished { pending.append(.made(make)) }
        finished = true
        signalLocked()
        condition.unlock()
    }

    /// One line of a run's output: queued if fewer than ``outputQueueLimit`` wait, else counted as lost.
    package func sendOutput(_ line: String, standardOutput: Bool) {
        condition.lock()
        defer { condition.unlock() }
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
        condition.lock()
        finished = true
        signalLocked()
        condition.unlock()
    }

    /// Sends `response` and finishes.
    package func finish(with response: ControlResponse) {
        send(response)
        finish()
    }

    /// The client is gone (or served): later responses are dropped, and the pipe is closed.
    func abandon() {
        condition.lock()
        finished = true
        pending.removeAll()
        closeWake()
        condition.unlock()
    }

    /// The next response to write, or `nil` when finished and drained, or when the client on
    /// `client` hung up first.
    func next(unlessHungUp client: Int32) -> Outgoing? {
        var watched = Int16(JOBD_POLLRDHUP)
        while true {
            condition.lock()
            if !pending.isEmpty {
                defer { condition.unlock() }
                return takeLocked()
            }
            let wakeFD = wake.read
            if finished || wakeFD < 0 {
                // Without a pipe (pipe2 failed): wait on the condition alone, as before.
                while !finished && pending.isEmpty && wakeFD < 0 { condition.wait() }
                defer { condition.unlock() }
                return pending.isEmpty ? nil : takeLocked()
            }
            condition.unlock()
            var fds = [pollfd(fd: client, events: watched, revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0 && errno != EINTR { return nil }
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
