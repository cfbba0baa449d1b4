import JobdCalendar
import JobdConfig
import JobdScheduler
import JobdTimers
import Testing

/// `jobctl reload --dry-run`'s diff of two configurations, on a fixed clock, with no daemon.
@Suite struct ConfigurationChangeTests {
    let calendar = CalendarSchedulingTests()
    let plans = SchedulePlanTests()
    let now = "2026-11-22 20:07:04 UTC"

    func changes(_ old: [JobDefinition], _ new: [JobDefinition], histories: JobHistories = [:],
                 stored: [String: RealtimeInstant] = [:]) -> [ConfigurationChange] {
        ConfigurationChange.changes(from: Generation(jobs: old), to: Generation(jobs: new), histories: histories,
                                    storedTrigger: { stored[$0] }, present: plans.present(now))
    }

    func time(_ elapse: SchedulePlan.Elapse?) -> String? { elapse.map { TimestampFormat.utcTimestamp($0.earliest) } }

    @Test func anAddedJobWhoseSlotPassedShowsItsNextSlotAndDoesNotRun() throws {
        let result = changes([try calendar.job("other", "OnCalendar=hourly")],
                             [try calendar.job("other", "OnCalendar=hourly"), try calendar.job("cron", "Cron=7 20 * * *"),
                              try calendar.job("startup", "OnStartupSec=5s")])
        #expect(result.map(\.job) == ["cron", "startup"], "an unchanged job is not listed")
        #expect(result[0].kind == .added && result[0].nextBefore == nil)
        #expect(time(result[0].nextAfter) == "Mon 2026-11-23 20:07:00 UTC")
        #expect(result[0].runsAtOnce == nil)
        #expect(result[1].nextAfter == nil, "jobd's start plus 5 s passed before the job existed")
    }

    @Test func aChangedCommandKeepsTheNextElapseAndNamesTheKey() throws {
        let result = changes([try calendar.job("report", "OnCalendar=hourly")],
                             [try calendar.job("report", "OnCalendar=hourly\nDescription=Report")].map { $0 })
        #expect(result.count == 1)
        #expect(result[0].kind == .changed && result[0].keys == ["Description"])
        #expect(time(result[0].nextBefore) == "Sun 2026-11-22 21:00:00 UTC")
        #expect(time(result[0].nextAfter) == "Sun 2026-11-22 21:00:00 UTC")
    }

    @Test func aChangedScheduleCountsFromTheReload() throws {
        var history = JobHistory()
        history.lastTriggerRealtime = plans.instant("2026-11-22 20:00:00 UTC")
        let result = changes([try calendar.job("sync", "Cron=0 * * * *")],
                             [try calendar.job("sync", "Cron=5 * * * *\nRestartSec=1s")], histories: ["sync": history])
        #expect(result[0].keys == ["Cron", "RestartSec"])
        #expect(time(result[0].nextBefore) == "Sun 2026-11-22 21:00:00 UTC")
        #expect(time(result[0].nextAfter) == "Sun 2026-11-22 21:05:00 UTC", "20:05 passed before the change: not made up")
        #expect(result[0].runsAtOnce == nil)
    }

    @Test func aRemovedJobShowsTheElapseItLoses() throws {
        let result = changes([try calendar.job("old", "OnCalendar=daily")], [])
        #expect(result.map(\.kind) == [.removed])
        #expect(time(result[0].nextBefore) == "Mon 2026-11-23 00:00:00 UTC" && result[0].nextAfter == nil)
    }

    @Test func persistentTurnedOnWithAStoredTriggerRunsAtOnceAsACatchUp() throws {
        let result = changes([try calendar.job("backup", "OnCalendar=daily")], [try calendar.job("backup", "OnCalendar=daily\nPersistent=yes")],
                             stored: ["backup": plans.instant("2026-11-20 00:00:00 UTC")])
        #expect(result[0].keys == ["Persistent"])
        #expect(result[0].runsAtOnce == .catchUp)
        #expect(time(result[0].nextAfter) == "Sun 2026-11-22 20:07:04 UTC")
    }
}
