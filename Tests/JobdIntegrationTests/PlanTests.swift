import Foundation
import JobdTestKit
import Testing

/// `jobctl reload --dry-run` and `jobctl plan` against a running jobd (issue 40).
@Suite(.serialized) struct PlanTests {
    /// The whole list and the daemon's generation and last reload, as `--json` shows them; but the
    /// next elapses, which jobd converts from its monotonic timers to the wall clock as it answers
    /// (a microsecond apart from one answer to the next).
    func state(_ setup: JobctlTests.Setup) throws -> String {
        let (listed, list) = try setup.jobctl(["list", "--json"])
        let (statused, status) = try setup.jobctl(["status", "--json"])
        #expect(listed == 0 && statused == 0)
        let daemon = try #require(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])
        let lines = list.split(separator: "\n").filter { !$0.contains("\"nextElapseUSec\"") }
        return lines.joined(separator: "\n") + "\ngeneration \(daemon["generation"] ?? "?") last reload \(daemon["lastReload"].map { "\($0)" } ?? "none")"
    }

    @Test func aDryRunShowsAnAddedJobsNextSlotAndChangesNothing() throws {
        let setup = try JobctlTests.Setup(jobs: ["keep": "[Job]\nOnCalendar=2099-01-01 00:00:00 UTC\nExecStart=/bin/true\n"])
        // A daily slot two minutes ago: a reload adds the job after its slot passed.
        let slot = Date().addingTimeInterval(-120)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let time = utc.dateComponents([.hour, .minute], from: slot)
        let marker = setup.config.path + "/late-ran"
        try setup.config.write(job: "late", String(format: "[Job]\nOnCalendar=*-*-* %02d:%02d:00 UTC\nExecStart=/bin/touch %@\n", time.hour!, time.minute!, marker))
        let next = utc.date(bySettingHour: time.hour!, minute: time.minute!, second: 0, of: slot)!.addingTimeInterval(86_400)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = utc.timeZone
        formatter.dateFormat = "EEE yyyy-MM-dd HH:mm:ss 'UTC'"
        let jobctl = Jobctl(runtime: setup.runtime, daemon: setup.daemon, environment: Jobctl.plainEnvironment.merging(["TZ": "UTC"]) { $1 })

        let before = try state(setup)
        let (status, output) = try jobctl(["reload", "--dry-run"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("added    late: next \(formatter.string(from: next)) (OnCalendar="), "\(output)")
        #expect(!output.contains("runs at once"), "\(output)")
        #expect(output.contains("dry run: 1 added, 0 changed, 0 removed, 1 kept; nothing was applied"), "\(output)")
        let after = try state(setup)
        #expect(after == before, "no generation, no reload, no job: jobd is as it was: \(before) → \(after)")
        #expect(!FileManager.default.fileExists(atPath: marker))

        // The reload itself does what the dry run said: the next slot, no run.
        #expect(try jobctl(["reload"]).0 == 0)
        let (planned, plan) = try jobctl(["plan", "late", "-n", "1", "--json"])
        #expect(planned == 0, "\(plan)")
        let elapses = try #require(try JSONSerialization.jsonObject(with: Data(plan.utf8)) as? [[String: Any]])
        // The slot, rounded up to AccuracySec= (1ms) on the monotonic clock, as jobd arms its timer.
        let late = try #require(elapses.first?["earliestUSec"] as? Int64) - Int64(next.timeIntervalSince1970) * 1_000_000
        #expect((0..<1_000).contains(late), "\(plan)")
        #expect(!FileManager.default.fileExists(atPath: marker))

        // Errors come as a reload reports them, with its exit status.
        try setup.config.write(job: "bad", "[Job]\nOnCalender=daily\nExecStart=/bin/true\n")
        let (failed, errors) = try jobctl(["reload", "--dry-run"])
        #expect(failed == 1)
        #expect(errors.contains("\(setup.config.path)/jobs.d/bad.job:2: error: unknown key 'OnCalender='"), "\(errors)")
    }
}
