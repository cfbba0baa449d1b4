import JobdCalendar
import JobdConfig
import JobdScheduler
import JobdTestKit
import JobdTimers
import Testing

/// `CatchUp=` (issue 40): what becomes of the calendar slots missed while jobd was down or the
/// machine suspended, each policy with the invariant jobd.job(5) states for it.
@Suite struct CatchUpPolicyTests {
    typealias Fake = CalendarSchedulingTests.FakeClocks
    let rules = DueTimeRulesTests()
    static let hour: Int64 = 3_600_000_000

    /// Fires what is due now as the daemon does: the slots served, one per fire.
    func fire(_ scheduler: Scheduler, _ queue: TimerQueue, _ fake: Fake, running: Bool = false) -> [RealtimeInstant] {
        let before = rules.calendar.fired.withLock { $0.count }
        queue.fireDue(now: fake.monotonic)
        let fell = rules.calendar.fired.withLock { Array($0[before...]) }
        var served: [RealtimeInstant] = []
        for due in fell {
            if case .due(let elapse?) = scheduler.jobDue(due, now: fake.monotonic) { served.append(elapse) }
            if running { scheduler.runStarted(job: due.job, cause: "timer", now: fake.monotonic) }
        }
        scheduler.settle(active: running ? Set(fell.map(\.job)) : [])
        return served
    }

    func finish(_ scheduler: Scheduler, _ job: String, _ fake: Fake) {
        scheduler.runFinished(RunOutcome(runID: 1, invocationID: "0", job: job, termination: .exited(0), result: .success,
                                         duration: .seconds(1)), now: fake.monotonic)
        scheduler.settle(active: [])
    }

    /// What a plan starts from at `time`, on a fake clock.
    func planPresent(at time: String) throws -> SchedulePlan.Present {
        let fake = Fake(realtime: time)
        let (scheduler, _) = rules.calendar.makeScheduler(fake)
        return scheduler.present
    }

    func at(_ text: String) throws -> RealtimeInstant {
        try BaseTime.parse(text, now: RealtimeInstant(seconds: 0), zone: .utc)
    }

    /// Invariant: with CatchUp=none nothing missed is made up; the job waits for its next slot.
    /// Unset, a suspend's missed slots run once (systemd's way).
    @Test func noneMakesUpNothingAfterASuspend() throws {
        for (keys, expected) in [("CatchUp=none", 0), ("", 1), ("CatchUp=latest", 1)] {
            let fake = Fake(realtime: "2026-11-22 10:30:00 UTC")
            let (scheduler, queue) = rules.calendar.makeScheduler(fake)
            scheduler.load([try rules.job("hourly", "OnCalendar=hourly\nAccuracySec=1us\n" + keys)], now: fake.monotonic)
            fake.setWallClock(by: 3 * 3600)  // suspended until 13:30
            scheduler.wallClockWasSet()
            #expect(fire(scheduler, queue, fake).count == expected, "\(keys)")
            #expect(rules.deadline(scheduler, "hourly") == fake.monotonic + .seconds(1800), "\(keys): then 14:00")
        }
    }

    /// Invariant: CatchUp=latest makes up jobd's downtime with one run (Persistent=yes), which
    /// serves the first slot missed, as a fleet names it; CatchUp=all runs every slot missed within CatchUpWindowSec=, oldest first,
    /// one after the other's end, each serving its own slot, then the schedule goes on.
    @Test func latestRunsOnceAndAllRunsEachSlotInTheWindowInTurn() throws {
        let stored = try at("2026-11-22 03:00:00 UTC")  // the last trigger before jobd went down
        for (keys, expected) in [("CatchUp=latest", ["04:00"]), ("CatchUp=all\nCatchUpWindowSec=3h", ["11:00", "12:00", "13:00"])] {
            let fake = Fake(realtime: "2026-11-22 13:30:00 UTC")
            let store = CalendarSchedulingTests.MemoryStore()
            store.recordTrigger(of: "hourly", at: stored)
            let (scheduler, queue) = rules.calendar.makeScheduler(fake, store: store)
            scheduler.load([try rules.job("hourly", "OnCalendar=hourly\nAccuracySec=1us\n" + keys)], now: fake.monotonic)
            var served: [RealtimeInstant] = []
            for _ in 0 ..< 5 {
                let now = fire(scheduler, queue, fake, running: true)
                #expect(now.count <= 1, "one at a time")
                served += now
                #expect(fire(scheduler, queue, fake, running: true).isEmpty, "none while a run is in flight")
                fake.advance(60)
                finish(scheduler, "hourly", fake)
            }
            #expect(served == (try expected.map { try at("2026-11-22 \($0):00 UTC") }), "\(keys)")
            // jobctl plan, before any of it, shows as many catch-ups.
            var history = JobHistory()
            history.lastTriggerRealtime = stored
            let planned = SchedulePlan.plan([SchedulePlan.Job(try rules.job("hourly", "OnCalendar=hourly\nAccuracySec=1us\n" + keys), history: history)],
                                            present: try planPresent(at: "2026-11-22 13:30:00 UTC"),
                                            from: RealtimeInstant(microseconds: .min), until: try at("2026-11-22 13:59:00 UTC"), limit: 10)
            #expect(planned.elapses.count == expected.count, "\(keys): \(planned.elapses)")
            #expect(rules.deadline(scheduler, "hourly") != nil && store.lastTrigger(of: "hourly") ?? stored > stored)
        }
    }

    /// CatchUp= in a job file: a policy, and none contradicts Persistent=yes.
    @Test func theKeyIsReadAndNoneContradictsPersistent() throws {
        #expect(try rules.job("a", "OnCalendar=daily\nCatchUp=all").persistent, "all keeps the last trigger")
        #expect(try rules.job("a", "OnCalendar=daily\nCatchUp=latest").timing.catchUp == .latest)
        #expect(try !rules.job("a", "OnCalendar=daily\nCatchUp=none").persistent)
        for (keys, message) in [("CatchUp=never", "CatchUp=: 'never' is not a catch-up policy"),
                                ("Persistent=yes\nCatchUp=none", "CatchUp=none contradicts Persistent=yes")] {
            #expect(throws: (any Error).self, "\(keys)") { try rules.job("a", "OnCalendar=daily\n" + keys) }
            let result = JobFileReader.read(name: "a", path: "a.job", text: "[Job]\nExecStart=/bin/true\nOnCalendar=daily\n\(keys)\n")
            guard case .failure(let errors) = result else { Issue.record("\(keys) was taken"); continue }
            #expect(errors.errors.contains { $0.message.contains(message) }, "\(errors)")
        }
    }
}
