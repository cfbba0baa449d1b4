/// The notifications not yet sent, and which goes next: the decisions of a sender that must never
/// wait for the service manager (``Notifier`` sends with `MSG_DONTWAIT`), without its socket.
///
/// - `WATCHDOG=1` goes first, alone, whatever else waits: a ping never queues behind a status.
///   Pings that wait are one ping.
/// - `STATUS=` is coalesced: only the latest text waits, and goes with the last other message
///   (as `READY=1` and the status travel in one datagram), or alone.
/// - Everything else (`READY=1`, `RELOADING=1`, `STOPPING=1`, …) waits in order, each posting one
///   message; at most ``lifecycleLimit`` of them, then the oldest is dropped and counted.
///
/// ```swift
/// var outbox = NotifyOutbox()
/// outbox.post([.ready, .status("3 jobs")])
/// while let message = outbox.next {
///     guard try notifier.send(message) != .wouldBlock else { break }  // try again later
///     outbox.markSent()
/// }
/// ```
package struct NotifyOutbox: Sendable, Hashable {
    /// At most this many messages other than pings and statuses wait.
    package static let lifecycleLimit = 32

    /// A ping waits.
    private(set) package var watchdog = false
    /// Messages other than pings and statuses, oldest first.
    private(set) package var lifecycle: [[NotifyState]] = []
    /// The latest status not yet sent.
    private(set) package var status: NotifyState?
    /// Messages dropped because ``lifecycleLimit`` were waiting.
    private(set) package var dropped = 0

    package init() {}

    package var isEmpty: Bool { !watchdog && lifecycle.isEmpty && status == nil }

    /// Adds what one notification says: pings and statuses where they go, the rest as one message.
    package mutating func post(_ states: [NotifyState]) {
        var message: [NotifyState] = []
        for state in states {
            if state == .watchdog {
                watchdog = true
            } else if state.assignments.first?.key == "STATUS" {
                status = state
            } else {
                message.append(state)
            }
        }
        guard !message.isEmpty else { return }
        if lifecycle.count == Self.lifecycleLimit {
            lifecycle.removeFirst()
            dropped += 1
        }
        lifecycle.append(message)
    }

    /// The message to send next, or `nil` when nothing waits.
    package var next: [NotifyState]? {
        if watchdog { return [.watchdog] }
        if let first = lifecycle.first {
            return lifecycle.count == 1 ? first + (status.map { [$0] } ?? []) : first
        }
        return status.map { [$0] }
    }

    /// ``next`` was sent (or failed for good): it no longer waits.
    package mutating func markSent() {
        if watchdog {
            watchdog = false
        } else if !lifecycle.isEmpty {
            lifecycle.removeFirst()
            if lifecycle.isEmpty { status = nil }
        } else {
            status = nil
        }
    }
}
