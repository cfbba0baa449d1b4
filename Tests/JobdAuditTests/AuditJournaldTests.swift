import Foundation
import JobdAudit
import JobdTestKit
import SystemdKit
import Testing

/// `jobctl audit` (the built executable) on journals written by a real, private journald
/// (`scripts/with-journald`): by the built jobd, or by hand, with entries shaped as jobd's.
///
/// This test process cannot enter a mount namespace itself (it is multi-threaded), so each scenario
/// runs in a child: this same test binary under `scripts/with-journald`, with `--filter` selecting
/// ``childRunsScenario()``, which only runs when ``childVariable`` names a scenario.
@Suite(.serialized) struct AuditJournaldTests {
    static let childVariable = "JOBD_AUDIT_SCENARIO"
    static let scenario = ProcessInfo.processInfo.environment[childVariable]
    static let job = "[Job]\nOnStartupSec=0\nOnUnitActiveSec=200ms\nExecStart=/bin/echo tick\n"

    // MARK: The scenarios, run inside the private journald

    @Test(.enabled(if: scenario != nil, "runs only as the child process of the tests below"))
    func childRunsScenario() throws {
        switch Self.scenario {
        case "reload-rotate-stop":
            // jobd with two jobs; the journal is rotated, then a reload removes one job, then a stop.
            let (config, journal, daemon) = try Self.startDaemon(jobs: ["keep", "gone"])
            try journal.waitFor(event: "run.exit", fields: ["JOB": "gone"])
            let rotate = try CapturedProcess.run("/usr/bin/journalctl", ["--rotate"])
            #expect(rotate.status == 0, "journalctl --rotate: \(rotate.standardError)")
            try config.remove(job: "gone")
            daemon.signal(SIGHUP)
            try journal.waitFor(event: "reload.done")
            daemon.signal(SIGTERM)
            #expect(try daemon.waitForExit() == 0)
        case "killed":
            let (_, journal, daemon) = try Self.startDaemon(jobs: ["a", "b"])
            try journal.waitFor(event: "run.exit", fields: ["JOB": "a"])
            daemon.signal(SIGKILL)
            #expect(try daemon.waitForExit() == 128 + SIGKILL)
        case "planted-leak":
            try Self.plantLeak()
        case "forged-note":
            try Self.plantLeak(reported: false)
            try Self.forgeSuppressionNote()
        default:
            Issue.record("unknown scenario \(Self.scenario ?? "")")
        }
    }

