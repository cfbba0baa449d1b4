import Glibc
import JobdCalendar

/// Times as systemctl shows them: `Sun 2026-11-22 06:30:00 UTC`, `19min 3s left`, `40min ago`;
/// the protocol's optional microseconds written by JobdCalendar's ``TimestampFormat``, the one
/// formatter jobd and jobctl share, in the zone jobctl runs in (`TZ`, else `/etc/localtime`).
package enum TimeFormat {
    /// Read once: a list formats thousands of times, and the zone does not change while jobctl runs.
    private static let zone = TimeZoneRules.current()

    package static func nowUSec() -> Int64 {
        RealtimeInstant.now().microseconds
    }

    /// The local time, with weekday and zone abbreviation; `n/a` when there is none.
    package static func wallClock(_ usec: Int64?) -> String {
        guard let usec else { return "n/a" }
        return TimestampFormat.timestamp(RealtimeInstant(microseconds: usec), in: zone)
    }

    /// How far `usec` is from now, rounded down as `systemctl list-timers` rounds LEFT and PASSED
    /// (``TimestampFormat/relative(_:now:)``); `n/a` when there is no time.
    package static func relative(_ usec: Int64?, now: Int64) -> String {
        guard let usec else { return "n/a" }
        return TimestampFormat.relative(RealtimeInstant(microseconds: usec), now: RealtimeInstant(microseconds: now))
    }
}
