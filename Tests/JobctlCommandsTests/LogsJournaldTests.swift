import Foundation
import JobdTestKit
import SystemdKit
import Testing

/// `jobctl logs` (the built executable) against jobd (the built daemon) under a real, private
/// journald (`scripts/with-journald`), as issue 15 asks: `-n 5` shows the last five entries, `-f`
/// shows a new run's lines as they are logged, `--run last` picks the last run across a restart.
///
/// The scenario runs in a child, this test binary under `scripts/with-journald` (a multi-threaded
/// test process cannot enter the namespaces itself); the child's `#expect`s fail its exit status.
@Suite(.serialized) struct LogsJournaldTests {
    static let childVariable = "JOBCTL_LOGS_SCENARIO"
    static let scenario = ProcessInfo.processInfo.environment[childVariable]

    @Test(.enabled(if: scenario != nil, "runs only as the child process of the test below"))
    func logsChildScenario() throws {
        switch Self.scenario {
        case "daemon": try Scenario().run()
        case "planted-run-ids": try Self.plantRunIDs()
        case "forged": try Self.plantAndForge()
        default: Issue.record("unknown scenario \(Self.scenario ?? "")")
        }
    }

    /// Runs `scenario` in this test binary under a private journald; the caller removes the run's directory.
    func runScenario(_ scenario: String) throws -> PrivateJournal.Run {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let run = try PrivateJournal.run(
            executable, arguments: ["--testing-library", "swift-testing", "--filter", "logsChildScenario"],
            environment: [Self.childVariable: scenario, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
        #expect(run.exitStatus == 0, "the scenario failed:\n\(run.standardOutput)\n\(run.standardError)")
        let childOutput = run.standardOutput + run.standardError
        #expect(childOutput.contains("Test logsChildScenario() passed"), "the scenario did not run:\n\(childOutput)")
        return run
    }

    @Test func logsTailFollowAndLastRunAcrossARestart() throws {
        try PrivateJournal.requireAvailable()
        let run = try runScenario("daemon")
        defer { run.removeDirectory() }
        // The journal outlives the namespace: read it from the host as an administrator would.
        let logs = try CapturedProcess.run(
            DaemonProcess.productsDirectory + "/jobctl", ["logs", "chatty", "--directory", run.journalDirectory, "--run", "last"])
        #expect(logs.status == 0 && logs.standardOutput.contains("third-1 line 8"), "\(logs.standardOutput)\(logs.standardError)")
    }

    /// A run of jobd's (written by this child, as root, as jobd writes them) whose output holds
    /// terminal escapes, and entries forged beside it by nobody, with the same fields.
    static func plantAndForge() throws {
        let instance = try ID128.random()
        func send(_ event: String, _ message: String, _ fields: [String: String] = [:]) throws {
            try Self.send(event, message, instance: instance, fields)
        }
        let run = ["JOB": "planted", "JOBD_RUN": "1", "JOBD_RUN_ID": runID1]
        try send("daemon.start", "jobd started")
        try send("run.start", "run 1 of planted started", run)
        try send("run.output", "\u{1B}]0;X\u{07}\u{1B}[2Kreal line", run)
        try send("run.exit", "run 1 of planted exited", run)
        try send("daemon.exit", "jobd stopped")
        // As nobody, through util-linux's logger: any user may write these fields.
        let forged = [
            "MESSAGE=forged line\nSYSLOG_IDENTIFIER=jobd\nJOB=planted\nJOBD_RUN=1\nJOBD_RUN_ID=\(runID1)\nJOBD_EVENT=run.output\nJOBD_INSTANCE=\(instance)",
            "MESSAGE=owner 1 leaked\nSYSLOG_IDENTIFIER=jobd\nJOB=planted\nJOBD_OWNER=1\nJOBD_EVENT=owner.leak\nJOBD_INSTANCE=\(instance)",
            "MESSAGE=many\nSYSLOG_IDENTIFIER=jobd\nJOBD_OWNERS=1-1000000\nJOBD_OWNER_COUNT=1000000\nJOBD_GENERATION=1\nJOBD_EVENT=owners.init\nJOBD_INSTANCE=\(instance)",
        ]
        for fields in forged {
            let input = FileManager.default.temporaryDirectory.appendingPathComponent("forged-\(UUID().uuidString)")
            try (fields + "\n").write(to: input, atomically: true, encoding: .utf8)
            chmod(input.path, 0o644)
            defer { try? FileManager.default.removeItem(at: input) }
            let logger = try CapturedProcess.run("/usr/bin/setpriv", [
                "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/logger", "--journald=\(input.path)"])
            #expect(logger.status == 0, "\(logger.standardError)")
        }
    }

    /// Entries forged by nobody are not jobd's: `logs` leaves them out, `audit` calls the journal
    /// suspect (exit 3) and names them by their _UID; a job's escapes reach the terminal escaped,
    /// and `-o json` raw.
    @Test func forgedEntriesAreNotJobdsAndEscapesAreShownEscaped() throws {
        try PrivateJournal.requireAvailable()
        let run = try runScenario("forged")
        defer { run.removeDirectory() }
        let jobctl = DaemonProcess.productsDirectory + "/jobctl"
        let logs = try CapturedProcess.run(jobctl, ["logs", "planted", "--directory", run.journalDirectory])
        #expect(logs.status == 0 && !logs.standardOutput.contains("forged line"), "\(logs.standardOutput)")
        #expect(logs.standardOutput.contains("\\x1b]0;X\\x07\\x1b[2Kreal line") && !logs.standardOutput.contains("\u{1B}"),
                "\(logs.standardOutput)")
        let json = try CapturedProcess.run(jobctl, ["logs", "planted", "--directory", run.journalDirectory, "-o", "json"])
        #expect(json.standardOutput.contains("\\u001b]0;X\\u0007\\u001b[2Kreal line"), "raw in JSON: \(json.standardOutput)")
        // The bound: what four forged entries may make the audit allocate. A million owners
        // would take gigabytes; with 256 MiB of data segment the audit must still finish.
        let audit = try CapturedProcess.run("/usr/bin/prlimit", ["--data=\(256 << 20)", jobctl, "audit", "--directory", run.journalDirectory])
        #expect(audit.status == 3, "\(audit.standardOutput)\(audit.standardError)")
        #expect(audit.standardOutput.contains("3 entries claim to be jobd's but were written by another process"), "\(audit.standardOutput)")
        #expect(audit.standardOutput.contains("_UID=65534") && audit.standardOutput.contains("verdict: suspect"), "\(audit.standardOutput)")
    }

    /// Writes an entry as jobd writes its events: the message, `SYSLOG_IDENTIFIER=jobd`, the event,
    /// the instance and `fields`.
    static func send(_ event: String, _ message: String, instance: String, _ fields: [String: String]) throws {
        var all = [
            try JournalField("MESSAGE", message), try JournalField("SYSLOG_IDENTIFIER", "jobd"),
            try JournalField("JOBD_EVENT", event), try JournalField("JOBD_INSTANCE", instance),
        ]
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { all.append(try JournalField(name, value)) }
        try Journal().send(all)
    }

    static let runID1 = "0123456789abcdef0123456789abcdef"
    static let runID2 = "fedcba9876543210fedcba9876543210"

    /// Two jobd instances, as jobd will log them once every entry of a run carries JOBD_RUN_ID:
    /// each has a run 1 of `planted`, with its own id.
    static func plantRunIDs() throws {
        for (tag, runID) in [("a", runID1), ("b", runID2)] {
            let instance = try ID128.random()
            func send(_ event: String, _ message: String, _ fields: [String: String] = [:]) throws {
                try Self.send(event, message, instance: instance, fields)
            }
            let run = ["JOB": "planted", "JOBD_RUN": "1", "JOBD_RUN_ID": runID]
            try send("daemon.start", "jobd \(tag) started")
            try send("run.start", "run 1 of planted started", run)
            try send("run.output", "\(tag) says hello", run)
            try send("run.exit", "run 1 of planted exited", run)
        }
    }

    /// `--run` by JOBD_RUN_ID where entries carry it: run numbers repeat across instances, ids do not.
    @Test func runsAreFoundByTheirRunID() throws {
        try PrivateJournal.requireAvailable()
        let run = try runScenario("planted-run-ids")
        defer { run.removeDirectory() }
        func logs(_ arguments: [String]) throws -> CapturedProcess {
            try CapturedProcess.run(DaemonProcess.productsDirectory + "/jobctl",
                                    ["logs", "planted", "--directory", run.journalDirectory] + arguments)
        }
        let all = try logs([])
        #expect(all.standardOutput.contains("a says hello") && all.standardOutput.contains("b says hello"))
        for (selector, says, not) in [
            ("last", "b says", "a says"), (Self.runID1, "a says", "b says"), (Self.runID1.uppercased(), "a says", "b says"),
            (Self.runID2, "b says", "a says"), ("1", "b says", "a says"),
        ] {
            let one = try logs(["--run", selector])
            #expect(one.status == 0 && one.standardOutput.contains(says) && !one.standardOutput.contains(not),
                    "--run \(selector): \(one.standardOutput)\(one.standardError)")
            #expect(one.standardOutput.split(separator: "\n").count == 3, "--run \(selector): \(one.standardOutput)")
        }
        let unknown = try logs(["--run", String(repeating: "9", count: 32)])
        #expect(unknown.status == 1 && unknown.standardError.contains("no run"), "\(unknown.standardError)")
    }