    static func startDaemon(jobs: [String]) throws -> (TemporaryConfiguration, JournalFollower, DaemonProcess) {
        let config = try TemporaryConfiguration(jobs: Dictionary(uniqueKeysWithValues: jobs.map { ($0, job) }))
        let journal = try JournalFollower()
        var environment = ProcessInfo.processInfo.environment
        environment["JOBD_LOG_TARGET"] = "journal"
        environment.removeValue(forKey: childVariable)
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path], environment: environment)
        try journal.waitFor(event: "daemon.ready")
        return (config, journal, daemon)
    }

    /// A jobd-shaped instance the real daemon would never log: a reload retires owner 2 of `leaky`
    /// without releasing it, jobd reports it with `owner.leak` (unless not `reported`), and exits
    /// with it still alive.
    static func plantLeak(reported: Bool = true) throws {
        let instance = try ID128.random()
        let journal = Journal()
        func send(_ event: String, _ fields: [String: String] = [:]) throws {
            var all = [
                try JournalField("MESSAGE", "planted \(event)"), try JournalField("SYSLOG_IDENTIFIER", "jobd"),
                try JournalField("JOBD_EVENT", event), try JournalField("JOBD_INSTANCE", instance),
            ]
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) { all.append(try JournalField(name, value)) }
            try journal.send(all)
        }
        func owner(_ job: String, _ id: Int, _ generation: Int) -> [String: String] {
            ["JOB": job, "JOBD_OWNER": "\(id)", "JOBD_GENERATION": "\(generation)", "JOBD_TIMER": "\(id + 10)"]
        }
        try send("daemon.start")
        try send("owner.init", owner("keep", 1, 1))
        try send("owner.init", owner("leaky", 2, 1))
        try send("generation.load", ["JOBD_GENERATION": "1"])
        try send("daemon.ready", ["JOBD_GENERATION": "1"])
        try send("reload.start")
        try send("owner.retain", ["JOBD_OWNERS": "1", "JOBD_OWNER_COUNT": "1", "JOBD_GENERATION": "2"])
        try send("generation.load", ["JOBD_GENERATION": "2"])
        try send("reload.done", ["JOBD_GENERATION": "2"])
        if reported { try send("owner.leak", owner("leaky", 2, 1).merging(["JOBD_REASON": "planted by a test"]) { $1 }) }
        try send("daemon.stop")
        try send("timer.invalidate", ["JOB": "keep", "JOBD_OWNER": "1", "JOBD_TIMER": "11", "JOBD_REASON": "shutdown"])
        try send("generation.retire", ["JOBD_GENERATION": "2"])
        try send("owner.deinit", owner("keep", 1, 1))
        try send("daemon.exit")
    }

    /// journald's "Suppressed" note, as an ordinary user may send it: one datagram from nobody.
    static func forgeSuppressionNote() throws {
        let fields = NSTemporaryDirectory() + "jobd-forged-note-" + UUID().uuidString
        try "MESSAGE_ID=\(LifecycleAuditor.journalDroppedMessageID)\nMESSAGE=Suppressed 99 messages from jobd.service\n"
            .write(toFile: fields, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: fields) }
        chmod(fields, 0o644)
        let sent = try CapturedProcess.run(
            "/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", "/usr/bin/logger", "--journald=\(fields)"])
        #expect(sent.status == 0, "logger --journald as nobody: \(sent.standardError)")
    }

    // MARK: The tests

    /// Runs `scenario` under a private journald; returns the run (the caller removes its directory).
    func runScenario(_ scenario: String) throws -> PrivateJournal.Run {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let run = try PrivateJournal.run(
            executable, arguments: ["--testing-library", "swift-testing", "--filter", "childRunsScenario"],
            environment: [Self.childVariable: scenario, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
        #expect(run.exitStatus == 0, "the scenario \(scenario) failed:\n\(run.standardOutput)\n\(run.standardError)")
        return run
    }

    /// The built `jobctl audit` with `arguments`.
    func audit(_ arguments: [String]) throws -> CapturedProcess {
        try CapturedProcess.run(DaemonProcess.productsDirectory + "/jobctl", ["audit"] + arguments)
    }

    func json(_ process: CapturedProcess) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(process.standardOutput.utf8)) as? [String: Any])
    }

    func instanceID(_ run: PrivateJournal.Run) throws -> String {
        try #require(run.entries(where: "SYSLOG_IDENTIFIER", is: "jobd").first?["JOBD_INSTANCE"])
    }

    @Test func realDaemonWithAReloadAndAStopIsClean() throws {
        try PrivateJournal.requireAvailable()
        let run = try runScenario("reload-rotate-stop")
        defer { run.removeDirectory() }
        let instance = try instanceID(run)

        let text = try audit(["--directory", run.journalDirectory])
        #expect(text.status == 0, "\(text.standardOutput)\(text.standardError)")
        #expect(text.standardOutput.contains("jobd instance \(instance): started"))
        #expect(text.standardOutput.contains("2 owners: 2 released, 0 alive, 0 leaked, 1 carried over"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("verdict: clean"))

        // The private journald runs in this boot: --boot (the current one) and --boot ID find it; another ID nothing.
        let bootID = try #require(run.entries(where: "SYSLOG_IDENTIFIER", is: "jobd").first?.bootID)
        for arguments in [["--boot"], ["--boot", bootID]] {
            let booted = try audit(["--directory", run.journalDirectory] + arguments)
            #expect(booted.status == 0 && booted.standardOutput.contains("jobd instance \(instance)"), "\(arguments)")
        }
        let otherBoot = try audit(["--directory", run.journalDirectory, "--boot", String(repeating: "0", count: 32)])
        #expect(otherBoot.standardOutput.contains("no jobd entries"))

        let report = try json(try audit(["--directory", run.journalDirectory, "--json"]))
        #expect(report["verdict"] as? String == "clean")
        #expect(report["exitCode"] as? Int == 0)
        let only = try #require((report["instances"] as? [[String: Any]])?.first)
        #expect(only["instance"] as? String == instance)
        #expect(only["ending"] as? String == "stopped")
        #expect((only["generations"] as? [Any])?.count == 2)
        let timers = try #require(only["timers"] as? [String: Any])
        #expect(timers["invalidatedByReason"] as? [String: Int] == ["owner-deinit": 1, "shutdown": 1])
    }

    /// Times and boots as journalctl takes them (issue 15): `--since -1h` (the form --help shows),
    /// `today`, `yesterday`, `-b 0` and `-b -1` (a journal of one boot has no boot before the last).
    @Test func sinceAndBootAsJournalctlTakesThem() throws {
        try PrivateJournal.requireAvailable()
        let run = try runScenario("reload-rotate-stop")
        defer { run.removeDirectory() }
        let instance = try instanceID(run)
        for arguments in [["--since", "-1h"], ["--since", "today"], ["--since=-1h", "--until", "+1h"], ["-b", "0"], ["-b"], ["--boot", "-0"]] {
            let found = try audit(["--directory", run.journalDirectory] + arguments)
            #expect(found.status == 0 && found.standardOutput.contains("jobd instance \(instance)"),
                    "\(arguments): \(found.standardOutput)\(found.standardError)")
        }
        let before = try audit(["--directory", run.journalDirectory, "--until", "yesterday"])
        #expect(before.standardOutput.contains("no jobd entries"), "\(before.standardOutput)")
        let noEarlierBoot = try audit(["--directory", run.journalDirectory, "-b", "-1"])
        #expect(noEarlierBoot.status == 2 && noEarlierBoot.standardError.contains("no boot -1"), "\(noEarlierBoot.standardError)")
        let notATime = try audit(["--directory", run.journalDirectory, "--since", "soon"])
        #expect(notATime.status == 64 && notATime.standardError.contains("'soon' is not a time"), "\(notATime.standardError)")
    }

    /// The same journal with its head rotated away: only the file written after the rotation.
    @Test func rotatedHeadIsIncompleteNotALeak() throws {
        try PrivateJournal.requireAvailable()
        let run = try runScenario("reload-rotate-stop")
        defer { run.removeDirectory() }
        let files = try #require(FileManager.default.enumerator(atPath: run.journalDirectory)?.allObjects as? [String])
        let active = try #require(files.first { ($0 as NSString).lastPathComponent == "system.journal" })
        #expect(files.filter { $0.hasSuffix(".journal") }.count >= 2, "the journal was rotated: \(files)")

        let text = try audit(["--file", run.journalDirectory + "/" + active])
        #expect(text.status == 0, "\(text.standardOutput)\(text.standardError)")
        #expect(text.standardOutput.contains("INCOMPLETE: the journal starts mid-instance"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("verdict: incomplete"))
        #expect(!text.standardOutput.contains("LEAK"))
    }

    /// `--until` just after the reload cuts the instance before its stop: incomplete, its live
    /// owners running.
    @Test func untilCutsTheInstanceBeforeItsExit() throws {
        try PrivateJournal.requireAvailable()
        let run = try runScenario("reload-rotate-stop")
        defer { run.removeDirectory() }
        let reloadDone = try #require(run.entries(where: "JOBD_EVENT", is: "reload.done").first)
        let until = "@\(reloadDone.realtimeUSec / 1_000_000).\(String(reloadDone.realtimeUSec % 1_000_000 + 1_000_000).dropFirst())"

        let report = try json(try audit(["--directory", run.journalDirectory, "--until", until, "--json"]))
        let only = try #require((report["instances"] as? [[String: Any]])?.first)
        #expect(only["ending"] as? String == "cut-off")
        #expect((only["owners"] as? [String: Int])?["running"] == 1)
        #expect(report["verdict"] as? String == "incomplete")
    }

    /// jobd killed with SIGKILL: no daemon.exit. Incomplete, exit 0: nothing proves a leak, and the
    /// owners of the last generation were alive in a running daemon when it died.
    @Test func killedDaemonIsIncompleteNotALeak() throws {
        try PrivateJournal.requireAvailable()
        let run = try runScenario("killed")
        defer { run.removeDirectory() }
        let instance = try instanceID(run)

        let text = try audit(["--directory", run.journalDirectory])
        #expect(text.status == 0, "\(text.standardOutput)\(text.standardError)")
        #expect(text.standardOutput.contains("jobd instance \(instance)"))
        #expect(text.standardOutput.contains("INCOMPLETE: no daemon.exit"))
        #expect(text.standardOutput.contains("verdict: incomplete"))

        let report = try json(try audit(["--directory", run.journalDirectory, "--json"]))
        let only = try #require((report["instances"] as? [[String: Any]])?.first)
        #expect(only["ending"] as? String == "cut-off")
        #expect((only["owners"] as? [String: Int])?["running"] == 2)
        #expect((only["owners"] as? [String: Int])?["leaked"] == 0)
    }

    /// A leak the daemon cannot produce, planted as jobd-shaped entries: exit 1, naming the job.
    @Test func plantedLeakFailsNamingTheJob() throws {
        try PrivateJournal.requireAvailable()
        let run = try runScenario("planted-leak")
        defer { run.removeDirectory() }

        let text = try audit(["--directory", run.journalDirectory])
        #expect(text.status == 1, "\(text.standardOutput)\(text.standardError)")
        #expect(text.standardOutput.contains("LEAK: job leaky owner 2 generation 1: reported leaked by jobd"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("held by: planted by a test"))
        #expect(text.standardOutput.contains("verdict: failed"))

        let report = try json(try audit(["--directory", run.journalDirectory, "--json"]))
        #expect(report["exitCode"] as? Int == 1)
        let problem = try #require(((report["instances"] as? [[String: Any]])?.first?["problems"] as? [[String: Any]])?.first)
        #expect(problem["kind"] as? String == "leak" && problem["job"] as? String == "leaky")
    }

    /// Issue 37: one datagram from an ordinary user with journald's "Suppressed" MESSAGE_ID turned
    /// a leak (exit 1) into incomplete (exit 0). Only journald's own note counts: the leak stands,
    /// and the forged note is named as foreign.
    @Test func aForgedSuppressionNoteFromAUserHidesNoLeak() throws {
        try PrivateJournal.requireAvailable()
        _ = try Requirement.tools("/usr/bin/setpriv", "/usr/bin/logger", for: "a note sent as nobody")
        let run = try runScenario("forged-note")
        defer { run.removeDirectory() }
        let note = try #require(run.entries(where: "MESSAGE_ID", is: LifecycleAuditor.journalDroppedMessageID).first)
        #expect(note["_UID"] == "65534" && note["_TRANSPORT"] == "journal", "\(note)")

        let text = try audit(["--directory", run.journalDirectory])
        #expect(text.status == 1, "\(text.standardOutput)\(text.standardError)")
        #expect(text.standardOutput.contains("LEAK: job leaky owner 2 generation 1"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("_UID=65534") && text.standardOutput.contains("not by journald itself"), "\(text.standardOutput)")
        #expect(!text.standardOutput.contains("UNACCOUNTED"), "\(text.standardOutput)")
    }

    /// A journal that cannot be read: exit 2.
    @Test func unreadableJournalExitsTwo() throws {
        let missing = try audit(["--directory", "/nonexistent/jobd-audit"])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("cannot read the journal"))
        let empty = NSTemporaryDirectory() + "jobd-audit-empty-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(try audit(["--directory", empty]).status == 2)
    }
}
