import JobdCalendar
import JobdConfig
import JobdScheduler
import JobdTimers
import Testing

/// The calendar slots a late fire did not serve, by reason (issue 40 item 3: the metrics'
/// `jobd_job_missed_elapses_total`): jobd down with `Persistent=`, the clock set forward or a
/// suspend, and none when the job fired on time.
@Suite struct MissedElapsesTests {
    typealias Rules = DueTimeRulesTests
    let rules = DueTimeRulesTests()

    func missed(_ scheduler: Scheduler, _ job: String) -> [MissedElapses.Reason: UInt64] {
        scheduler.histories[job]?.missedByReason ?? [:]
    }

    @Test func aClockSetForwardMissesEverySlotButTheOneItServes() throws {
        let fake = Rules.Fake(realtime: "2026-11-22 10:20:00 UTC")
        let (scheduler, queue) = rules.calendar.makeScheduler(fake)
        scheduler.load([try rules.job("quarter", "OnCalendar=*:0/15")], now: fake.monotonic)
        fake.advance(10 * 60)  // 10:30, on time
        #expect(rules.fire(scheduler, queue, fake) == ["quarter"])
        #expect(missed(scheduler, "quarter").isEmpty, "a fire on time misses nothing")
        fake.setWallClock(by: 2 * 3600)  // to 12:30: 10:45 … 12:30 came, 10:45 is served
        scheduler.wallClockWasSet()
        #expect(rules.fire(scheduler, queue, fake) == ["quarter"])
        #expect(missed(scheduler, "quarter") == [.clockJump: 7], "11:00 to 12:30")
    }

    @Test func aSuspendOverTwoNightsMissesOne() throws {
        let fake = Rules.Fake(realtime: "2026-11-22 23:00:00 UTC")
        let (scheduler, queue) = rules.calendar.makeScheduler(fake)
        scheduler.load([try rules.job("nightly", "Cron=0 2 * * *")], now: fake.monotonic)
        fake.setWallClock(by: 33 * 3600)  // resumed on the 24th at 08:00: the 23rd's and the 24th's 02:00 passed
        scheduler.wallClockWasSet()
        #expect(rules.fire(scheduler, queue, fake) == ["nightly"])
        #expect(missed(scheduler, "nightly") == [.clockJump: 1])
    }

    @Test func jobdDownMissesTheSlotsAPersistentJobDoesNotMakeUp() throws {
        let fake = Rules.Fake(realtime: "2026-11-22 02:31:00 UTC")
        let store = CalendarSchedulingTests.MemoryStore()
        // Last fell due three days ago at 02:30: the 20th's, 21st's and 22nd's slots came while down.
        store.recordTrigger(of: "kept", at: RealtimeInstant(microseconds: fake.clocks.realtime().microseconds - 3 * 86_400_000_000 - 60_000_000))
        let (scheduler, queue) = rules.calendar.makeScheduler(fake, store: store)
        scheduler.load([try rules.job("kept", "Cron=30 2 * * *\nPersistent=yes")], now: fake.monotonic)
        #expect(rules.fire(scheduler, queue, fake) == ["kept"], "one made up")
        #expect(missed(scheduler, "kept") == [.jobdDown: 2])
    }
}
