import JobdCalendar
import JobdControl
import JobctlCommands
import JobctlReports
import SystemdKit
import Testing

/// Issue 40 item 1: `jobctl why` names the reason for every kind of elapse that did not run, and
/// the run of every one that did, from synthetic journal entries (no journal, no jobd).
@Suite struct WhyReportTests {
    static let hour: Int64 = 3_600_000_000
    /// 2026-11-28 00:00:00 UTC.
    static let midnight: Int64 = 1_795_824_000_000_000

    /// An entry of jobd's, at `time`, of instance `instance`.
    static func entry(_ time: Int64, _ event: String?, _ fields: [String: String] = [:], instance: String = "i1") -> JournalEntry {
        var all = fields.merging(["SYSLOG_IDENTIFIER": "jobd", "JOBD_INSTANCE": instance, "_UID": "0"]) { a, _ in a }
        if let event { all["JOBD_EVENT"] = event }
        return JournalEntry(fields: all, realtimeUSec: UInt64(time), monotonicUSec: 0, bootID: "", cursor: "")
    }

    /// The entries of one run of `backup` serving the elapse `elapse` (a timer's unless `cause`).
    static func run(_ id: String, elapse: Int64?, cause: String? = nil, at time: Int64, _ events: [(String, [String: String])]) -> [JournalEntry] {
        var fields = ["JOB": "backup", "JOBD_RUN_ID": id]
        if let elapse { fields["JOBD_ELAPSE_USEC"] = String(elapse) }
        if let cause { fields["JOBD_CAUSE"] = cause }
        return events.enumerated().map { index, event in
            entry(time + Int64(index) * 1_000_000, event.0, fields.merging(event.1) { _, new in new })
        }
    }

    static func status(triggers: [String] = ["OnCalendar=*-*-* *:00:00"], next: Int64? = nil) -> JobStatus {
        var status = JobStatus(name: "backup", file: "/etc/jobd/jobs.d/backup.job", description: nil, command: "/bin/true",
                               triggers: triggers, nextElapseUSec: next, lastTriggerUSec: nil, lastStartUSec: nil, lastFinishUSec: nil,
                               lastOutcome: nil, running: 0, owner: 1, generation: 1)
        status.persistent = false
        status.overlap = "skip"
        return status
    }

    /// Hourly elapses after `from` up to `to`.
    static func hourly(_ from: Int64, _ to: Int64) -> [Int64] {
        stride(from: (from / hour + 1) * hour, through: to, by: Int(hour)).map { $0 }
    }

    static func report(_ entries: [JournalEntry], status: JobStatus? = status(), count: Int = 10, now: Int64 = midnight + 12 * hour) -> WhyReport {
        WhyReport(job: "backup", entries: entries, status: status, count: count, nowUSec: now, schedule: hourly)
    }

    static func text(_ report: WhyReport) -> String {
        report.text(time: { TimestampFormat.timestamp(RealtimeInstant(microseconds: $0), in: .utc) }, relative: { _ in "soon" })
    }

    @Test func anElapseThatRanShowsItsRunAndResult() {
        let report = Self.report(Self.run("r1", elapse: Self.midnight + Self.hour, at: Self.midnight + Self.hour,
                                          [("run.start", [:]), ("run.exit", ["JOBD_RESULT": "exit-code", "EXIT_STATUS": "3"])]))
        #expect(report.rows.count == 1)
        #expect(report.rows.first?.outcome == .ran && report.rows.first?.runID == "r1" && report.rows.first?.result == "exit-code")
        #expect(Self.text(report).contains("Sat 2026-11-28 01:00:00 UTC  ran        run r1: exit-code (status 3)"))
        #expect(report.lastDueRan == true, "it ran, whatever its result")
    }

    /// Every reason jobd logs for a skipped elapse is named, and the elapse did not run.
    @Test(arguments: [
        ("overlap", nil, "a run was still in flight (Overlap=skip)"),
        ("disabled", nil, "the job was disabled (jobctl disable)"),
        ("condition", "ConditionPathExists=/srv/backup", "ConditionPathExists=/srv/backup did not hold"),
        ("claimed-by node-b", nil, "claimed by node node-b (RunOn=one-node)"),
        ("fleet-unavailable", nil, "the fleet's database was unavailable"),
        ("job-waiting-runs-max", nil, "(JobWaitingRunsMax=)"),
        ("user-waiting-runs-max", nil, "(UserWaitingRunsMax=)"),
        ("a-reason-of-a-later-jobd", nil, "skipped: a-reason-of-a-later-jobd"),
    ] as [(String, String?, String)])
    func aSkippedElapseNamesItsReason(reason: String, condition: String?, phrase: String) {
        let elapse = Self.midnight + 2 * Self.hour
        var entries: [JournalEntry] = []
        if let condition {
            // The note that names the condition comes before the run.skip, and carries no event.
            entries.append(Self.entry(elapse, nil, ["JOB": "backup", "JOBD_RUN_ID": "r2", "JOBD_ELAPSE_USEC": String(elapse), "JOBD_CONDITION": condition]))
        }
        entries += Self.run("r2", elapse: elapse, at: elapse + 5_000_000, [("run.skip", ["JOBD_REASON": reason])])
        let report = Self.report(entries)
        #expect(report.rows.map(\.outcome) == [.skipped])
        #expect(report.rows.first?.reason == reason && report.rows.first?.condition == condition)
        #expect(Self.text(report).contains("02:00:00 UTC  skipped    "), "\(Self.text(report))")
        #expect(Self.text(report).contains(phrase), "\(Self.text(report))")
        #expect(report.lastDueRan == false)
    }

