import Foundation
import JobdTestKit
import Testing

/// The built jobd, started as a real process on a real configuration.
@Suite(.serialized) struct DaemonLifecycleTests {
    /// What scripts/run runs: every example job and the commented jobd.conf, all valid.
    @Test func exampleConfigurationRunsAJobWithinTenSeconds() throws {
        let examples = DaemonProcess.packageRoot() + "/etc/jobd/examples"
        let files = try FileManager.default.contentsOfDirectory(atPath: examples).filter { $0.hasSuffix(".job") }
        let config = try TemporaryConfiguration(jobs: Dictionary(uniqueKeysWithValues: try files.map {
            (String($0.dropLast(4)), try String(contentsOfFile: examples + "/" + $0, encoding: .utf8))
        }))
        try FileManager.default.copyItem(atPath: DaemonProcess.packageRoot() + "/etc/jobd/jobd.conf", toPath: config.path + "/jobd.conf")
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path])
        try daemon.waitForEvent("daemon.ready")
        #expect(!files.isEmpty)
        #expect(daemon.events("config.error").isEmpty)
        try daemon.waitForEvent("run.exit", fields: ["EXIT_CODE": "exited", "EXIT_STATUS": "0"], timeout: .seconds(10))
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// With no run to wait for, jobd's stop waits for nothing: the leak grace and the kill grace,
    /// the waits a wrong stop would make, are an hour here, so an exit within the minute's
    /// patience is one that waited for neither (it takes about 0.05 s idle).
    @Test func sigtermWithNoJobRunningExitsPromptlyAndReleasesEveryOwner() throws {
        let jobs = ["alpha", "beta", "gamma"]
        let config = try TemporaryConfiguration(jobs: Dictionary(uniqueKeysWithValues: jobs.map {
            ($0, "[Job]\nOnStartupSec=1h\nOnUnitActiveSec=1h\nTimeoutStopSec=1h\nExecStart=/bin/true\n")
        }))
        try "[Daemon]\nLeakGraceSec=1h\n".write(toFile: config.path + "/jobd.conf", atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path])
        try daemon.waitForEvent("daemon.ready")

        daemon.signal(SIGTERM)

        #expect(try daemon.waitForExit(timeout: .seconds(60)) == 0)
        for job in jobs {
            let initialized = daemon.events("owner.init").filter { $0.field("JOB") == job }
            let deinitialized = daemon.events("owner.deinit").filter { $0.field("JOB") == job }
            let invalidations = daemon.events("timer.invalidate").filter { $0.field("JOB") == job }
            #expect(initialized.count == 1, "\(job)")
            #expect(deinitialized.map { $0.field("JOBD_OWNER") } == initialized.map { $0.field("JOBD_OWNER") }, "\(job)")
            #expect(invalidations.count == 1, "\(job)")
            #expect(invalidations.first?.field("JOBD_REASON") == "shutdown", "\(job)")
            #expect(invalidations.first?.field("JOBD_TIMER") == initialized.first?.field("JOBD_TIMER"), "\(job)")
        }
        // jobd's own timers (retry, reload watch, metrics, leak check) are not counted as jobs'.
        let exit = daemon.events("daemon.exit").first?.message ?? ""
        #expect(exit.contains("stopped: 0 job timer(s) live, 0 owner(s)"), "\(exit)")
    }

    /// A broken job file disables its own job only: jobd starts, says which file and line, and
    /// schedules the rest.
    @Test func brokenJobFileAtStartIsReportedWithFileAndLineAndTheRestRuns() throws {
        let config = try TemporaryConfiguration(jobs: [
            "good": "[Job]\nOnStartupSec=0\nExecStart=/bin/true\n",
            "bad": "[Job]\nOnStartupSec=1h\nExecStart=/bin/true\nOnCalender=daily\n",
        ])
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path])
        let ready = try daemon.waitForEvent("daemon.ready")
        #expect(LogLine(daemon.lines[ready]).message.hasSuffix("1 broken file(s): bad.job not loaded"))
        let errors = daemon.events("config.error")
        #expect(errors.count == 1)
        #expect(errors.first?.message.hasPrefix("\(config.path)/jobs.d/bad.job:4: error: unknown key 'OnCalender='") == true)
        try daemon.waitForEvent("run.exit", fields: ["JOB": "good"])
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    /// What truly prevents scheduling still stops jobd, with exit 1: a configuration directory that
    /// cannot be read.
    @Test func anUnreadableConfigurationDirectoryExitsNonZero() throws {
        let daemon = try DaemonProcess(arguments: ["--config-dir", "/nonexistent/jobd-config"])
        #expect(try daemon.waitForExit() == 1)
        #expect(daemon.events("config.error").first?.message.hasPrefix("/nonexistent/jobd-config: error: cannot read the configuration directory") == true)
    }

    @Test func missingExecutableIsAFailedRunAndSchedulingGoesOn() throws {
        let config = try TemporaryConfiguration(jobs: [
            "ghost": "[Job]\nOnStartupSec=0\nOnUnitActiveSec=200ms\nExecStart=/nonexistent/binary --flag\n",
        ])
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path])
        let first = try daemon.waitForEvent("run.exit", fields: ["JOB": "ghost", "EXIT_CODE": "failed-to-start"])
        try daemon.waitForEvent("run.exit", fields: ["JOB": "ghost", "EXIT_CODE": "failed-to-start"], from: first + 1)
        #expect(daemon.events("run.start").contains { $0.field("JOB") == "ghost" && $0.level == "error" && $0.message.contains("could not start") },
                "why the command could not start is logged")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    @Test func jobOutputAndEnvironmentReachTheLog() throws {
        let config = try TemporaryConfiguration(jobs: [
            "talker": """
                [Job]
                OnStartupSec=0
                Environment="GREETING=hello there"
                ExecStart=/bin/sh -c 'echo "$GREETING from $JOBD_JOB"; echo "to stderr" >&2; echo "notify=$${NOTIFY_SOCKET:-unset}"; echo "cwd=$(pwd)"'
                """,
        ])
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = "/run/should-not-leak"
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path], environment: environment)
        try daemon.waitForEvent("run.exit", fields: ["JOB": "talker"])
        let output = daemon.events("run.output")
        let messages = output.map(\.message)
        #expect(messages.contains("hello there from talker"))
        #expect(output.contains { $0.message == "to stderr" && $0.level == "error" })
        #expect(output.contains { $0.message == "hello there from talker" && $0.level == "info" })
        #expect(messages.contains("notify=unset"), "jobd's NOTIFY_SOCKET must not reach a job")
        #expect(messages.contains("cwd=/"), "a job without WorkingDirectory= runs in /")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }
}
