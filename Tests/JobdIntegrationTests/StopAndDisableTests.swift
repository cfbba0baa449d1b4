import Foundation
import JobdTestKit
import Testing

/// `jobctl stop`, `disable` and `enable` against the real daemon and real runs.
@Suite(.serialized) struct StopAndDisableTests {
    @Test func stopEndsARunThatTrapsSIGTERMAfterItsTimeoutStopSec() throws {
        let jobd = try FailureHandlingTests.Daemon(jobs: [
            "stubborn": """
                [Job]
                OnStartupSec=0
                TimeoutStopSec=300ms
                ExecStart=/bin/sh -c 'trap "echo got TERM" TERM; echo started; while :; do sleep 0.05; done'
                """,
        ])
        try jobd.process.waitForLine("the run started") { $0.contains("run.output") && $0.hasSuffix("— started") }
        let (status, output) = try jobd.jobctl(["stop", "stubborn", "--wait"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("1 run(s) of stubborn asked to stop") && output.contains("every run of stubborn has ended"))
        let stop = try #require(jobd.process.events("run.stop").first { $0.field("JOB") == "stubborn" })
        #expect(stop.field("JOBD_REASON") == "requested")
        #expect(jobd.process.events("run.kill").contains { $0.field("JOB") == "stubborn" }, "SIGKILL after TimeoutStopSec=")
        let exit = try #require(jobd.process.events("run.exit").first { $0.field("JOB") == "stubborn" })
        #expect(exit.field("JOBD_RESULT") == "stopped" && exit.field("EXIT_STATUS") == "KILL")
        let (nothing, text) = try jobd.jobctl(["stop", "stubborn"])
        #expect(nothing == 0 && text.contains("stubborn has no run in flight"))
        #expect(try jobd.jobctl(["stop", "nope"]).0 == 1)
    }

    /// Issue 37: a run with `TimeoutStopSec=infinity` that ignores SIGTERM gets SIGKILL at jobd's own
    /// stop once `StopTimeoutMaxSec=` (here 1 s) has passed, and jobd exits well within its unit's
    /// `TimeoutStopSec=` (it waited for ever).
    @Test func jobdsStopKillsARunIgnoringSIGTERMAfterStopTimeoutMaxSec() throws {
        let config = try TemporaryConfiguration(jobs: [
            "stubborn": """
                [Job]
                OnStartupSec=0
                TimeoutStopSec=infinity
                ExecStart=/bin/sh -c 'trap "" TERM; echo started; while :; do sleep 0.05; done'
                """,
        ])
        try "[Daemon]\nStopTimeoutMaxSec=1s\n".write(toFile: config.path + "/jobd.conf", atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", config.path + "/run"])
        try daemon.waitForLine("the run started") { $0.contains("run.output") && $0.hasSuffix("— started") }
        daemon.signal(SIGTERM)
        // With TimeoutStopSec=infinity, an exit at all is the bound at work (the wait only bounds a hang).
        #expect(try daemon.waitForExit(timeout: .seconds(60)) == 0)
        // jobd sends no SIGKILL after an infinite grace: this one is StopTimeoutMaxSec='s.
        #expect(daemon.events("run.kill").contains { $0.field("JOB") == "stubborn" }, "SIGKILL after StopTimeoutMaxSec=")
        let exit = try #require(daemon.events("run.exit").first { $0.field("JOB") == "stubborn" })
        #expect(exit.field("JOBD_RESULT") == "stopped" && exit.field("EXIT_STATUS") == "KILL")
    }

    @Test func disableStopsTriggersAcrossARestartAndEnableResumesThem() throws {
        let tick = "[Job]\nOnStartupSec=0\nOnUnitActiveSec=100ms\nExecStart=/bin/true\n"
        let state = NSTemporaryDirectory() + "jobd-state-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: state) }
        let config = try TemporaryConfiguration(jobs: ["tick": tick])
        let runtime = config.path + "/run"
        func start() throws -> DaemonProcess {
            try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", runtime, "--state-dir", state])
        }
        func jobctl(_ arguments: [String]) throws -> (Int32, String) {
            try Jobctl(runtime: runtime, environment: nil)(arguments)
        }

        var daemon = try start()
        try daemon.waitForEvent("run.exit", fields: ["JOB": "tick"])
        #expect(try jobctl(["disable", "tick"]).0 == 0)
        let disabled = try daemon.waitForEvent("job.disable", fields: ["JOB": "tick"])
        // Triggers go on falling due, and each is skipped as disabled.
        let skipped = try daemon.waitForEvent("run.skip", fields: ["JOB": "tick", "JOBD_REASON": "disabled"], from: disabled)
        try daemon.waitForEvent("run.skip", fields: ["JOB": "tick", "JOBD_REASON": "disabled"], from: skipped + 1)
        let (_, list) = try jobctl(["list"])
        #expect(list.split(separator: "\n").contains { $0.contains("disabled") && $0.contains("tick") }, "\(list)")
        // jobctl run still starts it.
        #expect(try jobctl(["run", "tick", "--wait"]).0 == 0)
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)

        daemon = try start()
        try daemon.waitForEvent("run.skip", fields: ["JOB": "tick", "JOBD_REASON": "disabled"])
        #expect(!daemon.events("run.start").contains { $0.field("JOB") == "tick" }, "still disabled after a restart")
        #expect(try jobctl(["enable", "tick"]).0 == 0)
        let enabled = try daemon.waitForEvent("job.enable", fields: ["JOB": "tick"])
        try daemon.waitForEvent("run.exit", fields: ["JOB": "tick"], from: enabled)
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }
}
