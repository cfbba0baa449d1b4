import Foundation
import JobdTestKit
import SystemdKit
import Testing

/// `SyslogIdentifier=` under a real, private journald (issue 27): a job's output lines carry the
/// value as `SYSLOG_IDENTIFIER=` (so `journalctl -t VALUE` finds them) while `JOB=` and jobd's
/// own entries stay as they were, so `jobctl logs` still shows them; a job without the key keeps
/// its name as the identifier.
///
/// The scenario runs in a child, this test binary under `scripts/with-journald`, as
/// LogsJournaldTests does; the child's `#expect`s fail its exit status.
@Suite(.serialized) struct SyslogIdentifierJournaldTests {
    static let childVariable = "JOBD_SYSLOG_IDENTIFIER_SCENARIO"

    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil, "runs only as the child process of the test below"))
    func syslogIdentifierChildScenario() throws {
        let directory = NSTemporaryDirectory() + "jobd-syslog-identifier-" + UUID().uuidString
        let runtime = directory + "/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Run only when asked: the first trigger is an hour away.
        let config = try TemporaryConfiguration(jobs: [
            "tagged": "[Job]\nOnStartupSec=1h\nSyslogIdentifier=nightly-backup\nExecStart=/bin/sh -c 'echo tagged line; echo tagged error >&2'\n",
            "plain": "[Job]\nOnStartupSec=1h\nExecStart=/bin/echo plain line\n",
        ])
        let journal = try JournalFollower()
        var environment = ProcessInfo.processInfo.environment
        environment["JOBD_LOG_TARGET"] = "journal"
        environment["RUNTIME_DIRECTORY"] = runtime
        environment.removeValue(forKey: Self.childVariable)
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path], environment: environment)
        try journal.waitFor(event: "daemon.ready")
        for job in ["tagged", "plain"] {
            let started = try CapturedProcess.run(DaemonProcess.productsDirectory + "/jobctl", ["run", job, "--runtime-dir", runtime])
            #expect(started.status == 0, "\(started.standardOutput)\(started.standardError)")
            try journal.waitFor(event: "run.exit", fields: ["JOB": job])
        }
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    @Test func outputCarriesTheIdentifierAndJobctlLogsStillFindsIt() throws {
        try PrivateJournal.requireAvailable()
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let run = try PrivateJournal.run(
            executable, arguments: ["--testing-library", "swift-testing", "--filter", "syslogIdentifierChildScenario"],
            environment: [Self.childVariable: "1", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
        defer { run.removeDirectory() }
        #expect(run.exitStatus == 0, "the scenario failed:\n\(run.standardOutput)\n\(run.standardError)")
        #expect((run.standardOutput + run.standardError).contains("Test syslogIdentifierChildScenario() passed"), "\(run.standardOutput)")

        // The entries as journald stored them.
        let tagged = run.entries(where: "JOB", is: "tagged").filter { $0["JOBD_EVENT"] == "run.output" }
        #expect(tagged.compactMap(\.message).sorted() == ["tagged error", "tagged line"], "\(tagged.map(\.fields))")
        #expect(tagged.allSatisfy { $0["SYSLOG_IDENTIFIER"] == "nightly-backup" && $0["SYSLOG_PID"] != nil }, "\(tagged.map(\.fields))")
        #expect(tagged.allSatisfy { $0["JOBD_RUN_ID"] != nil && $0["_UID"] == "0" }, "jobd's own fields stay: \(tagged.map(\.fields))")
        // jobd's own entries about the run keep SYSLOG_IDENTIFIER=jobd, and nothing else is renamed.
        let events = run.entries(where: "JOB", is: "tagged").filter { $0["JOBD_EVENT"] != "run.output" }
        #expect(!events.isEmpty && events.allSatisfy { $0["SYSLOG_IDENTIFIER"] == "jobd" }, "\(events.map(\.fields))")
        #expect(run.entries.allSatisfy { $0["JOBD_DROPPED_FIELDS"] == nil })
        let plain = run.entries(where: "JOB", is: "plain").filter { $0["JOBD_EVENT"] == "run.output" }
        #expect(plain.map { $0["SYSLOG_IDENTIFIER"] } == ["plain"], "the default is unchanged: \(plain.map(\.fields))")

        // What an administrator types.
        let journalctl = try CapturedProcess.run(
            "/usr/bin/journalctl", ["--directory", run.journalDirectory, "-t", "nightly-backup", "-o", "cat", "--no-pager"])
        #expect(journalctl.standardOutput.split(separator: "\n").sorted() == ["tagged error", "tagged line"], "\(journalctl.standardOutput)")
        let logs = try CapturedProcess.run(DaemonProcess.productsDirectory + "/jobctl", ["logs", "tagged", "--directory", run.journalDirectory])
        #expect(logs.status == 0, "\(logs.standardError)")
        #expect(logs.standardOutput.contains("tagged line") && logs.standardOutput.contains("tagged error"), "\(logs.standardOutput)")
        #expect(logs.standardOutput.contains("run 1 of tagged exited"), "\(logs.standardOutput)")
        #expect(!logs.standardOutput.contains("plain line"), "\(logs.standardOutput)")
    }
}
