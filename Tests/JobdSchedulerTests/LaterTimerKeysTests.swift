import JobdCalendar
import JobdConfig
import JobdScheduler
import JobdTestKit
import JobdTimers
import Testing

/// systemd's timer keys after the triggers, on Debian 12's jobd (issue 40): `FixedRandomDelay=`
/// (247), `OnClockChange=`/`OnTimezoneChange=` (242), `DeferReactivation=` (257),
/// `RandomizedOffsetSec=` (258), each with the invariant jobd.job(5) states for it.
@Suite struct LaterTimerKeysTests {
    typealias Fake = CalendarSchedulingTests.FakeClocks
    let rules = DueTimeRulesTests()

    func scheduler(_ fake: Fake, seed: String = "machine-a") -> (Scheduler, TimerQueue) {
        let (scheduler, queue) = rules.calendar.makeScheduler(fake)
        scheduler.hostSeed = seed
        return (scheduler, queue)
    }

    func deadline(_ scheduler: Scheduler, _ name: String) -> MonotonicInstant? { rules.deadline(scheduler, name) }

    /// Microseconds from `origin` to the owner's deadline.
    func offset(_ scheduler: Scheduler, _ name: String, from origin: MonotonicInstant) -> Int64? {
        deadline(scheduler, name).map { Int64(($0.nanoseconds - origin.nanoseconds) / 1_000) }
    }

    /// Moves the fake clocks to `origin` plus `microseconds` (rounded up to a whole second).
    func move(_ fake: Fake, to microseconds: Int64, from origin: MonotonicInstant) {
        let now = Int64((fake.monotonic.nanoseconds - origin.nanoseconds) / 1_000)
        fake.advance((microseconds - now + 999_999) / 1_000_000)
    }

    /// Invariant: with FixedRandomDelay=, every elapse of a job on one machine has the same delay
    /// (the machine's share of RandomizedDelaySec=), across restarts; another machine has another.
    @Test func aFixedRandomDelayIsTheSameAtEveryElapseOfAMachine() throws {
        let keys = "OnCalendar=hourly\nRandomizedDelaySec=30min\nFixedRandomDelay=yes\nAccuracySec=1us"
        let share = StableSpread.share(of: 1_800_000_000, job: "fixed", seed: "machine-a")
        #expect(share != StableSpread.share(of: 1_800_000_000, job: "fixed", seed: "machine-b"))
        #expect(share != StableSpread.share(of: 1_800_000_000, job: "other", seed: "machine-a"))
        #expect((0 ..< 1_800_000_000).contains(share))
        let fake = Fake(realtime: "2026-11-22 10:00:00 UTC")
        let origin = fake.monotonic  // 10:00
        let hour: Int64 = 3_600_000_000
        var (scheduler, queue) = self.scheduler(fake)
        scheduler.load([try rules.job("fixed", keys)], now: fake.monotonic)
        for slot in Int64(1) ... 3 {
            #expect(offset(scheduler, "fixed", from: origin) == slot * hour + share, "slot \(slot)")
            move(fake, to: slot * hour + share, from: origin)
            #expect(rules.fire(scheduler, queue, fake) == ["fixed"])
        }
        // A restart (a new scheduler, its first load) draws the same delay.
        (scheduler, queue) = self.scheduler(fake)
        scheduler.load([try rules.job("fixed", keys)], now: fake.monotonic)
        #expect(offset(scheduler, "fixed", from: origin) == 4 * hour + share)
        _ = queue
    }

