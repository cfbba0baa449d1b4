@testable import JobdDaemon
import JobdTestKit
import JobdTimers
import Testing
@testable import JobdHost

/// The watchdog's heartbeat on a manual timer queue: a tick every half of `WATCHDOG_USEC`, as
/// sd_watchdog_enabled(3) advises, so that a ping late by less than half the interval still reaches
/// systemd in time. (ServiceNotifyTests sees the real jobd's pings arrive, at whatever pace a
/// loaded machine allows.)
@Suite struct WatchdogPingerTests {
    @Test func itTicksEveryHalfTheInterval() throws {
        let queue = TimerQueue.manual()
        let ticks = Guarded(0)
        let before = MonotonicInstant.now()
        let pinger = WatchdogPinger(queue: queue, interval: .seconds(10)) { ticks.withLock { $0 += 1 } }
        let after = MonotonicInstant.now()
        let first = try #require(pinger.timer.deadline)
        #expect(first.nanoseconds >= (before + .seconds(5)).nanoseconds && first.nanoseconds <= (after + .seconds(5)).nanoseconds)
        var due = first
        for tick in 1...3 {
            #expect(queue.fireDue(now: MonotonicInstant(nanoseconds: due.nanoseconds - 1)) == 0, "not before half the interval")
            #expect(queue.fireDue(now: due) == 1)
            #expect(ticks.withLock { $0 } == tick)
            due = due + .seconds(5)
            #expect(pinger.timer.deadline == due)
        }
    }
}

/// The trim after a burst or a reload, on a manual timer queue: once at once, then
/// `SettledTrim.laterTrims` times more, `SettledTrim.delay` apart, counted from the last trim asked
/// for, however many were asked for in a row.
@Suite struct SettledTrimTests {
    @Test func aSeriesOfTrimsIsFollowedByOneSeriesOfLaterOnes() throws {
        let queue = TimerQueue.manual()
        let trims = Guarded(0)
        let trim = SettledTrim(queue: queue) { trims.withLock { $0 += 1 } }
        #expect(queue.fireDue(now: .now() + .seconds(3_600)) == 0, "nothing before the first trim")
        trim.trimNow()
        trim.trimNow()
        let last = MonotonicInstant.now()
        trim.trimNow()
        #expect(trims.withLock { $0 } == 3)
        let settled = last + SettledTrim.delay
        #expect(queue.fireDue(now: MonotonicInstant(nanoseconds: settled.nanoseconds - 1_000_000)) == 0, "not before the delay after the last")
        var fired = 0
        var now = MonotonicInstant.now()
        for _ in 0..<20 {
            now = now + SettledTrim.delay + .seconds(1)
            fired += queue.fireDue(now: now)
        }
        #expect(fired == SettledTrim.laterTrims && trims.withLock { $0 } == 3 + SettledTrim.laterTrims)
        withExtendedLifetime(trim) {}
    }

    /// A trim asked for during a series starts it again: the later trims count from the last.
    @Test func aTrimDuringASeriesStartsItAgain() throws {
        let queue = TimerQueue.manual()
        let trims = Guarded(0)
        let trim = SettledTrim(queue: queue) { trims.withLock { $0 += 1 } }
        trim.trimNow()
        var now = MonotonicInstant.now() + SettledTrim.delay + .seconds(1)
        #expect(queue.fireDue(now: now) == 1)
        trim.trimNow()
        var fired = 0
        for _ in 0..<20 {
            now = now + SettledTrim.delay + .seconds(1)
            fired += queue.fireDue(now: now)
        }
        #expect(fired == SettledTrim.laterTrims && trims.withLock { $0 } == 3 + SettledTrim.laterTrims)
        withExtendedLifetime(trim) {}
    }
}
