import JobdCalendar
import JobdConfig
import JobdScheduler
import JobdTestKit
import JobdTimers
import Testing

/// jobd.job(5)'s table "When a job is due", one test a row (issue 36): a job runs only for a slot
/// of a schedule that existed when the slot came. The rows on `jobctl enable` are in the daemon's
/// tests (DueTimeRulesDaemonTests), where the admission that skips a disabled job's trigger is.
@Suite struct DueTimeRulesTests {
    typealias Fake = CalendarSchedulingTests.FakeClocks
    let calendar = CalendarSchedulingTests()

    func job(_ name: String, _ keys: String) throws -> JobDefinition { try calendar.job(name, keys) }

    func deadline(_ scheduler: Scheduler, _ name: String) -> MonotonicInstant? {
        scheduler.generation.owners[name]?.timer.deadline
    }

    /// Fires what is due at the fake clock's now, and records each fire as the daemon does.
    func fire(_ scheduler: Scheduler, _ queue: TimerQueue, _ fake: Fake) -> [String] {
        let before = calendar.fired.withLock { $0.count }
        queue.fireDue(now: fake.monotonic)
        let fell = calendar.fired.withLock { Array($0[before...]) }
        for due in fell { _ = scheduler.jobDue(due, now: fake.monotonic) }
        scheduler.settle(active: [])
        return fell.map(\.job)
    }

    // Row: a job added by a reload after its slot passed waits for its next slot.
    @Test func aJobAddedAfterItsSlotPassedWaitsForItsNextSlot() throws {
        let fake = Fake(realtime: "2026-11-22 20:06:54 UTC")
        let (scheduler, queue) = calendar.makeScheduler(fake)
        scheduler.load([try job("other", "OnCalendar=hourly")], now: fake.monotonic)
        fake.advance(10)  // 20:07:04: the reload adds the jobs of the trial
        scheduler.load([
            try job("other", "OnCalendar=hourly"), try job("cron", "Cron=7 20 * * *"),
            try job("calendar", "OnCalendar=*-*-* 20:07:00"), try job("interval", "OnUnitActiveSec=1h"),
            try job("startup", "OnStartupSec=5s"),
        ], now: fake.monotonic)
        #expect(fire(scheduler, queue, fake).isEmpty, "nothing added runs at the reload")
        let tomorrow = fake.monotonic + .seconds(24 * 3600 - 4)
        #expect(deadline(scheduler, "cron") == tomorrow)
        #expect(deadline(scheduler, "calendar") == tomorrow)
        #expect(deadline(scheduler, "interval") == fake.monotonic + .seconds(3600), "counts from the reload, not jobd's start")
        #expect(deadline(scheduler, "startup") == nil, "jobd's start plus 5 s passed before the job existed")
    }

    // Row: the jobs of jobd's first load count from its start, as before.
    @Test func theJobsOfTheFirstLoadCountFromJobdsStart() throws {
        let fake = Fake(realtime: "2026-11-22 20:06:54 UTC")
        let (scheduler, _) = calendar.makeScheduler(fake)
        scheduler.load([try job("startup", "OnStartupSec=5s"), try job("interval", "OnUnitActiveSec=1h")], now: fake.monotonic)
        #expect(deadline(scheduler, "startup") == fake.monotonic + .seconds(5))
        #expect(deadline(scheduler, "interval") == fake.monotonic + .seconds(3600))
    }

    // Row: a changed schedule counts from the later of its last trigger and the change.
    @Test func aChangedScheduleMakesUpNoSlotOfTheScheduleBeforeTheChange() throws {
        let fake = Fake(realtime: "2026-11-22 00:00:00 UTC")
        let (scheduler, queue) = calendar.makeScheduler(fake)
        scheduler.load([try job("cron", "Cron=0 * * * *"), try job("interval", "OnUnitActiveSec=1h")], now: fake.monotonic)
        fake.advance(3600)  // 01:00: both fall due and start
        #expect(Set(fire(scheduler, queue, fake)) == ["cron", "interval"])
        scheduler.runStarted(job: "interval", cause: "timer", now: fake.monotonic)
        fake.advance(45 * 60)  // 01:45: the 01:30 slot of the new cron line and the new span's 01:30 passed
        scheduler.load([try job("cron", "Cron=30 * * * *"), try job("interval", "OnUnitActiveSec=30min")], now: fake.monotonic)
        #expect(fire(scheduler, queue, fake).isEmpty, "no slot before the change is made up")
        #expect(deadline(scheduler, "cron") == fake.monotonic + .seconds(45 * 60), "02:30")
        #expect(deadline(scheduler, "interval") == fake.monotonic + .seconds(30 * 60), "30 min after the change")
    }

    // Row: a change of anything but the triggers keeps the schedule where it was.
    @Test func aChangedCommandKeepsTheSchedule() throws {
        let fake = Fake(realtime: "2026-11-22 00:00:00 UTC")
        let (scheduler, _) = calendar.makeScheduler(fake)
        scheduler.load([try job("interval", "OnUnitActiveSec=1h"), try job("cron", "Cron=0 * * * *")], now: fake.monotonic)
        fake.advance(40 * 60)
        let edited = "\nDescription=edited\nEnvironment=A=1"
        scheduler.load([try job("interval", "OnUnitActiveSec=1h" + edited), try job("cron", "Cron=0 * * * *" + edited)], now: fake.monotonic)
        #expect(deadline(scheduler, "interval") == fake.monotonic + .seconds(20 * 60), "still 01:00, not 01:40")
        #expect(deadline(scheduler, "cron") == fake.monotonic + .seconds(20 * 60))
    }

