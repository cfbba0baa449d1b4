import Glibc
import JobdTimers

/// Wall-clock time, for what operators read: the scheduler itself runs on the monotonic clock.
enum WallClock {
    static func nowUSec() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }

    /// The wall-clock time of a monotonic instant, as of now.
    static func usec(of instant: MonotonicInstant) -> Int64 {
        let offset = instant.duration(since: .now()).nanosecondsSaturated / 1_000
        return nowUSec() + offset
    }
}
