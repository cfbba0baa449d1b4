import Foundation
import JobdTestKit
import SystemdKit
import Testing

/// `jobctl why` (the built executable) against jobd (the built daemon) under a real, private
/// journald (`scripts/with-journald`), issue 40 item 1: a run and an overlap skip, an unmet
/// condition named, the elapses of a calendar job missed while jobd was stopped, and the exit
/// statuses a monitoring check reads.
///
/// The scenario runs in a child, this test binary under `scripts/with-journald` (a multi-threaded
/// test process cannot enter the namespaces itself); the child's `#expect`s fail its exit status.
@Suite(.serialized) struct WhyJournaldTests {
    static let childVariable = "JOBCTL_WHY_SCENARIO"
    static let scenario = ProcessInfo.processInfo.environment[childVariable]

    @Test(.enabled(if: scenario != nil, "runs only as the child process of the test below"))
    func whyChildScenario() throws {
        try Scenario().run()
    }

    @Test func whyNamesEachElapsesFateFromARealJournal() throws {
        try PrivateJournal.requireAvailable()
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let run = try PrivateJournal.run(
            executable, arguments: ["--testing-library", "swift-testing", "--filter", "whyChildScenario"],
            environment: [Self.childVariable: "daemon", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
        defer { run.removeDirectory() }
        #expect(run.exitStatus == 0, "the scenario failed:\n\(run.standardOutput)\n\(run.standardError)")
        let childOutput = run.standardOutput + run.standardError
        #expect(childOutput.contains("Test whyChildScenario() passed"), "the scenario did not run:\n\(childOutput)")
    }

    struct Scenario {
        let directory = NSTemporaryDirectory() + "jobctl-why-" + UUID().uuidString
        var runtime: String { directory + "/run" }
        let jobctl = DaemonProcess.productsDirectory + "/jobctl"

        func run() throws {
            try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let config = try TemporaryConfiguration(jobs: [
                // Still in flight when it falls due again: that elapse is skipped (Overlap=skip).
                "busy": "[Job]\nOnUnitActiveSec=1s\nExecStart=/bin/sleep 2\n",
                "gated": "[Job]\nOnUnitActiveSec=1s\nConditionPathExists=/nonexistent/jobd-why\nExecStart=/bin/true\n",
                "tick": "[Job]\nOnCalendar=*-*-* *:*:*\nExecStart=/bin/true\n",
            ])
            let journal = try JournalFollower()
            var daemon = try start(config, journal)
            try journal.waitFor(event: "run.skip", fields: ["JOB": "busy", "JOBD_REASON": "overlap"], timeout: .seconds(60))
            try journal.waitFor(event: "run.exit", fields: ["JOB": "busy"], timeout: .seconds(60))
            try journal.waitFor(event: "run.skip", fields: ["JOB": "gated", "JOBD_REASON": "condition"], timeout: .seconds(60))

            let busy = try why(["busy"])
            #expect(busy.standardOutput.contains("ran        run "), "\(busy.standardOutput)")
            #expect(busy.standardOutput.contains("skipped    a run was still in flight (Overlap=skip)"), "\(busy.standardOutput)")
            #expect(busy.standardOutput.contains("\nNext: "), "\(busy.standardOutput)")
            // The exit status says whether the last elapse that fell due ran, as its line does.
            let lastLine = busy.standardOutput.split(separator: "\n").dropLast().last ?? ""
            #expect(busy.status == (lastLine.contains(" ran ") || lastLine.contains(" running ") ? 0 : 1), "\(busy.standardOutput)")

            let gated = try why(["gated"])
            #expect(gated.status == 1, "\(gated.standardOutput)\(gated.standardError)")
            #expect(gated.standardOutput.contains("ConditionPathExists=/nonexistent/jobd-why did not hold"), "\(gated.standardOutput)")
            let json = try why(["gated", "--json"])
            let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
            #expect(object?["lastDueRan"] as? Bool == false, "\(json.standardOutput)")
            #expect(try why(["no-such-job"]).status == 3)

            // jobd stopped for a few seconds: the tick elapses meanwhile are missed, on one line.
            try journal.waitFor(event: "run.exit", fields: ["JOB": "tick"], timeout: .seconds(60))
            daemon.signal(SIGTERM)
            #expect(try daemon.waitForExit() == 0)
            // The scenario: jobd stays down over at least two of tick's elapses.
            Thread.sleep(forTimeInterval: 3)
            daemon = try start(config, journal)
            let tick = try why(["tick", "-n", "30"])
            #expect(tick.standardOutput.contains("missed     "), "\(tick.standardOutput)")
            #expect(tick.standardOutput.contains("elapses: jobd was not running (from its last entry at "), "\(tick.standardOutput)")
            daemon.signal(SIGTERM)
            #expect(try daemon.waitForExit() == 0)
        }

        func start(_ config: TemporaryConfiguration, _ journal: JournalFollower) throws -> DaemonProcess {
            try journal.startDaemon(config, runtime: runtime, childVariable: WhyJournaldTests.childVariable)
        }

        func why(_ arguments: [String]) throws -> CapturedProcess {
            try CapturedProcess.run(jobctl, ["why"] + arguments + ["--runtime-dir", runtime])
        }
    }
}
