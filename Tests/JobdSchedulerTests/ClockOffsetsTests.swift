import JobdCalendar
import JobdScheduler
import JobdTimers
import Testing

/// Issue 40 item 1: `clock.change` tells a suspend from a clock that was set, by how the wall
/// clock and the boot time moved against the monotonic clock, which stops during a suspend.
@Suite struct ClockOffsetsTests {
    static func reading(monotonic: UInt64, realtime: Int64, boottime: Int64?) -> ClockOffsets {
        ClockOffsets(monotonic: MonotonicInstant(nanoseconds: monotonic * 1_000), realtime: RealtimeInstant(microseconds: realtime),
                     boottimeUSec: boottime)
    }

    /// How long it was suspended, and how far the clock was set beyond that.
    static func figures(_ change: ClockOffsets.Change) -> [Int64] { [change.suspendedUSec, change.jumpUSec] }

    @Test func aSuspendAndASetClockAreToldApart() {
        let before = Self.reading(monotonic: 1_000, realtime: 5_000_000, boottime: 1_000)
        // Suspended for 2 s: the wall clock and the boot time moved 2 s, the monotonic clock not.
        #expect(Self.figures(before.change(to: Self.reading(monotonic: 1_500, realtime: 7_000_500, boottime: 2_001_500)))
                == [2_000_000, 0])
        // Set forward by 1 h: the wall clock alone moved.
        #expect(Self.figures(before.change(to: Self.reading(monotonic: 1_500, realtime: 3_605_000_500, boottime: 1_500)))
                == [0, 3_600_000_000])
        // Set back by 10 s during a suspend of 60 s.
        #expect(Self.figures(before.change(to: Self.reading(monotonic: 1_500, realtime: 55_000_500, boottime: 60_001_500)))
                == [60_000_000, -10_000_000])
        // The boot time read a little after the monotonic clock is no suspend.
        #expect(Self.figures(before.change(to: Self.reading(monotonic: 1_500, realtime: 5_000_500, boottime: 2_000)))
                == [0, 0])
        // Without the boot time (fake clocks), any move of the wall clock counts as set.
        let unknown = Self.reading(monotonic: 1_000, realtime: 5_000_000, boottime: nil)
        #expect(Self.figures(unknown.change(to: Self.reading(monotonic: 1_500, realtime: 7_000_500, boottime: nil)))
                == [0, 2_000_000])
    }
}
