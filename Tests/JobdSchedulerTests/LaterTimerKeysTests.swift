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
}