    // Row: a job removed and added again is a new job.
    @Test func aJobRemovedAndAddedAgainIsNew() throws {
        let fake = Fake(realtime: "2026-11-22 00:00:00 UTC")
        let store = CalendarSchedulingTests.MemoryStore()
        let (scheduler, _) = calendar.makeScheduler(fake, store: store)
        // An earlier job of the same name left a Persistent= stamp from yesterday.
        store.recordTrigger(of: "daily", at: RealtimeInstant(microseconds: fake.clocks.realtime().microseconds - 86_400_000_000))
        scheduler.load([try job("other", "OnCalendar=hourly")], now: fake.monotonic)
        fake.advance(3 * 3600)
        scheduler.load([try job("other", "OnCalendar=hourly"), try job("daily", "OnCalendar=*-*-* 02:00:00\nPersistent=yes")], now: fake.monotonic)
        #expect(deadline(scheduler, "daily") == fake.monotonic + .seconds(23 * 3600), "the stamp is older than the job")
    }

    // Rows: jobd restarts; without Persistent= a slot missed while it was down is lost, with it
    // the job runs once at the start, then keeps its schedule.
    @Test func aRestartMakesUpAMissedSlotOnlyWithPersistentAndOnlyOnce() throws {
        let fake = Fake(realtime: "2026-11-22 02:31:00 UTC")
        let store = CalendarSchedulingTests.MemoryStore()
        store.recordTrigger(of: "kept", at: RealtimeInstant(microseconds: fake.clocks.realtime().microseconds - 86_460_000_000))
        store.recordTrigger(of: "plain", at: RealtimeInstant(microseconds: fake.clocks.realtime().microseconds - 86_460_000_000))
        let (scheduler, queue) = calendar.makeScheduler(fake, store: store)
        scheduler.load([try job("kept", "Cron=30 2 * * *\nPersistent=yes"), try job("plain", "Cron=30 2 * * *")], now: fake.monotonic)
        #expect(deadline(scheduler, "plain") == fake.monotonic + .seconds(24 * 3600 - 60))
        #expect(fire(scheduler, queue, fake) == ["kept"], "missed while down: once, at the start")
        #expect(deadline(scheduler, "kept") == fake.monotonic + .seconds(24 * 3600 - 60), "then tomorrow's slot")
    }

    // Row: the wall clock set forward over slots fires the job once, not once a slot.
    @Test func aClockSetForwardFiresOnceForTheSlotsItSkipped() throws {
        let fake = Fake(realtime: "2026-11-22 10:20:00 UTC")
        let (scheduler, queue) = calendar.makeScheduler(fake)
        scheduler.load([try job("quarter", "OnCalendar=*:0/15")], now: fake.monotonic)
        fake.setWallClock(by: 2 * 3600)
        scheduler.wallClockWasSet()
        #expect(fire(scheduler, queue, fake) == ["quarter"])
        #expect(deadline(scheduler, "quarter") == fake.monotonic + .seconds(10 * 60), "12:30, the next slot of the new time")
    }

    // Rows: the wall clock set back by up to 3 hours serves no slot twice; further back is a
    // correction, and the schedule follows the new clock.
    @Test func aClockSetBackServesNoSlotTwiceUnlessItIsACorrection() throws {
        for (back, expected) in [(Int64(3600), Int64(25 * 3600)), (6 * 3600, 6 * 3600)] {
            let fake = Fake(realtime: "2026-11-22 11:59:00 UTC")
            let (scheduler, queue) = calendar.makeScheduler(fake)
            scheduler.load([try job("noon", "OnCalendar=*-*-* 12:00:00")], now: fake.monotonic)
            fake.advance(60)
            #expect(fire(scheduler, queue, fake) == ["noon"])
            fake.setWallClock(by: -back)
            scheduler.wallClockWasSet()
            #expect(deadline(scheduler, "noon") == fake.monotonic + .seconds(expected), "set back by \(back / 3600) h")
        }
    }

    // Row: a slot that passed while the machine was suspended fires once at the resume, which the
    // kernel reports as a set of the wall clock (timerfd's cancel on set).
    @Test func aSlotMissedWhileSuspendedFiresOnceAtTheResume() throws {
        let fake = Fake(realtime: "2026-11-22 23:00:00 UTC")
        let (scheduler, queue) = calendar.makeScheduler(fake)
        scheduler.load([try job("nightly", "Cron=0 2 * * *"), try job("interval", "OnUnitActiveSec=1h")], now: fake.monotonic)
        let interval = deadline(scheduler, "interval")
        fake.setWallClock(by: 9 * 3600)  // suspended until 08:00: the monotonic clock stood still
        scheduler.wallClockWasSet()
        #expect(fire(scheduler, queue, fake) == ["nightly"])
        #expect(deadline(scheduler, "nightly") == fake.monotonic + .seconds(18 * 3600))
        #expect(deadline(scheduler, "interval") == interval, "monotonic spans do not count the suspend")
    }
}
