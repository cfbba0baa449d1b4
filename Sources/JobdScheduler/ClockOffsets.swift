package import JobdCalendar
package import JobdTimers

/// Where the wall clock and `CLOCK_BOOTTIME` stand against `CLOCK_MONOTONIC`, which is never set
/// and stops while the machine is suspended. Two readings tell, when the wall clock changed, a
/// suspend (boot time moved ahead of the monotonic clock by as long) from a clock that was set
/// (the wall clock moved by more, or less, than that): `clock.change`, which `jobctl why` reads
/// to name the elapses that fell in the gap.
package struct ClockOffsets: Sendable, Equatable {
    /// Wall clock less monotonic clock, in microseconds.
    package var realtimeUSec: Int64
    /// Boot time less monotonic clock, in microseconds; `nil` where the boot time is not read (tests' fake clocks).
    package var boottimeUSec: Int64?

    package init(monotonic: MonotonicInstant, realtime: RealtimeInstant, boottimeUSec: Int64?) {
        let monotonicUSec = Int64(clamping: monotonic.microseconds)
        realtimeUSec = realtime.microseconds &- monotonicUSec
        self.boottimeUSec = boottimeUSec.map { $0 &- monotonicUSec }
    }

    /// What happened between this reading and `later`.
    package struct Change: Sendable, Equatable {
        /// How long the machine was suspended.
        package var suspendedUSec: Int64
        /// How far the wall clock was set beyond that: forward when positive, back when negative.
        package var jumpUSec: Int64
    }

    /// Less than this between the boot time and the monotonic clock is the time between reading
    /// the two (a thread preempted between them), not a suspend: no machine sleeps and wakes that fast.
    package static let shortestSuspendUSec: Int64 = 1_000_000

    package func change(to later: ClockOffsets) -> Change {
        var suspended: Int64 = 0
        if let before = boottimeUSec, let after = later.boottimeUSec, after &- before >= Self.shortestSuspendUSec { suspended = after &- before }
        return Change(suspendedUSec: suspended, jumpUSec: later.realtimeUSec &- realtimeUSec &- suspended)
    }
}
