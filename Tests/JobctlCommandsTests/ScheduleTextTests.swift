@testable import JobctlCommands
@testable import JobctlReports
import JobdControl
import Testing

/// `jobctl plan`'s table and `jobctl reload --dry-run`'s report, laid out without a daemon.
@Suite struct ScheduleTextTests {
    static let midnight: Int64 = 1_795_910_400_000_000

    static func elapse(_ job: String, spread: Int64 = 0, reason: String = "scheduled", retries: String? = nil) -> SchedulePreview.Elapse {
        SchedulePreview.Elapse(job: job, earliestUSec: midnight + 900, latestUSec: midnight + 900 + spread, trigger: "OnCalendar=daily",
                               reason: reason, retries: retries)
    }

    @Test func aSpreadElapseIsARangeAndEveryLineSaysWhy() {
        let text = ScheduleText.plan([
            Self.elapse("spread", spread: 1_800_000_000), Self.elapse("exact", spread: 999_000, retries: "on-failure: 1 retry at +1s after each failed attempt"),
            Self.elapse("off", reason: "disabled"),
        ])
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(text)")
        #expect(lines[0].hasPrefix("WHEN ") && lines[0].hasSuffix("WHY"))
        #expect(lines[1].contains(" - ") && lines[1].hasSuffix("scheduled"), "30 minutes of RandomizedDelaySec= is a range: \(lines[1])")
        #expect(!lines[2].contains(" - "), "under a second apart is one time: \(lines[2])")
        #expect(lines[2].hasSuffix("scheduled; if it fails, on-failure: 1 retry at +1s after each failed attempt"))
        #expect(lines[3].hasSuffix("disabled (skipped when it comes; jobctl enable)"))
        #expect(lines[4] == "3 elapse(s).")
        #expect(ScheduleText.plan([]) == "No job falls due in this window.\n")
    }

    @Test func aDryRunNamesEachChangeAndWhatWouldRunAtOnce() {
        let preview = SchedulePreview(nowUSec: Self.midnight, changes: [
            SchedulePreview.Change(job: "backup", kind: "changed", keys: ["Persistent"], before: Self.elapse("backup"),
                                   after: Self.elapse("backup", reason: "catch-up")),
            SchedulePreview.Change(job: "new", kind: "added", after: Self.elapse("new")),
            SchedulePreview.Change(job: "old", kind: "removed", before: Self.elapse("old")),
        ], kept: 7)
        let lines = ScheduleText.reloadPreview(preview).split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(lines)")
        #expect(lines[0].hasPrefix("changed  backup (Persistent): next ") && lines[0].contains(", was "))
        #expect(lines[1].hasPrefix("added    new: next ") && lines[1].hasSuffix("(OnCalendar=daily)"))
        #expect(lines[2].hasPrefix("removed  old: was next "))
        #expect(lines[3] == "runs at once: backup: catch-up (Persistent=: a slot missed while jobd was down, at once)")
        #expect(lines[4] == "dry run: 1 added, 1 changed, 1 removed, 7 kept; nothing was applied")
    }
}
