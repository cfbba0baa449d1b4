import InMemoryLogging
import JobdCalendar
import JobdConfig
import JobdControl
import JobdDaemon
import JobdFleet
import JobdScheduler
import JobdTestKit
import JobdTimers
import Logging
import Testing

/// `ExpectSuccessWithinSec=` through the daemon's core on a manual clock (issue 40 item 3): the
/// alarm's journal entry, its `OnFailure=` run, its mail and its metrics, at exactly the deadline,
/// once, cleared by a success; and the last success an earlier jobd kept counts.
@Suite struct OverdueAlarmTests {
    typealias H = DaemonHarness

    static func job(_ name: String, _ keys: String) -> JobDefinition {
        try! JobFileReader.read(name: name, path: "/etc/jobd/jobs.d/\(name).job", text: "[Job]\nExecStart=/bin/true\n\(keys)\n").get()
    }

    /// A nightly-style job (here: every 10 minutes) that must succeed within 25 minutes, with a notifier.
    static let jobs = [
        job("backup", "OnUnitActiveSec=10min\nExpectSuccessWithinSec=25min\nOnFailure=notify\nMailTo=ops@example.org\nMailOn=failure"),
        job("notify", "OnStartupSec=365d"),
    ]

    /// Ends a failed run of backup, and the run of notify its failure started.
    static func fail(_ daemon: H) {
        daemon.end("backup", .exited(1))
        daemon.end("notify")
    }

    /// The runs of notify the alarm started (not backup's failed runs).
    static func alarmRuns(_ daemon: H) -> [FakeLauncher.Launch] {
        daemon.started("notify").filter { $0.context["JOBD_RESULT"] == "overdue" }
    }

    @Test func aJobThatStopsSucceedingRaisesItsAlarmOnTimeOnceAndASuccessClearsIt() throws {
        let daemon = H(Self.jobs)
        // Runs at 10, 20 min fail: never succeeded, so 25 min counts from jobd's start.
        for _ in 0..<2 {
            daemon.advance(.seconds(600))
            Self.fail(daemon)
        }
        daemon.advance(.seconds(299))
        #expect(daemon.events("job.overdue").isEmpty && Self.alarmRuns(daemon).isEmpty, "not before 25 min")
        daemon.advance(.seconds(1))
        let alarm = try #require(daemon.events("job.overdue", job: "backup").first)
        #expect(alarm.level == .warning)
        #expect(alarm.metadata["JOBD_DEADLINE_USEC"] == .string(String(H.wallStart + 1_500_000_000)))
        let notifier = try #require(Self.alarmRuns(daemon).first)
        #expect(notifier.request.cause == .onFailure && notifier.context["JOBD_TRIGGERED_BY"] == "backup")
        #expect(daemon.launcher.overdueMails.withLock { $0.map(\.job) } == ["backup"])
        #expect(daemon.launcher.overdueMails.withLock { $0.first?.recipients } == ["ops@example.org"])
        daemon.end("notify")
        // More failures and a whole day: no second alarm while it stays overdue.
        for _ in 0..<3 {
            daemon.advance(.seconds(600))
            Self.fail(daemon)
        }
        daemon.advance(.seconds(86_400))
        Self.fail(daemon)
        #expect(daemon.events("job.overdue").count == 1 && Self.alarmRuns(daemon).count == 1)
        #expect(daemon.launcher.overdueMails.withLock { $0.count } == 1)
        // The next success clears it; 25 min after that success, the alarm is raised again.
        daemon.advance(.seconds(600))
        daemon.end("backup")
        let cleared = try #require(daemon.events("job.overdue-cleared", job: "backup").first)
        #expect(cleared.level == .notice)
        let success = H.wallStart + daemon.now.duration(since: H.start).nanosecondsSaturated / 1_000
        #expect(cleared.metadata["JOBD_LAST_SUCCESS_USEC"] == .string(String(success)))
        for _ in 0..<2 {
            daemon.advance(.seconds(600))
            Self.fail(daemon)
        }
        daemon.advance(.seconds(299))
        #expect(daemon.events("job.overdue").count == 1)
        daemon.advance(.seconds(1))
        #expect(daemon.events("job.overdue").count == 2 && Self.alarmRuns(daemon).count == 2, "re-armed from the success")
        #expect(daemon.events("job.overdue").last?.metadata["JOBD_LAST_SUCCESS_USEC"] == .string(String(success)))
    }

