import CSystemd

/// The service manager's watchdog, as announced to this process in `WATCHDOG_USEC` (and
/// `WATCHDOG_PID`, which names the process the watchdog is meant for).
package enum Watchdog {
    /// The watchdog interval, or `nil` when no watchdog is set up for this process (no
    /// `WATCHDOG_USEC`, or `WATCHDOG_PID` names another process). Ping with ``NotifyState/watchdog``
    /// at least every half interval, as `man sd_watchdog_enabled` recommends.
    /// - Throws: ``SystemdError`` with code ``SystemdError/Code/watchdogInvalid`` when the variables
    ///   are malformed (for instance `WATCHDOG_USEC=soon`).
    package static func interval() throws(SystemdError) -> Duration? {
        var usec: UInt64 = 0
        // unset_environment = 0: a reload or a re-exec of the same process must still see them.
        let enabled = try SystemdError.check(
            sd_watchdog_enabled(0, &usec), .watchdogInvalid,
            "cannot parse WATCHDOG_USEC/WATCHDOG_PID from the environment; expected a positive number of microseconds and a pid"
        )
        guard enabled > 0 else { return nil }
        return .microseconds(Int64(clamping: usec))
    }
}
