import Dispatch
import Glibc
import JobdTestKit
import JobdTimers
import Testing

/// The wall-clock watch, through the real kernel path: setting `CLOCK_REALTIME` to its own current
/// value is a clock set like any other (the clock moves by the microseconds the call takes). It sets
/// the machine's clock, so it needs root and lives with the integration tests, out of the unit tier
/// (`scripts/test --unit`); the e2e container cannot take its place, as systemd-nspawn withholds
/// CAP_SYS_TIME.
@Suite struct WallClockSetTests {
    @Test func settingTheWallClockIsHeardAndMonotonicTimersStay() throws {
        try Requirement.root("to set CLOCK_REALTIME")
        let queue = try TimerQueue()
        let heard = DispatchSemaphore(value: 0)
        queue.onWallClockSet { heard.signal() }
        let target = IdleTarget(queue: queue)
        target.timer.schedule(after: .seconds(3600))
        let deadline = target.timer.deadline

        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        #expect(clock_settime(CLOCK_REALTIME, &now) == 0)

        #expect(heard.wait(timeout: .now() + .seconds(10)) == .success, "the clock set was heard")
        #expect(target.timer.deadline == deadline, "a monotonic deadline does not move")
        // And the watch is re-armed: a second set is heard too.
        clock_gettime(CLOCK_REALTIME, &now)
        #expect(clock_settime(CLOCK_REALTIME, &now) == 0)
        #expect(heard.wait(timeout: .now() + .seconds(10)) == .success, "the watch was re-armed")
    }

    /// A timer's owner that is never due within the test.
    final class IdleTarget: TimerTarget {
        let timer: WeakTimer

        init(queue: TimerQueue) {
            timer = queue.makeTimer(label: "idle")
            timer.bind(to: self)
        }

        deinit { timer.invalidate(reason: .ownerDeinit) }

        func timerFired(_ timer: WeakTimer, at now: MonotonicInstant) {}
    }
}
