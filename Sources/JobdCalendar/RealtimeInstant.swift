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