    /// Invariant: RandomizedOffsetSec= moves every calendar elapse by the machine's fixed share of
    /// it, slot after slot (the period holds), and a slot whose offset elapse comes after the
    /// schedule's start is due, however the start fell.
    @Test func aRandomizedOffsetKeepsThePeriodAndCountsSlotsByTheirOffsetElapse() throws {
        let hour: Int64 = 3_600_000_000
        // A name whose share leaves a few minutes either side of it, for the starts below.
        let name = try #require(["offset", "report", "backup", "sync", "mirror"].first {
            (2 * 60_000_000 ... 57 * 60_000_000).contains(StableSpread.share(of: hour, job: $0, seed: "machine-a"))
        })
        let share = StableSpread.share(of: hour, job: name, seed: "machine-a")
        // jobd starts a minute after 10:00, before 10:00's offset elapse: that one is due.
        let fake = Fake(realtime: "2026-11-22 10:01:00 UTC")
        let origin = MonotonicInstant(nanoseconds: fake.monotonic.nanoseconds - 60_000_000_000)  // 10:00
        let (scheduler, queue) = self.scheduler(fake)
        scheduler.load([try rules.job(name, "OnCalendar=hourly\nRandomizedOffsetSec=1h\nAccuracySec=1us")], now: fake.monotonic)
        for slot in Int64(0) ... 2 {
            #expect(offset(scheduler, name, from: origin) == slot * hour + share, "slot \(slot)")
            move(fake, to: slot * hour + share, from: origin)
            #expect(rules.fire(scheduler, queue, fake) == [name])
        }
        // A start after a slot's offset elapse waits for the next slot's.
        let late = Fake(realtime: "2026-11-22 10:59:00 UTC")
        let (restarted, _) = self.scheduler(late)
        restarted.load([try rules.job(name, "OnCalendar=hourly\nRandomizedOffsetSec=1h\nAccuracySec=1us")], now: late.monotonic)
        #expect(offset(restarted, name, from: late.monotonic) == hour + share - 59 * 60_000_000, "11:00 plus the share")
    }

    /// Invariant: with DeferReactivation=, no calendar elapse falls due while a run is in flight,
    /// and the next counts from the run's end; without it, the next slot is armed at once.
    @Test func deferReactivationWaitsForTheRunsEndAndCountsFromIt() throws {
        for deferred in [false, true] {
            let fake = Fake(realtime: "2026-11-22 09:59:30 UTC")
            let (scheduler, queue) = self.scheduler(fake)
            scheduler.load([try rules.job("slow", "OnCalendar=*:0/10\nAccuracySec=1us\nDeferReactivation=\(deferred)")], now: fake.monotonic)
            fake.advance(30)
            #expect(rules.fire(scheduler, queue, fake) == ["slow"])
            scheduler.runStarted(job: "slow", cause: "timer", now: fake.monotonic)
            scheduler.settle(active: ["slow"])
            #expect(deadline(scheduler, "slow") == (deferred ? nil : fake.monotonic + .seconds(600)), "deferred: \(deferred)")
            fake.advance(25 * 60)  // the run ends at 10:25
            scheduler.runFinished(RunOutcome(runID: 1, invocationID: "0", job: "slow", termination: .exited(0), result: .success,
                                             duration: .seconds(1500)), now: fake.monotonic)
            scheduler.settle(active: [])
            if deferred { #expect(deadline(scheduler, "slow") == fake.monotonic + .seconds(300), "10:30, the first slot after the end") }
        }
    }

    /// Invariant: OnClockChange= jobs fall due at every set of the wall clock (a resume from suspend
    /// is one), OnTimezoneChange= jobs at every change of the zone, and neither at the other.
    @Test func clockAndZoneChangesMakeTheirJobsDue() throws {
        let fake = Fake(realtime: "2026-11-22 10:00:00 UTC")
        let (scheduler, queue) = self.scheduler(fake)
        scheduler.load([try rules.job("clock", "OnClockChange=yes"), try rules.job("zone", "OnTimezoneChange=yes"),
                        try rules.job("both", "OnCalendar=daily\nOnClockChange=yes\nOnTimezoneChange=yes")], now: fake.monotonic)
        #expect(deadline(scheduler, "clock") == nil && deadline(scheduler, "zone") == nil, "no elapse of their own")
        fake.setWallClock(by: 600)
        scheduler.wallClockWasSet()
        #expect(Set(rules.fire(scheduler, queue, fake)) == ["clock", "both"])
        #expect(deadline(scheduler, "clock") == nil && deadline(scheduler, "both") != nil, "armed again as before")
        scheduler.timeZoneChanged(to: .utc)
        #expect(Set(rules.fire(scheduler, queue, fake)) == ["zone", "both"])
    }

    /// Invariant (issue 40): after a resume with 50 jobs' slots missed in the suspend, and at a
    /// start with 50 `Persistent=` catch-ups, no more than `catchUpBurst` start in any second, in an
    /// order that is the same on one machine every time and differs between machines.
    @Test func catchUpsAfterAResumeOrAStartAreSpread() throws {
        let jobs = try (0 ..< 50).map { try rules.job("job\($0)", "OnCalendar=hourly\nPersistent=yes\nAccuracySec=1us") }
        func resume(seed: String) -> [[String]] {
            let fake = Fake(realtime: "2026-11-22 10:30:00 UTC")
            let (scheduler, queue) = self.scheduler(fake, seed: seed)
            scheduler.load(jobs, now: fake.monotonic)
            fake.setWallClock(by: 3 * 3600)  // suspended until 13:30
            scheduler.wallClockWasSet()
            var seconds: [[String]] = []
            for _ in 0 ..< 8 {
                seconds.append(rules.fire(scheduler, queue, fake))
                fake.advance(1)
            }
            return seconds
        }
        let seconds = resume(seed: "machine-a")
        #expect(seconds.map(\.count) == [8, 8, 8, 8, 8, 8, 2, 0], "\(seconds)")
        #expect(Set(seconds.joined()).count == 50, "each job once")
        #expect(resume(seed: "machine-a") == seconds, "the same order on the same machine")
        #expect(resume(seed: "machine-b").first != seconds.first, "another order on another machine")

        // A start with a Persistent= catch-up for each: the same bound.
        let fake = Fake(realtime: "2026-11-22 13:30:00 UTC")
        let store = CalendarSchedulingTests.MemoryStore()
        for job in jobs { store.recordTrigger(of: job.name, at: RealtimeInstant(seconds: 1_795_000_000)) }
        let (scheduler, queue) = rules.calendar.makeScheduler(fake, store: store)
        scheduler.load(jobs, now: fake.monotonic)
        let first = rules.fire(scheduler, queue, fake)
        fake.advance(1)
        #expect(first.count == 8 && rules.fire(scheduler, queue, fake).count == 8)
    }

    /// `jobctl plan` shows what the scheduler arms: the offset slot, and one delay, not a range,
    /// with FixedRandomDelay=.
    @Test func thePlanShowsTheFixedDelayAndTheOffset() throws {
        let fake = Fake(realtime: "2026-11-22 10:00:00 UTC")
        let definitions = [try rules.job("offset", "OnCalendar=hourly\nRandomizedOffsetSec=1h\nAccuracySec=1us"),
                           try rules.job("fixed", "OnCalendar=hourly\nRandomizedDelaySec=1h\nFixedRandomDelay=yes\nAccuracySec=1us")]
        let (scheduler, _) = self.scheduler(fake)
        scheduler.load(definitions, now: fake.monotonic)
        let plan = SchedulePlan.plan(definitions.map { SchedulePlan.Job($0) }, present: scheduler.present,
                                     from: RealtimeInstant(microseconds: .min), until: RealtimeInstant(microseconds: .max), limit: 4)
        let realtime10 = try BaseTime.parse("2026-11-22 10:00:00 UTC", now: RealtimeInstant(seconds: 0), zone: .utc).microseconds
        for name in ["offset", "fixed"] {
            // 10:00's offset elapse comes after the start; the delay counts from 11:00.
            let share = StableSpread.share(of: 3_600_000_000, job: name, seed: "machine-a") + (name == "fixed" ? 3_600_000_000 : 0)
            let rows = plan.elapses.filter { $0.job == name }
            #expect(rows.count == 2 && rows.allSatisfy { $0.earliest == $0.latest }, "\(rows)")
            #expect(rows.first?.earliest.microseconds == realtime10 + share, "\(name)")
            #expect(offset(scheduler, name, from: fake.monotonic) == share, "the scheduler arms the same")
        }
    }
}
