import Foundation
import JobdTestKit
import Testing

/// `jobctl import timer --retire` (issue 38): the timer is retired (`systemctl disable --now`) only
/// once the running jobd has the job, and never when the import is incomplete or the job went
/// somewhere jobd does not read. systemctl is a recorder on `PATH` here, so that the test sees
/// whether, and how, it was called; the e2e check `import_timer_retire_leaves_no_double_run` retires
/// a timer under a real systemd.
@Suite(.serialized) struct RetireTimerTests {
    final class Setup {
        let config = try! TemporaryConfiguration()
        let elsewhere = try! TemporaryConfiguration()
        let units = NSTemporaryDirectory() + "jobd-retire-" + UUID().uuidString
        var runtime: String { config.path + "/run" }
        var calls: String { units + "/systemctl.calls" }
        let daemon: DaemonProcess

        init() throws {
            try FileManager.default.createDirectory(atPath: units + "/bin", withIntermediateDirectories: true)
            try "[Timer]\nOnCalendar=daily\nAccuracySec=1s\n".write(toFile: units + "/nightly.timer", atomically: true, encoding: .utf8)
            try "[Service]\nExecStart=/bin/true\n".write(toFile: units + "/nightly.service", atomically: true, encoding: .utf8)
            try "[Timer]\nOnCalendar=daily\n".write(toFile: units + "/lossy.timer", atomically: true, encoding: .utf8)
            try "[Service]\nExecStart=/bin/true\nRequiresMountsFor=/srv\n".write(toFile: units + "/lossy.service", atomically: true, encoding: .utf8)
            try "#!/bin/sh\necho \"$*\" >> \(units)/systemctl.calls\n".write(toFile: units + "/bin/systemctl", atomically: true, encoding: .utf8)
            chmod(units + "/bin/systemctl", 0o755)
            daemon = try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", config.path + "/run"],
                                       environment: ["PATH": "/usr/bin:/bin", "STATE_DIRECTORY": units])
            try daemon.waitForEvent("daemon.ready")
        }

        func jobctl(_ arguments: [String]) throws -> (Int32, String) {
            let environment = ["NO_COLOR": "1", "PATH": units + "/bin:/usr/bin:/bin"]
            return try Jobctl(runtime: runtime, environment: environment)(arguments)
        }

        var systemctlCalls: String { (try? String(contentsOfFile: calls, encoding: .utf8)) ?? "" }

        deinit {
            daemon.signal(SIGTERM)
            _ = try? daemon.waitForExit()
            try? FileManager.default.removeItem(atPath: units)
        }
    }

    @Test func aTimerIsRetiredOnlyOnceJobdHasItsJob() throws {
        let setup = try Setup()
        // Without --output there is no job in place to hand over to.
        let (usage, said) = try setup.jobctl(["import", "timer", setup.units + "/nightly.timer", "--retire"])
        #expect(usage == 64 && said.contains("--retire needs --output"), "\(said)")
        // Into a directory jobd does not read: written, but jobd has no such job, so the timer stays.
        let (astray, astraySaid) = try setup.jobctl(["import", "timer", setup.units + "/nightly.timer", "--output", setup.elsewhere.path + "/jobs.d", "--retire"])
        #expect(astray == 1 && astraySaid.contains("nightly.timer not retired") && astraySaid.contains("jobd has no job nightly"), "\(astraySaid)")
        // An incomplete import (a key not carried over) writes and retires nothing.
        let (lossy, lossySaid) = try setup.jobctl(["import", "timer", setup.units + "/lossy.timer", "--output", setup.config.path + "/jobs.d", "--retire"])
        #expect(lossy == 1 && lossySaid.contains("lossy.timer not retired, and nothing imported"), "\(lossySaid)")
        #expect(!FileManager.default.fileExists(atPath: setup.config.path + "/jobs.d/lossy.job"))
        #expect(setup.systemctlCalls.isEmpty)

        // Into jobd's jobs.d: reloaded, jobd has it, and then the timer is disabled and stopped.
        let (retired, retiredSaid) = try setup.jobctl(["import", "timer", setup.units + "/nightly.timer", "--output", setup.config.path + "/jobs.d", "--retire"])
        #expect(retired == 0, "\(retiredSaid)")
        #expect(retiredSaid.contains("To go back: systemctl enable --now nightly.timer"), "\(retiredSaid)")
        #expect(setup.systemctlCalls == "disable --now nightly.timer\n")
        let (_, list) = try setup.jobctl(["list"])
        #expect(list.contains("nightly"), "\(list)")
    }
}
