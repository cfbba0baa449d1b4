import JobdCalendar
import JobdConfig
import JobdScheduler
import JobdTimers
import Testing

/// `jobctl plan`'s simulation, on a fixed clock: which jobs fall due when, with catch-ups,
/// `RandomizedDelaySec=` ranges and retries, from the scheduler's own rules.
@Suite struct SchedulePlanTests {
    let calendar = CalendarSchedulingTests()
    let monotonicNow = MonotonicInstant(nanoseconds: 5_000_000_000_000)

    func instant(_ text: String) -> RealtimeInstant {
        try! BaseTime.parse(text, now: RealtimeInstant(seconds: 0), zone: .utc)
    }

    /// jobd started `uptime` seconds before `now`, on the wall clock `now` names.
    func present(_ now: String, uptime: Int64 = 60) -> SchedulePlan.Present {
        let realtime = instant(now)
        let start = MonotonicInstant(nanoseconds: monotonicNow.nanoseconds - UInt64(uptime) * 1_000_000_000)
        return SchedulePlan.Present(
            wallClock: NextElapse.WallClock(monotonic: monotonicNow, realtime: realtime, zone: .utc,
                                            daemonStartRealtime: RealtimeInstant(seconds: realtime.seconds - uptime)),
            daemonStart: start)
    }

    func plan(_ jobs: [SchedulePlan.Job], at now: String, from: String? = nil, until: String = "2100-01-01", limit: Int = 100) -> [SchedulePlan.Elapse] {
        SchedulePlan.plan(jobs, present: present(now), from: instant(from ?? now), until: instant(until), limit: limit).elapses
    }

    func times(_ rows: [SchedulePlan.Elapse]) -> [String] {
        rows.map { "\($0.job) \(TimestampFormat.utcTimestamp($0.earliest))" }
    }

    @Test func jobsFallDueInTimeOrderUpToTheLimit() throws {
        let rows = plan([.init(try calendar.job("hourly", "OnCalendar=hourly")), .init(try calendar.job("half", "Cron=30 * * * *"))],
                        at: "2026-11-22 20:06:54 UTC", limit: 4)
        #expect(times(rows) == [
            "half Sun 2026-11-22 20:30:00 UTC", "hourly Sun 2026-11-22 21:00:00 UTC",
            "half Sun 2026-11-22 21:30:00 UTC", "hourly Sun 2026-11-22 22:00:00 UTC",
        ])
        #expect(rows.allSatisfy { $0.reason == .scheduled })
        #expect(rows[1].trigger == "OnCalendar=*-*-* *:00:00")
    }

    @Test func fromAndUntilBoundTheWindow() throws {
        let rows = plan([.init(try calendar.job("hourly", "OnCalendar=hourly"))], at: "2026-11-22 20:06:54 UTC",
                        from: "2026-11-22 22:00:00 UTC", until: "2026-11-23 00:00:00 UTC")
        #expect(times(rows) == ["hourly Sun 2026-11-22 22:00:00 UTC", "hourly Sun 2026-11-22 23:00:00 UTC", "hourly Mon 2026-11-23 00:00:00 UTC"])
    }

    @Test func randomizedDelayIsARange() throws {
        let rows = plan([.init(try calendar.job("spread", "OnCalendar=daily\nRandomizedDelaySec=30min"))], at: "2026-11-22 20:06:54 UTC", limit: 1)
        #expect(times(rows) == ["spread Mon 2026-11-23 00:00:00 UTC"])
        #expect(rows.first.map { $0.latest.microseconds - $0.earliest.microseconds } == 1_800_000_000)
    }

    @Test func aPersistentJobWhoseSlotPassedWhileJobdWasDownCatchesUpOnceThenKeepsItsSchedule() throws {
        var history = JobHistory()
        history.lastTriggerRealtime = instant("2026-11-20 00:00:00 UTC")  // two days before; jobd started a minute ago
        let job = SchedulePlan.Job(try calendar.job("nightly", "OnCalendar=daily\nPersistent=yes"), history: history)
        let rows = plan([job], at: "2026-11-22 20:06:54 UTC", limit: 2)
        #expect(times(rows) == ["nightly Sun 2026-11-22 20:06:54 UTC", "nightly Mon 2026-11-23 00:00:00 UTC"])
        #expect(rows.map(\.reason) == [.catchUp, .scheduled])
        // Without Persistent= nothing is stored, and the schedule counts from jobd's start.
        let plain = SchedulePlan.Job(try calendar.job("nightly", "OnCalendar=daily"))
        #expect(times(plan([plain], at: "2026-11-22 20:06:54 UTC", limit: 1)) == ["nightly Mon 2026-11-23 00:00:00 UTC"])
    }

    @Test func anIntervalCountsOnFromEachElapse() throws {
        var history = JobHistory()
        history.lastStart = monotonicNow + .seconds(-600)
        let rows = plan([.init(try calendar.job("poll", "OnUnitActiveSec=1h"), history: history)], at: "2026-11-22 20:00:00 UTC", limit: 3)
        #expect(times(rows) == ["poll Sun 2026-11-22 20:50:00 UTC", "poll Sun 2026-11-22 21:50:00 UTC", "poll Sun 2026-11-22 22:50:00 UTC"])
        #expect(rows.first?.trigger == "OnUnitActiveSec=1h")
    }

    /// A plan from far ahead passes over a bounded number of elapses, all jobs together, and says
    /// when that left a job out: jobd answers it on its main loop.
    @Test func passingOverElapsesBeforeFromIsBoundedAndSaid() throws {
        let jobs = [SchedulePlan.Job(try calendar.job("often", "OnUnitActiveSec=1s")), SchedulePlan.Job(try calendar.job("daily", "OnCalendar=daily"))]
        let at = present("2026-11-22 20:06:54 UTC")
        let within = SchedulePlan.plan(jobs, present: at, from: instant("2026-11-22 20:10:00 UTC"), until: instant("2100-01-01"), limit: 1,
                                       maximumSkipped: 1_000)
        #expect(!within.incomplete && within.elapses.map(\.job) == ["often"], "186 elapses passed over: within the bound")
        let beyond = SchedulePlan.plan(jobs, present: at, from: instant("2026-11-23 00:00:00 UTC"), until: instant("2100-01-01"), limit: 1,
                                       maximumSkipped: 1_000)
        #expect(beyond.incomplete)
        #expect(beyond.elapses.map { "\($0.job) \(TimestampFormat.utcTimestamp($0.earliest))" } == ["daily Mon 2026-11-23 00:00:00 UTC"],
                "the job beyond the bound is left out, the others are planned")
    }

    @Test func retriesAreDescribedWithTheirDelays() throws {
        let job = try calendar.job("flaky", "OnCalendar=daily\nRestart=on-failure\nRestartSec=2s\nRestartSteps=3\nRestartMaxDelaySec=16s\nRestartLimit=4")
        #expect(SchedulePlan.retries(job.restart) == "on-failure: 4 retries at +2s +4s +8s +16s after each failed attempt")
        #expect(SchedulePlan.retries(try calendar.job("once", "OnCalendar=daily").restart) == nil)
    }
}