    /// A journal without any entry of jobd (jobd logged to stderr): said plainly, exit 2.
    @Test func aJournalWithoutJobdSaysSo() throws {
        try PrivateJournal.requireAvailable()
        let run = try PrivateJournal.run("/usr/bin/systemd-cat", arguments: ["-t", "probe", "echo", "hi"])
        defer { run.removeDirectory() }
        let jobctl = DaemonProcess.productsDirectory + "/jobctl"
        let logs = try CapturedProcess.run(jobctl, ["logs", "backup", "--directory", run.journalDirectory])
        #expect(logs.status == 2, "\(logs.standardOutput)\(logs.standardError)")
        #expect(logs.standardError.contains("holds no entry of jobd") && logs.standardError.contains("stderr"), "\(logs.standardError)")
        let unreadable = try CapturedProcess.run(jobctl, ["logs", "backup", "--directory", run.directory + "/nowhere"])
        #expect(unreadable.status == 2 && unreadable.standardError.contains("cannot read the journal"), "\(unreadable.standardError)")
        let usage = try CapturedProcess.run(jobctl, ["logs", "backup", "--run", "yesterday"])
        #expect(usage.status == 64 && usage.standardError.contains("is not a run"), "\(usage.standardError)")
    }

    /// What the child does, inside the private journald.
    struct Scenario {
        let directory = NSTemporaryDirectory() + "jobctl-logs-" + UUID().uuidString
        var runtime: String { directory + "/run" }
        var tagFile: String { directory + "/tag.env" }
        let jobctl = DaemonProcess.productsDirectory + "/jobctl"

