import Glibc

/// A point on the wall clock, in microseconds since the Unix epoch (UTC).
///
/// This is systemd's `usec_t` for `CLOCK_REALTIME`: calendar events elapse at realtime instants,
/// and everything in this module that says "after" or "next" compares these values.
package struct RealtimeInstant: Hashable, Comparable, Sendable {
    /// Microseconds since 1970-01-01 00:00:00 UTC.
    package var microseconds: Int64

    /// Creates an instant from microseconds since the Unix epoch.
    package init(microseconds: Int64) {
        self.microseconds = microseconds
    }

    /// The wall clock now (`CLOCK_REALTIME`): the one place jobd and jobctl read it. jobd's
    /// scheduler takes it injected (``JobdScheduler/Scheduler/Clocks``), so tests set the time.
    package static func now() -> RealtimeInstant {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return RealtimeInstant(microseconds: Int64(now.tv_sec) * microsecondsPerSecond + Int64(now.tv_nsec) / 1_000)
    }

    /// Creates an instant from whole seconds since the Unix epoch.
    package init(seconds: Int64) {
        self.microseconds = seconds * Self.microsecondsPerSecond
    }

    /// Whole seconds since the epoch, rounded towards negative infinity.
    package var seconds: Int64 {
        CivilCalendar.floorDivide(microseconds, Self.microsecondsPerSecond)
    }

    /// The sub-second part, always in `0..<1_000_000`.
    package var microsecondOfSecond: Int64 {
        microseconds - seconds * Self.microsecondsPerSecond
    }

    package static func < (lhs: RealtimeInstant, rhs: RealtimeInstant) -> Bool {
        lhs.microseconds < rhs.microseconds
    }

    static let microsecondsPerSecond: Int64 = 1_000_000
}
