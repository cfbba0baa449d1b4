import JobdLogging
import JobdScheduler
import JobdTimers
package import Logging
package import SystemdKit

/// jobd's side of the sd_notify protocol: what it tells systemd and when, sent from the main loop
/// without ever waiting for systemd.
///
/// Every notification goes through a ``NotifyOutbox`` and out with `MSG_DONTWAIT` (``Notifier``):
/// when the socket's queue is full (PID 1 busy with a long `daemon-reload`), what waits is tried
/// again every ``retryDelay`` on the main loop's timer (``attachRetry(queue:onDue:)``), `WATCHDOG=1`
/// first and `STATUS=` coalesced to its latest text. A failure to notify is logged once and never
/// stops the daemon (systemd will act on the silence itself).
package final class ServiceNotifier {
    /// How soon notifications that found the socket full are tried again.
    static let retryDelay: Duration = .milliseconds(100)

    private let notifier: Notifier
    private let logger: Logger
    private var outbox = NotifyOutbox()
    private var reportedFailure = false
    private var reportedDrops = 0
    /// Since when the socket has had no room, while it has none.
    private var fullSince: MonotonicInstant?
    private var retryTimer: DeadlineTimer?

    package init(logger: Logger, notifier: Notifier = Notifier()) {
        self.logger = logger
        self.notifier = notifier
    }

    /// From now on, notifications that found the socket full are tried again: `onDue` is called on
    /// the timing thread when it is time, and should make the main loop call ``flush()``. Until
    /// then they wait for the next notification.
    func attachRetry(queue: TimerQueue, onDue: @escaping @Sendable () -> Void) {
        retryTimer = DeadlineTimer(queue: queue, label: "notify-retry", onDue: onDue)
    }

    func send(_ states: NotifyState...) {
        send(states)
    }

    func send(_ states: [NotifyState]) {
        outbox.post(states)
        flush()
    }

    /// Sends what waits, as far as the socket takes it.
    func flush() {
        while let message = outbox.next {
            do {
                if try notifier.send(message) == .wouldBlock {
                    if fullSince == nil {
                        fullSince = .now()
                        logger.notice("the service manager's notify socket is full: notifications wait (WATCHDOG=1 first, STATUS= coalesced); jobs run on")
                    }
                    retryTimer?.arm(at: .now() + Self.retryDelay)
                    return
                }
            } catch {
                if !reportedFailure {
                    reportedFailure = true
                    logger.warning("cannot notify the service manager: \(error)")
                }
            }
            outbox.markSent()
        }
        if let since = fullSince {
            fullSince = nil
            let waited = MonotonicInstant.now().duration(since: since)
            logger.notice("the service manager's notify socket takes notifications again, after \(waited.components.seconds)s")
        }
        if outbox.dropped > reportedDrops {
            logger.warning("\(outbox.dropped - reportedDrops) notification(s) dropped while the notify socket was full: more than \(NotifyOutbox.lifecycleLimit) waited")
            reportedDrops = outbox.dropped
        }
    }
}
