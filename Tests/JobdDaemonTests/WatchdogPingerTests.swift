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

/// The trim after a burst or a reload, on a manual timer queue: once at once, and once more
/// `SettledTrim.delay` after the last trim asked for, however many were asked for in a row; then
/// again while a later trim still gives memory back, at most `SettledTrim.laterTrims` times.
@Suite struct SettledTrimTests {
    @Test func eachTrimIsFollowedByOneMoreAfterTheLastOfASeries() throws {
        let queue = TimerQueue.manual()
        let trims = Guarded(0)
        let trim = SettledTrim(queue: queue) { trims.withLock { $0 += 1 }; return false }
        #expect(queue.fireDue(now: .now() + .seconds(3_600)) == 0, "nothing before the first trim")
        trim.trimNow()
        trim.trimNow()
        let last = MonotonicInstant.now()
        trim.trimNow()
        #expect(trims.withLock { $0 } == 3)
        let settled = last + SettledTrim.delay
        #expect(queue.fireDue(now: MonotonicInstant(nanoseconds: settled.nanoseconds - 1_000_000)) == 0, "not before the delay after the last")
        #expect(queue.fireDue(now: .now() + SettledTrim.delay) == 1)
        #expect(trims.withLock { $0 } == 4, "one later trim, which gave nothing back")
        #expect(queue.fireDue(now: .now() + .seconds(3_600)) == 0, "and no more")
        withExtendedLifetime(trim) {}
    }

    /// A later trim that gives memory back (the state writer still writing a burst's histories) is
    /// followed by another, until one gives nothing back, or the series has made its most.
    @Test(arguments: [(givesBack: 2, later: 3), (givesBack: 100, later: SettledTrim.laterTrims)])
    func laterTrimsGoOnWhileTheyGiveMemoryBack(_ series: (givesBack: Int, later: Int)) throws {
        let queue = TimerQueue.manual()
        let trims = Guarded(0)
        // The first trim (at once) gives nothing back; the next `givesBack` do.
        let trim = SettledTrim(queue: queue) { trims.withLock { $0 += 1; return $0 > 1 && $0 <= 1 + series.givesBack } }
        trim.trimNow()
        var fired = 0
        var now = MonotonicInstant.now()
        for _ in 0..<20 {
            now = now + SettledTrim.delay + .seconds(1)
            fired += queue.fireDue(now: now)
        }
        #expect(fired == series.later && trims.withLock { $0 } == 1 + series.later)
        withExtendedLifetime(trim) {}
    }
}
