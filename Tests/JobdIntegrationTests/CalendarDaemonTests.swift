import Foundation
import JobdTestKit
import Testing

/// Calendar schedules in the real daemon.
@Suite(.serialized) struct CalendarDaemonTests {
    /// `YYYY-MM-DD HH:MM:SS UTC`, as OnCalendar= takes a single time.
    static func calendarTime(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date) + " UTC"
    }

    /// Two elapses a few seconds apart; jobd runs across the first and is stopped across the second.
    /// jobd must be up before the first (a job never triggered has no stamp to catch up from) and
    /// gone before the second: an attempt that a loaded machine let miss either proves nothing, and
    /// is made again with new elapses.
    @Test func persistentJobCatchesUpOnceOnATriggerMissedWhileJobdWasStopped() throws {
        for attempt in 1...3 {
            if try catchUpOnce() { return }
            print("CALENDAR attempt \(attempt): jobd was not up before the first elapse or not stopped before the second; again")
        }
        Issue.record("in three attempts jobd was never both up before the first elapse and stopped before the second")
    }

    /// One attempt of ``persistentJobCatchesUpOnceOnATriggerMissedWhileJobdWasStopped()``: `false`
    /// when the scenario did not happen as planned.
    func catchUpOnce() throws -> Bool {
        // jobd starts in about 0.1 s.
        let first = Date(timeIntervalSince1970: ceil(Date().timeIntervalSince1970) + 4)
        let second = first.addingTimeInterval(3)
        let schedule = "OnCalendar=\(Self.calendarTime(first))\nOnCalendar=\(Self.calendarTime(second))\nExecStart=/bin/true\n"
        let config = try TemporaryConfiguration(jobs: [
            "kept": "[Job]\nPersistent=yes\n" + schedule,
            "lost": "[Job]\n" + schedule,
        ])
        let state = config.path + "/state"
        let arguments = ["--config-dir", config.path, "--state-dir", state]

        let before = try DaemonProcess(arguments: arguments)
        try before.waitForEvent("daemon.ready")
        guard Date() < first else {
            before.signal(SIGTERM)
            _ = try before.waitForExit()
            return false
        }
        try before.waitForEvent("run.exit", fields: ["JOB": "kept"], timeout: .seconds(60))
        before.signal(SIGTERM)
        #expect(try before.waitForExit() == 0)
        guard Date() < second else { return false }
        #expect(FileManager.default.fileExists(atPath: state + "/timestamps/kept"), "the trigger was stored")
        #expect(!FileManager.default.fileExists(atPath: state + "/timestamps/lost"))

        // Let the second elapse pass while jobd is down: this waits for the wall clock itself.
        var until = timespec(tv_sec: Int(second.timeIntervalSince1970) + 1, tv_nsec: 0)
        while clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &until, nil) == EINTR {}

        let after = try DaemonProcess(arguments: arguments)
        let ready = try after.waitForEvent("daemon.ready")
        try after.waitForEvent("run.exit", fields: ["JOB": "kept"], from: ready, timeout: .seconds(60))
        let (status, list) = try jobctl(after, config, ["list", "--json"])
        #expect(status == 0)
        let jobs = try JSONSerialization.jsonObject(with: Data(list.utf8)) as? [[String: Any]] ?? []
        #expect(jobs.allSatisfy { $0["nextElapseUSec"] == nil }, "both elapses are past: nothing is due any more")
        after.signal(SIGTERM)
        #expect(try after.waitForExit() == 0)
        #expect(after.events("run.start").map { $0.field("JOB") } == ["kept"], "only the persistent job caught up, once")
        return true
    }

    /// A stamp jobd cannot believe (before 1970, more than a day ahead, not a number) is refused with
    /// an error naming its file, and its job runs at its next elapse as if it had none: a stamp of -1
    /// used to disable its job without a word.
    @Test(arguments: ["-1", "99999999999999999", "yesterday"])
    func implausiblePersistentStampIsRefusedAndTheJobStillRuns(stamp: String) throws {
        let config = try TemporaryConfiguration(jobs: ["kept": "[Job]\nPersistent=yes\nOnCalendar=*:*:0/2\nExecStart=/bin/true\n"])
        let state = config.path + "/state"
        try FileManager.default.createDirectory(atPath: state + "/timestamps", withIntermediateDirectories: true)
        try (stamp + "\n").write(toFile: state + "/timestamps/kept", atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path, "--state-dir", state])
        let refused = try daemon.waitForLine("the stamp refused") { line in
            LogLine(line).level == "error" && line.contains(state + "/timestamps/kept")
        }
        try daemon.waitForEvent("run.exit", fields: ["JOB": "kept", "JOBD_RESULT": "success"], from: refused, timeout: .seconds(10))
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        let written = try String(contentsOfFile: state + "/timestamps/kept", encoding: .utf8)
        #expect(written != stamp + "\n", "the run wrote a stamp of its own")
    }

    @Test func rebootJobRunsOnceAtTheFirstStartInABoot() throws {
        let config = try TemporaryConfiguration(jobs: ["boot": "[Job]\nCron=@reboot\nExecStart=/bin/true\n"])
        let arguments = ["--config-dir", config.path, "--state-dir", config.path + "/state"]
        let first = try DaemonProcess(arguments: arguments)
        try first.waitForEvent("run.exit", fields: ["JOB": "boot"])
        first.signal(SIGTERM)
        #expect(try first.waitForExit() == 0)

        let second = try DaemonProcess(arguments: arguments)
        try second.waitForEvent("daemon.ready")
        let (_, list) = try jobctl(second, config, ["status", "boot", "--json"])
        #expect(!list.contains("nextElapseUSec"), "@reboot is not due again in the same boot: \(list)")
        second.signal(SIGTERM)
        #expect(try second.waitForExit() == 0)
        #expect(second.events("run.start").isEmpty)
    }

    @Test func jobctlCalendarPrintsWhatSystemdAnalyzePrints() throws {
        let analyze = try Requirement.tools("/usr/bin/systemd-analyze", for: "the comparison with systemd's elapses")
        for (zone, expression) in [
            ("UTC", "hourly"), ("Europe/Berlin", "Mon..Fri *-*-* 02:30"), ("America/New_York", "*-*-01 00:00:00"),
            ("Australia/Lord_Howe", "Sat,Sun 01:45"), ("Asia/Kolkata", "*-*~03 12:00"),
        ] {
            let arguments = ["calendar", "--iterations", "4", "--base-time", "2026-03-27 12:00:00 UTC", expression]
            var environment = ProcessInfo.processInfo.environment
            environment["TZ"] = zone
            let ours = try DaemonProcess(product: "jobctl", arguments: arguments, environment: environment)
            let theirs = try DaemonProcess(absolutePath: analyze, arguments: arguments, environment: environment)
            #expect(try ours.waitForExit() == 0)
            #expect(try theirs.waitForExit() == 0)
            #expect(ours.lines == theirs.lines, "TZ=\(zone) \(expression)")
        }
        let invalid = try DaemonProcess(product: "jobctl", arguments: ["calendar", "Mon..Fry 9:00"])
        #expect(try invalid.waitForExit() == 1)
        #expect(invalid.lines.contains { $0.contains("Mon..Fry 9:00") })
    }

    func jobctl(_ daemon: DaemonProcess, _ config: TemporaryConfiguration, _ arguments: [String]) throws -> (Int32, String) {
        try Jobctl(runtime: daemon.process.environment?["RUNTIME_DIRECTORY"] ?? "", environment: nil)(arguments)
    }
}
