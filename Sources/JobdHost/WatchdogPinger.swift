package import JobdTimers

/// The watchdog's heartbeat. Its timer lives on the same queue as every job's, and a fire only asks
/// the main loop to ping: a `WATCHDOG=1` reaches systemd only when both the timing thread and the
/// main loop are alive. A pinger on a thread of its own would keep pinging for a dead scheduler.
/// jobd posts the ask ahead of the events waiting (`EventInbox.yieldAhead`): 10,000 runs due at
/// once kept a ping queued behind their starts past the unit's 30 s, and systemd killed jobd.
package final class WatchdogPinger: TimerTarget {
    let timer: WeakTimer
    private let onTick: @Sendable () -> Void

    package init(queue: TimerQueue, interval: Duration, onTick: @escaping @Sendable () -> Void) {
        self.onTick = onTick
        timer = queue.makeTimer(label: "watchdog")
        timer.bind(to: self)
        // Half the interval, as sd_watchdog_enabled(3) advises.
        let period = interval / 2
        timer.schedule(after: period, repeating: period)
    }

    deinit {
        timer.invalidate(reason: .ownerDeinit)
    }

    package func timerFired(_ timer: WeakTimer, at now: MonotonicInstant) {
        onTick()
    }
}