        func run() throws {
            try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try "for i in 1 2 3 4 5 6 7 8; do echo \"$TAG-$JOBD_RUN line $i\"; done\n"
                .write(toFile: directory + "/chatty.sh", atomically: true, encoding: .utf8)
            // Runs only when asked (jobctl run): the first trigger is an hour away.
            let config = try TemporaryConfiguration(jobs: [
                "chatty": "[Job]\nOnStartupSec=1h\nEnvironmentFile=\(tagFile)\nExecStart=/bin/sh \(directory)/chatty.sh\n",
            ])
            let journal = try JournalFollower()

            var daemon = try start(config, journal)
            try runJob(tag: "first", journal)
            let instance1 = try #require(journal.seen.last?["JOBD_INSTANCE"])

            // -n 5: the last five entries of the job's runs, oldest first.
            let tail = try logs(["-n", "5"])
            #expect(tail.status == 0, "\(tail.standardError)")
            let lines = tail.standardOutput.split(separator: "\n")
            #expect(lines.count == 5, "\(tail.standardOutput)")
            #expect(lines.first?.hasSuffix("chatty #1: first-1 line 5") == true, "\(tail.standardOutput)")
            #expect(lines.last?.contains("run 1 of chatty exited with status 0") == true, "\(tail.standardOutput)")

            // -f: the last entries, then a new run's lines as they are logged; SIGINT ends it with 0.
            let follower = try DaemonProcess(product: "jobctl", arguments: ["logs", "chatty", "-f"],
                                             environment: ProcessInfo.processInfo.environment)
            try follower.waitForLine("the tail") { $0.contains("run 1 of chatty exited") }
            try runJob(tag: "second", journal)
            var index = try follower.waitForLine("the new run's start") { $0.contains("run 2 of chatty started") }
            for line in 1...8 {
                index = try follower.waitForLine(from: index, "second-2 line \(line)") { $0.hasSuffix("second-2 line \(line)") }
            }
            try follower.waitForLine(from: index, "the new run's exit") { $0.contains("run 2 of chatty exited") }
            follower.signal(SIGINT)
            #expect(try follower.waitForExit() == 0)
            // -f began with the last 10 entries: run 1 whole (run.start, 8 lines, run.exit).
            let firstRun = follower.lines.prefix { !$0.contains("run 2 of chatty") }
            #expect(firstRun.count == 10 && firstRun.first?.contains("run 1 of chatty started") == true, "\(follower.lines)")

            // A restart: the new instance counts runs from 1 again. --run last is still run 2 of
            // the first instance until the new one runs the job.
            daemon.signal(SIGTERM)
            #expect(try daemon.waitForExit() == 0)
            daemon = try start(config, journal)
            let beforeRun = try logs(["--run", "last"])
            #expect(beforeRun.standardOutput.contains("second-2 line 8"), "\(beforeRun.standardOutput)\(beforeRun.standardError)")
            #expect(!beforeRun.standardOutput.contains("first-1"), "\(beforeRun.standardOutput)")

            try runJob(tag: "third", journal)
            let last = try logs(["--run", "last"])
            let lastLines = last.standardOutput.split(separator: "\n")
            #expect(lastLines.count == 10, "run.start, 8 lines, run.exit: \(last.standardOutput)")
            #expect(lastLines.allSatisfy { $0.contains("chatty #1:") }, "\(last.standardOutput)")
            #expect(last.standardOutput.contains("third-1 line 8") && !last.standardOutput.contains("first-1"), "\(last.standardOutput)")
            // RUN alone is within jobd's last instance; INSTANCE:RUN reaches back.
            #expect(try logs(["--run", "1"]).standardOutput == last.standardOutput)
            let first = try logs(["--run", "\(instance1):1"])
            #expect(first.standardOutput.contains("first-1 line 8") && !first.standardOutput.contains("third"), "\(first.standardOutput)")
            let missing = try logs(["--run", "7"])
            #expect(missing.status == 1 && missing.standardError.contains("no run 7 of chatty"), "\(missing.standardError)")
            // JSON: one object per entry.
            let json = try logs(["-n", "3", "-o", "json"])
            let objects = json.standardOutput.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
            }
            #expect(objects.count == 3 && objects.last?["JOBD_EVENT"] == "run.exit", "\(json.standardOutput)")
            daemon.signal(SIGTERM)
            #expect(try daemon.waitForExit() == 0)
        }

        func start(_ config: TemporaryConfiguration, _ journal: JournalFollower) throws -> DaemonProcess {
            try journal.startDaemon(config, runtime: runtime, childVariable: LogsJournaldTests.childVariable)
        }

        /// Starts a run whose lines carry `tag`, and waits for its run.exit in the journal.
        func runJob(tag: String, _ journal: JournalFollower) throws {
            try "TAG=\(tag)\n".write(toFile: tagFile, atomically: true, encoding: .utf8)
            let started = try CapturedProcess.run(jobctl, ["run", "chatty", "--runtime-dir", runtime])
            #expect(started.status == 0, "\(started.standardOutput)\(started.standardError)")
            try journal.waitFor(event: "run.exit", fields: ["JOB": "chatty"])
        }

        func logs(_ arguments: [String]) throws -> CapturedProcess {
            try CapturedProcess.run(jobctl, ["logs", "chatty"] + arguments)
        }
    }
}
