import Glibc
import JobdCalendar
import JobdTimers

/// Wall-clock time, for what operators read: the scheduler itself runs on the monotonic clock.
enum WallClock {
    static func nowUSec() -> Int64 {
        RealtimeInstant.now().microseconds
    }

    /// The wall-clock time of a monotonic instant, as of now.
    static func usec(of instant: MonotonicInstant) -> Int64 {
        let offset = instant.duration(since: .now()).nanosecondsSaturated / 1_000
        return nowUSec() + offset
    }
}
