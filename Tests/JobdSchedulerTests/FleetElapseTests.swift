import JobdCalendar
import JobdConfig
import JobdScheduler
import JobdTestKit
import JobdTimers
import Testing

/// The elapse a fleet job's fire claims is the calendar's scheduled time, not the moment the node's
/// timer fired: late fires (`RandomizedDelaySec=`, `AccuracySec=`, a busy loop) and a clock that is
/// off by less than the schedule's period name the same elapse on every node.
extension CalendarSchedulingTests {
    func fire(_ scheduler: Scheduler, _ queue: TimerQueue, _ fake: FakeClocks, after seconds: Int64) throws -> RealtimeInstant? {
        fake.advance(seconds)
        queue.fireDue(now: fake.monotonic)
        let fell = try #require(fired.withLock { $0.popLast() })
        guard case .due(let elapse) = scheduler.jobDue(fell, now: fake.monotonic) else {
            Issue.record("the fire of a current owner was not taken")
            return nil
        }
        scheduler.settle(active: [])
        return elapse
    }

    @Test func aFleetFireNamesTheScheduledElapseHoweverLateItFires() throws {
        let fake = FakeClocks(realtime: "2026-11-22 10:20:00 UTC")
        let (scheduler, queue) = makeScheduler(fake)
        scheduler.load([try job("report", "OnCalendar=*:0/15\nRunOn=one-node\nAccuracySec=1min\nRandomizedDelaySec=30s")])
        let quarter = try BaseTime.parse("2026-11-22 10:30:00 UTC", now: .init(seconds: 0), zone: .utc)
        // The timer fires up to 90 s after 10:30; the elapse is 10:30 all the same.
        let deadline = try #require(scheduler.generation.owners["report"]?.timer.deadline)
        let late = Int64(deadline.duration(since: fake.monotonic).components.seconds) + 1
        #expect((601...691).contains(late))
        #expect(try fire(scheduler, queue, fake, after: late) == quarter)
        let next = try #require(scheduler.generation.owners["report"]?.timer.deadline)
        let wait = Int64(next.duration(since: fake.monotonic).components.seconds) + 1
        // The next elapse, 10:45, is 15 min after the one that fired up to 91 s late, delayed by up
        // to 30 s and rounded up to the minute on the monotonic clock: 809 to 991 s from the fire.
        #expect((809...991).contains(wait), "\(wait)")
        #expect(try fire(scheduler, queue, fake, after: wait) == RealtimeInstant(microseconds: quarter.microseconds + 15 * 60 * 1_000_000))
    }

    @Test func nodesWhoseClocksDifferByLessThanThePeriodNameTheSameElapses() throws {
        var elapses: [[RealtimeInstant?]] = []
        // Started at 10:20:05 by the true clock: every node's first elapse is 10:20:10.
        for skew: Int64 in [-1, 0, 1] {
            let fake = FakeClocks(realtime: "2026-11-22 10:20:05 UTC")
            fake.setWallClock(by: skew)
            fired.withLock { $0.removeAll() }
            let (scheduler, queue) = makeScheduler(fake)
            scheduler.load([try job("every", "OnCalendar=*:*:0/10\nRunOn=one-node")])
            var seen: [RealtimeInstant?] = []
            for _ in 0..<5 {
                let deadline = try #require(scheduler.generation.owners["every"]?.timer.deadline)
                seen.append(try fire(scheduler, queue, fake, after: max(0, Int64(deadline.duration(since: fake.monotonic).components.seconds)) + 1))
            }
            elapses.append(seen)
        }
        #expect(elapses[0] == elapses[1] && elapses[1] == elapses[2], "\(elapses)")
    }

    /// Issue 40: every fire names the scheduled instant it serves (a run's JOBD_ELAPSE_USEC), a
    /// host job's too: its calendar slot, even when it fires late; for a monotonic trigger, the
    /// instant it fell due.
    @Test func everyFireNamesTheElapseItServes() throws {
        let fake = FakeClocks(realtime: "2026-11-22 10:20:00 UTC")
        let (scheduler, queue) = makeScheduler(fake)
        scheduler.load([try job("host", "OnCalendar=*:0/15")])
        let slot = try BaseTime.parse("2026-11-22 10:30:00 UTC", now: RealtimeInstant(seconds: 0), zone: .utc)
        #expect(try fire(scheduler, queue, fake, after: 600 + 7) == slot, "late by 7 s, still the 10:30 slot")
        scheduler.load([try job("every", "OnUnitActiveSec=1h")])
        let due = try #require(scheduler.generation.owners["every"]?.timer.deadline)
        let dueWall = fake.clocks.realtime().microseconds + Int64(due.duration(since: fake.monotonic).components.seconds) * 1_000_000
        #expect(try fire(scheduler, queue, fake, after: 3600)?.microseconds == dueWall)
    }
}