    @Test func aJobThatKeepsSucceedingNeverRaisesIt() {
        let daemon = H(Self.jobs)
        for _ in 0..<20 {
            daemon.advance(.seconds(600))
            daemon.end("backup")
        }
        #expect(daemon.events("job.overdue").isEmpty && daemon.started("notify").isEmpty)
        #expect(daemon.launcher.overdueMails.withLock { $0.isEmpty })
    }

    /// The last success an earlier jobd kept counts across the restart: a job whose last success
    /// was 20 min before this jobd started is overdue 5 min after it, not 25.
    @Test func theLastSuccessKeptByAnEarlierJobdCounts() {
        var history = JobHistory()
        history.lastSuccessRealtime = RealtimeInstant(microseconds: H.wallStart - 1_200_000_000)
        let daemon = H(Self.jobs, restored: ["backup": history])
        daemon.advance(.seconds(299))
        #expect(daemon.events("job.overdue").isEmpty)
        daemon.advance(.seconds(1))
        #expect(daemon.events("job.overdue", job: "backup").count == 1)
    }

    /// The metrics, parsed by a real Prometheus text parser: overdue, the schedule in
    /// kube-state-metrics' words, skipped and missed elapses by reason, and a fleet job's duplicate runs.
    @Test func theMetricsSayOverdueSkippedAndTheSchedule() throws {
        var fleetJob = DueTimeRulesDaemonTests.cron("report", "0 * * * *")
        fleetJob.runOn = .oneNode
        let daemon = H(Self.jobs + [fleetJob], fleet: "node-a")
        daemon.advance(.seconds(600))  // 00:10, backup's first run, left running
        daemon.advance(.seconds(600))  // 00:20, its second elapse: skipped, Overlap=skip
        daemon.control(.disable, "backup")
        Self.fail(daemon)
        daemon.advance(.seconds(600))  // 00:30, its third: skipped, disabled; overdue since 00:25
        var samples = try PrometheusSamples.parse(daemon.loop.metricsText)
        #expect(samples["jobd_job_overdue{job=backup}"] == 1, "\(samples.keys.sorted())")
        #expect(samples["jobd_job_expect_success_within_seconds{job=backup}"] == 1500)
        #expect(samples["jobd_job_overdue{job=notify}"] == nil, "a job without ExpectSuccessWithinSec= has no switch")
        #expect(samples["jobd_job_skipped_elapses_total{job=backup,reason=overlap}"] == 1)
        #expect(samples["jobd_job_skipped_elapses_total{job=backup,reason=disabled}"] == 1)
        #expect(samples["jobd_job_status_last_successful_time{job=backup}"] == nil, "it never succeeded")
        daemon.control(.run, "backup")
        daemon.end("backup")
        samples = try PrometheusSamples.parse(daemon.loop.metricsText)
        let start = Double(H.wallStart) / 1e6
        #expect(samples["jobd_job_overdue{job=backup}"] == 0)
        #expect(samples["jobd_job_status_last_successful_time{job=backup}"] == start + 1800)
        daemon.advance(.seconds(1800))  // 01:00: report claims its elapse; the fleet says another node has it
        daemon.fleet?.answer(.taken(by: "node-b"))
        daemon.pump()
        samples = try PrometheusSamples.parse(daemon.loop.metricsText)
        #expect(samples["jobd_job_skipped_elapses_total{job=report,reason=claimed-by}"] == 1, "no node name in a label")
        #expect(samples["jobd_job_duplicate_runs_total{job=report}"] == 0 && samples["jobd_job_duplicate_runs_total{job=backup}"] == nil)
        #expect(samples["jobd_job_status_last_schedule_time{job=report}"] == start + 3600)
        #expect(samples["jobd_job_next_schedule_time{job=report}"] == start + 7200)
        // The clock set forward 3 h (or a resume): report serves 02:00, and 03:00 and 04:00 are missed.
        daemon.stepWallClock(by: 3 * 3600)
        samples = try PrometheusSamples.parse(daemon.loop.metricsText)
        #expect(samples["jobd_job_missed_elapses_total{job=report,reason=clock-jump}"] == 2, "\(samples.filter { $0.key.contains("missed") })")
        #expect(samples["jobd_job_status_last_schedule_time{job=report}"] == start + 4 * 3600)
    }
}
