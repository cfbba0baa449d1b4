import Glibc

/// One state change jobd reports to its service manager: one or more `KEY=value` assignments of the
/// `sd_notify` protocol (see `man sd_notify`).
///
/// The protocol is newline-separated assignments, so values are kept on one line: a newline, carriage
/// return or NUL in a ``status(_:)`` text becomes a space rather than ending the assignment (which
/// would let a status text inject, say, `READY=1`).
package struct NotifyState: Sendable, Hashable {
    /// One `KEY=value` line of an sd_notify message.
    package struct Assignment: Sendable, Hashable {
        package let key: String
        package let value: String
    }

    /// The assignments this state sends, in order.
    package let assignments: [Assignment]

    private init(_ pairs: (String, String)...) {
        assignments = pairs.map { Assignment(key: $0.0, value: Self.singleLine($0.1)) }
    }

    /// `READY=1`: start-up is finished (send it after signal handlers are installed).
    package static let ready = NotifyState(("READY", "1"))
    /// `STOPPING=1`: shutdown has begun.
    package static let stopping = NotifyState(("STOPPING", "1"))
    /// `WATCHDOG=1`: the keep-alive ping; send it at least every half ``Watchdog/interval()``.
    package static let watchdog = NotifyState(("WATCHDOG", "1"))

    /// `RELOADING=1` with `MONOTONIC_USEC=` set to `CLOCK_MONOTONIC` now, in one message, as
    /// `Type=notify-reload` requires. Send ``ready`` when the reload is done.
    package static var reloading: NotifyState { reloading(monotonicUSec: monotonicNowUSec()) }

    /// `RELOADING=1` with an explicit `MONOTONIC_USEC=` (for tests and replays).
    package static func reloading(monotonicUSec: UInt64) -> NotifyState {
        NotifyState(("RELOADING", "1"), ("MONOTONIC_USEC", String(monotonicUSec)))
    }

    /// `STATUS=text`: a one-line, human-readable status shown by `systemctl status`.
    package static func status(_ text: String) -> NotifyState { NotifyState(("STATUS", text)) }

    /// `EXTEND_TIMEOUT_USEC=n`: asks for more time to start, reload or stop.
    package static func extendTimeout(_ duration: Duration) -> NotifyState {
        NotifyState(("EXTEND_TIMEOUT_USEC", String(duration.microseconds)))
    }


    private static func singleLine(_ value: String) -> String {
        // Compare scalars: "\r\n" is one Character, and must still become a single space per scalar.
        String(String.UnicodeScalarView(value.unicodeScalars.map { scalar in
            scalar == "\n" || scalar == "\r" || scalar == "\0" ? " " : scalar
        }))
    }

    static func monotonicNowUSec() -> UInt64 {
        var now = timespec()
        // CLOCK_MONOTONIC cannot fail with a valid pointer; systemd compares it to its own reading.
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}

extension Duration {
    /// Whole microseconds, rounded down, never negative: the unit of systemd's `*_USEC` values.
    var microseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        return UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000)
    }
}
