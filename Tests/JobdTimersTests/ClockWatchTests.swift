import Glibc
import Testing

@testable import JobdTimers

/// The wall-clock watch (issue 20): armed at the largest time the kernel takes, as systemd arms it,
/// so that it is cancelled by a clock set and never expires. At `Int32.max` it expired in 2038
/// (or at once on a machine whose clock is past it), and calendar jobs stopped following the clock.
@Suite struct ClockWatchTests {
    @Test func theWatchIsArmedAtTimeTMax() {
        #expect(TimerfdDriver.clockWatchSeconds == Int.max)
    }

    /// Read back from the kernel: the armed watch outlasts 2038 by far (the kernel clamps TIME_T_MAX
    /// to 2262), so a clock set past 2038 cannot make it expire.
    @Test func theKernelHoldsItFarBeyond2038() throws {
        let driver = try TimerfdDriver()
        let remaining = try #require(driver.clockWatchRemaining(), "the watch is armed")
        let secondsTo2038 = Int64(Int32.max) - Int64(time(nil))
        let year: Int64 = 31_557_600
        #expect(remaining.components.seconds > 200 * year, "remaining \(remaining)")
        #expect(remaining.components.seconds > secondsTo2038)
    }
}