    @Test func aRunThatWaitedForASlotSaysSoAndAWaitingOneWaits() {
        let first = Self.run("r1", elapse: Self.midnight + Self.hour, at: Self.midnight + Self.hour,
                             [("run.wait", ["JOBD_REASON": "max-concurrent-runs"]), ("run.start", [:]), ("run.exit", ["JOBD_RESULT": "success"])])
        let second = Self.run("r2", elapse: Self.midnight + 2 * Self.hour, at: Self.midnight + 2 * Self.hour,
                              [("run.wait", ["JOBD_REASON": "max-concurrent-runs"])])
        let report = Self.report(first + second)
        #expect(report.rows.map(\.outcome) == [.ran, .waiting])
        #expect(Self.text(report).contains("run r1: success, after waiting for a free slot (MaxConcurrentRuns=)"))
        #expect(Self.text(report).contains("run r2 waits for a free slot (MaxConcurrentRuns=)"))
        #expect(report.lastDueRan == false, "the last elapse has not started")
    }

    @Test func retriesAreFoldedIntoTheirElapse() {
        let elapse = Self.midnight + Self.hour
        let failed = Self.run("r1", elapse: elapse, at: elapse, [("run.start", [:]), ("run.exit", ["JOBD_RESULT": "exit-code", "EXIT_STATUS": "1"])])
        let retry = Self.run("r2", elapse: elapse, cause: "retry", at: elapse + 10_000_000,
                             [("run.retry", ["JOBD_ATTEMPT": "1/3"]), ("run.start", [:]), ("run.exit", ["JOBD_RESULT": "success"])])
        let report = Self.report(failed + retry)
        #expect(report.rows.count == 1)
        #expect(report.rows.first?.retries == 1 && report.rows.first?.runID == "r2" && report.rows.first?.result == "success")
        #expect(Self.text(report).contains("run r2: success, after 1 retry"))
        let pending = Self.report(failed + Self.run("r2", elapse: elapse, cause: "retry", at: elapse + 10_000_000, [("run.retry", ["JOBD_ATTEMPT": "1/3"])]))
        #expect(pending.rows.map(\.outcome) == [.retrying])
        #expect(Self.text(pending).contains("failed     run r2: exit-code; a retry is due (Restart=)"))
    }

    @Test func runsByHandAndByAnotherJobsOnFailureAreNamed() {
        let manual = Self.run("m1", elapse: nil, cause: "manual", at: Self.midnight + 10_000_000,
                              [("run.start", [:]), ("run.exit", ["JOBD_RESULT": "success"])])
        let chained = Self.run("f1", elapse: nil, cause: "on-failure", at: Self.midnight + 20_000_000,
                               [("run.start", ["JOBD_TRIGGERED_BY": "db-dump"]), ("run.exit", ["JOBD_RESULT": "success"])])
        let report = Self.report(manual + chained)
        #expect(report.rows.map(\.cause) == ["manual", "on-failure"])
        #expect(Self.text(report).contains("started by hand (jobctl run), run m1: success"))
        #expect(Self.text(report).contains("started by db-dump's OnFailure=, run f1: success"))
        #expect(report.lastDueRan == nil, "no trigger fell due: no elapse to judge")
    }

