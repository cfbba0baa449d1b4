import Foundation
import JobdLogging
import JobdTestKit
import Logging
import Testing

/// `JOBD_LOG_LEVEL`: what reaches stderr; info by default, so that a terminal is not flooded by the
/// owners' and timers' bookkeeping, which the journal keeps for `jobctl audit`.
@Suite(.serialized) struct StderrLevelTests {
    @Test func theLevelIsReadAndInfoByDefault() {
        #expect(JobdLoggingSystem.stderrLevel(nil) == .info)
        #expect(JobdLoggingSystem.stderrLevel("") == .info)
        #expect(JobdLoggingSystem.stderrLevel("loud") == .info)
        #expect(JobdLoggingSystem.stderrLevel("debug") == .debug)
        #expect(JobdLoggingSystem.stderrLevel("WARNING") == .warning)
    }

    @Test func jobdOnStderrLeavesOutDebugLinesByDefault() throws {
        let config = try TemporaryConfiguration(jobs: ["tick": "[Job]\nOnStartupSec=0\nExecStart=/bin/true\n"])
        var environment = ProcessInfo.processInfo.environment.filter { $0.key != "NOTIFY_SOCKET" }
        environment["JOBD_LOG_LEVEL"] = ""
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", config.path + "/run"], environment: environment)
        try daemon.waitForEvent("run.exit", fields: ["JOB": "tick"])
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
        #expect(!daemon.lines.contains { LogLine($0).level == "debug" }, "\(daemon.lines.filter { LogLine($0).level == "debug" }.prefix(3))")
        #expect(daemon.lines.contains { LogLine($0).level == "info" })
    }
}
