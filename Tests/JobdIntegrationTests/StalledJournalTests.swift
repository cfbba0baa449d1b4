import Foundation
import JobdTestKit
import SystemdKit
import Testing

/// jobd with its journald stopped (SIGSTOP), as a slow disk, a rotation or a restart stalls it:
/// jobs run on, `jobctl` answers, and once journald takes entries again, `log.dropped` says what
/// was lost (issue 26). The scenario runs in a child of this test binary under a private journald
/// (see ``JournalContractTests``), where it can stop that journald.
@Suite(.serialized) struct StalledJournalTests {
    static let childVariable = "JOBD_TEST_STALLED_JOURNAL"
    static let isChild = ProcessInfo.processInfo.environment[childVariable] != nil
    /// The runs of `job` so far, as `MetricsFile=` counts them (the journal cannot be read meanwhile).
    static func runs(of job: String, in metrics: String) -> Int {
        let text = (try? String(contentsOfFile: metrics, encoding: .utf8)) ?? ""
        return text.split(separator: "\n")
            .filter { $0.hasPrefix("jobd_job_runs_total{") && $0.contains("job=\"\(job)\"") }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
            .reduce(0) { $0 + Int($1) }
    }

    /// journald's pid in the private namespace.
    static func journaldPID() -> pid_t? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(pid_t.init).first { pid in
            (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.hasPrefix("systemd-journal") == true
        }
    }

    @Test(.enabled(if: isChild, "runs only as the child process of jobdRunsOnWhileJournaldIsStopped"))
    func childStopsJournald() throws {
        let config = try TemporaryConfiguration(jobs: [
            "tick": "[Job]\nOnStartupSec=0\nOnUnitActiveSec=300ms\nExecStart=/bin/true\n",
            // Run by hand while journald is stopped: far more lines than the queue takes.
            "chatty": "[Job]\nExecStart=/usr/bin/seq 1 20000\n",
        ])
        let metrics = config.path + "/metrics.prom"
        try "[Daemon]\nMetricsFile=\(metrics)\n".write(toFile: config.path + "/jobd.conf", atomically: true, encoding: .utf8)
        let runtime = config.path + "/run"
        let journal = try JournalFollower()
        var environment = ProcessInfo.processInfo.environment
        environment["JOBD_LOG_TARGET"] = "journal"
        environment.removeValue(forKey: Self.childVariable)
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path, "--runtime-dir", runtime], environment: environment)
        func jobctl(_ arguments: [String]) throws -> (Int32, String) {
            try Jobctl(runtime: runtime, environment: environment)(arguments, timeout: .seconds(10))
        }
        let ready = try journal.waitFor(event: "daemon.ready")
        try journal.waitFor(event: "run.exit", fields: ["JOB": "tick"])
        let journald = try #require(Self.journaldPID(), "no systemd-journald in the namespace")

        kill(journald, SIGSTOP)
        let started = ContinuousClock.now
        let runsBefore = Self.runs(of: "tick", in: metrics)
        let (run, runOutput) = try jobctl(["run", "chatty"])
        #expect(run == 0, "\(runOutput)")
        // journald stays stopped until tick ran 30 more times (with blocking journal writes, runs
        // stopped after about 4 s, some 13 runs), jobctl answering throughout. The metrics are
        // written at most a second after a run ends.
        var answered = 0, ran = 0
        let patience = ContinuousClock.now + .seconds(120)
        while ran < 30 || answered < 5 {
            let (status, output) = try jobctl(["status"])
            #expect(status == 0, "jobctl status while journald is stopped: \(output)")
            answered += 1
            ran = Self.runs(of: "tick", in: metrics) - runsBefore
            guard ContinuousClock.now < patience else { break }
        }
        let elapsed = ContinuousClock.now - started
        kill(journald, SIGCONT)
        #expect(ran >= 30, "\(ran) runs of tick in \(elapsed) with journald stopped")

        let dropped = try journal.waitFor(event: "log.dropped", timeout: .seconds(60))
        #expect(dropped["JOBD_INSTANCE"] == ready["JOBD_INSTANCE"])
        print("STALLED-JOURNAL ran=\(ran) in \(elapsed) answered=\(answered) dropped=\(dropped["JOBD_DROPPED_EVENTS"] ?? "-")")
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    @Test func jobdRunsOnWhileJournaldIsStopped() throws {
        try PrivateJournal.requireAvailable()
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let run = try PrivateJournal.run(
            executable, arguments: ["--testing-library", "swift-testing", "--filter", "childStopsJournald"],
            environment: [Self.childVariable: "1", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
        defer { run.removeDirectory() }
        #expect(run.exitStatus == 0, "the scenario failed:\n\(run.standardOutput)\n\(run.standardError)")

        let jobd = run.entries(where: "SYSLOG_IDENTIFIER", is: "jobd")
        let reports = jobd.filter { $0["JOBD_EVENT"] == "log.dropped" }
        let report = try #require(reports.first, "no log.dropped in the journal")
        let count = try #require(report["JOBD_DROPPED_COUNT"].flatMap(Int.init))
        // Only the job's output was dropped: jobd's own events keep a quarter of the queue.
        #expect(report["JOBD_DROPPED_EVENTS"] == "run.output=\(count)", "\(report["JOBD_DROPPED_EVENTS"] ?? "-")")
        let output = run.entries(where: "SYSLOG_IDENTIFIER", is: "chatty").count
        #expect(output + reports.compactMap { $0["JOBD_DROPPED_COUNT"].flatMap(Int.init) }.reduce(0, +) == 20_000,
                "every line of the chatty run is in the journal or counted as dropped (\(output) in the journal)")
        #expect(report["PRIORITY"] == "4" && report["MESSAGE_ID"] == "6a0bd7e51c2f4d1e9b3a7c5d8e2f101f")
        // Nothing of jobd's own was lost: the clean stop's entries are all there.
        #expect(jobd.contains { $0["JOBD_EVENT"] == "daemon.exit" })
    }
}