    /// jobd was stopped at 01:30 and started at 04:30: the elapses at 02:00, 03:00 and 04:00 are
    /// missed, on one line with the window; a Persistent= catch-up of 04:00 would have served it.
    @Test func elapsesWhileJobdWasDownAreMissedWithTheWindow() {
        let stop = Self.midnight + Self.hour + Self.hour / 2, start = Self.midnight + 4 * Self.hour + Self.hour / 2
        let entries = Self.run("r1", elapse: Self.midnight + Self.hour, at: Self.midnight + Self.hour, [("run.start", [:]), ("run.exit", ["JOBD_RESULT": "success"])])
            + [Self.entry(stop, "daemon.exit"), Self.entry(start, "daemon.start", instance: "i2")]
        let report = Self.report(entries)
        #expect(report.rows.map(\.outcome) == [.ran, .missed])
        let missed = report.rows[1]
        #expect(missed.reason == "jobd-down" && missed.count == 3 && missed.timeUSec == Self.midnight + 2 * Self.hour)
        #expect(missed.windowFromUSec == stop && missed.windowToUSec == start)
        #expect(Self.text(report).contains("missed     3 elapses: jobd was not running (from its last entry at Sat 2026-11-28 01:30:00 UTC to its start at Sat 2026-11-28 04:30:00 UTC)"))
        #expect(report.lastDueRan == false)

        let caughtUp = Self.report(entries + Self.run("r2", elapse: Self.midnight + 4 * Self.hour, at: start + 1_000_000,
                                                      [("run.start", [:]), ("run.exit", ["JOBD_RESULT": "success"])]))
        #expect(caughtUp.rows.map(\.outcome) == [.ran, .missed, .ran])
        #expect(caughtUp.rows[1].count == 2 && caughtUp.rows[2].caughtUp)
        #expect(Self.text(caughtUp).contains("run r2: success, late: caught up at Sat 2026-11-28 04:30:01 UTC"))
        #expect(caughtUp.lastDueRan == true)
    }

    @Test func elapsesInASuspendOrAClockJumpAreMissedWithTheWindow() {
        let resume = Self.midnight + 3 * Self.hour + 60_000_000
        let suspended = Self.report([Self.entry(resume, "clock.change", ["JOBD_SUSPENDED_USEC": String(2 * Self.hour)])])
        #expect(suspended.rows.map(\.reason) == ["suspended"])
        #expect(suspended.rows.first?.count == 2)
        #expect(Self.text(suspended).contains("the machine was suspended from Sat 2026-11-28 01:01:00 UTC to Sat 2026-11-28 03:01:00 UTC"))
        let jumped = Self.report([Self.entry(resume, "clock.change", ["JOBD_CLOCK_JUMP_USEC": String(Self.hour)])])
        #expect(jumped.rows.map(\.reason) == ["clock-jump"])
        #expect(Self.text(jumped).contains("the wall clock jumped from Sat 2026-11-28 02:01:00 UTC to Sat 2026-11-28 03:01:00 UTC"))
        let back = Self.report([Self.entry(resume, "clock.change", ["JOBD_CLOCK_JUMP_USEC": String(-Self.hour)])])
        #expect(back.rows.isEmpty, "a clock set back skips no elapse")
    }

    @Test func onlyTheLastNAreShownButTheLastDueOneDecides() {
        var entries: [JournalEntry] = []
        for hour in 1...5 {
            let elapse = Self.midnight + Int64(hour) * Self.hour
            entries += Self.run("r\(hour)", elapse: elapse, at: elapse, hour == 5 ? [("run.skip", ["JOBD_REASON": "overlap"])] : [("run.start", [:])])
        }
        let report = Self.report(entries, count: 2)
        #expect(report.rows.map(\.runID) == ["r4", "r5"])
        #expect(report.lastDueRan == false)
    }

    @Test func theNextElapseSaysWhatWillDecideIt() {
        var status = Self.status(next: Self.midnight + 13 * Self.hour)
        status.running = 1
        status.persistent = true
        status.conditions = ["ConditionPathExists=/srv/backup"]
        let text = Self.text(Self.report([], status: status))
        #expect(text.contains("No elapse or run of backup in the journal."))
        #expect(text.contains("Next: Sat 2026-11-28 13:00:00 UTC (soon): skipped if the run in flight (1) has not ended then (Overlap=skip); "
                              + "runs only if ConditionPathExists=/srv/backup hold(s) then; if jobd is down then, it runs once when jobd starts (Persistent=yes)"))
        status.disabled = true
        #expect(Self.text(Self.report([], status: status)).contains("disabled: its triggers start no runs (jobctl enable)"))
        #expect(Self.report([], status: nil).next == nil)
    }

    @Test func theJSONCarriesTheCodesAndTheVerdict() {
        let report = Self.report(Self.run("r1", elapse: Self.midnight + Self.hour, at: Self.midnight + Self.hour,
                                          [("run.skip", ["JOBD_REASON": "claimed-by node-b"])]))
        var writer = JSONWriter()
        report.write(to: &writer, time: { String($0) })
        let json = String(decoding: writer.bytes, as: UTF8.self)
        #expect(json.contains(#""outcome":"skipped""#) && json.contains(#""reason":"claimed-by node-b""#))
        #expect(json.contains(#""lastDueRan":false"#) && json.contains(#""overlap":"skip""#))
    }

    /// Entries of another job, or of a run jobd's journal never said started, change nothing.
    @Test func entriesOfOtherJobsAreNotThisJobs() {
        let other = Self.entry(Self.midnight + Self.hour, "run.skip", ["JOB": "other", "JOBD_RUN_ID": "x", "JOBD_REASON": "overlap",
                                                                          "JOBD_ELAPSE_USEC": String(Self.midnight + Self.hour)])
        #expect(Self.report([other]).rows.isEmpty)
    }
}
