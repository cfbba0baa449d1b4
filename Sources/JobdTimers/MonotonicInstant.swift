import Glibc

/// A point on `CLOCK_MONOTONIC`, in nanoseconds: the clock the timer core fires on.
///
/// The same clock that timerfd arms against and that systemd reports as `MONOTONIC_USEC=`, so a
/// deadline never moves when the wall clock is set, and a figure in a log can be compared with
/// systemd's own. Eight bytes, where `SuspendingClock.Instant` takes sixteen: it is stored once per
/// timer, and jobd is built for 100,000 of them.
public struct MonotonicInstant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Nanoseconds since an unspecified point (on Linux, roughly boot).
    public var nanoseconds: UInt64

    public init(nanoseconds: UInt64) {
        self.nanoseconds = nanoseconds
    }

    /// Now, read from `CLOCK_MONOTONIC`.
    public static func now() -> MonotonicInstant {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return MonotonicInstant(nanoseconds: UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec))
    }

    /// Microseconds, the unit of systemd's `MONOTONIC_USEC=`.
    public var microseconds: UInt64 { nanoseconds / 1_000 }

    public static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    /// The instant `duration` later, saturating instead of overflowing (an infinite span stays far away).
    public func advanced(by duration: Duration) -> MonotonicInstant {
        let delta = duration.nanosecondsSaturated
        if delta >= 0 {
            let (sum, overflow) = nanoseconds.addingReportingOverflow(UInt64(delta))
            return MonotonicInstant(nanoseconds: overflow ? .max : sum)
        }
        let magnitude = UInt64(-delta)
        return MonotonicInstant(nanoseconds: nanoseconds > magnitude ? nanoseconds - magnitude : 0)
    }

    /// The time from `other` to `self`; negative when `other` is later.
    public func duration(since other: MonotonicInstant) -> Duration {
        if nanoseconds >= other.nanoseconds {
            return .nanoseconds(Int64(clamping: nanoseconds - other.nanoseconds))
        }
        return .nanoseconds(-Int64(clamping: other.nanoseconds - nanoseconds))
    }

    public static func + (lhs: MonotonicInstant, rhs: Duration) -> MonotonicInstant {
        lhs.advanced(by: rhs)
    }

    public var description: String { "\(nanoseconds / 1_000)us" }
}

/// For jobd's own targets; not part of the JobdTimers library's API (it does not extend the standard library).
extension Duration {
    /// The duration in nanoseconds, clamped to `Int64`.
    package var nanosecondsSaturated: Int64 {
        let (seconds, attoseconds) = components
        let (fromSeconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, overflow2) = fromSeconds.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return total
    }
}
