import Foundation
import JobdLogging
import JobdTestKit
import SystemdKit
import Testing

/// jobd against a real journald in a private mount namespace, queried as an operator would, with
/// `journalctl -o json` and the fields the README documents.
///
/// This test process cannot enter a mount namespace itself (it is multi-threaded), so the scenario
/// runs in a child: this same test binary under `scripts/with-journald`, with `--filter` selecting
/// ``childDrivesJobd()``, which only runs when ``childVariable`` is set.
@Suite(.serialized) struct JournalContractTests {
    static let childVariable = "JOBD_TEST_JOURNAL_SCENARIO"
    static let isChild = ProcessInfo.processInfo.environment[childVariable] != nil
    static let job = "[Job]\nOnStartupSec=0\nOnUnitActiveSec=200ms\nExecStart=/bin/echo tick\n"

    @Test(.enabled(if: isChild, "runs only as the child process of everyOwnerIsReleasedInTheJournal"))
    func childDrivesJobd() throws {
        let config = try TemporaryConfiguration(jobs: ["keep": Self.job, "gone": Self.job])
        let journal = try JournalFollower()
        var environment = ProcessInfo.processInfo.environment
        environment["JOBD_LOG_TARGET"] = "journal"
        environment.removeValue(forKey: Self.childVariable)
        let daemon = try DaemonProcess(arguments: ["--config-dir", config.path], environment: environment)

        try journal.waitFor(event: "daemon.ready")
        try journal.waitFor(event: "run.exit", fields: ["JOB": "gone"])
        try config.remove(job: "gone")
        daemon.signal(SIGHUP)
        try journal.waitFor(event: "reload.done")
        try config.write(job: "broken", "[Job]\nExecStart=/bin/true\nOnCalender=daily\n")
        daemon.signal(SIGHUP)
        try journal.waitFor(event: "reload.failed")
        try journal.waitFor(event: "run.exit", fields: ["JOB": "keep"])
        daemon.signal(SIGTERM)
        #expect(try daemon.waitForExit() == 0)
    }

    @Test func everyOwnerIsReleasedInTheJournal() throws {
        try PrivateJournal.requireAvailable()
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let run = try PrivateJournal.run(
            executable, arguments: ["--testing-library", "swift-testing", "--filter", "childDrivesJobd"],
            environment: [Self.childVariable: "1", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
        defer { run.removeDirectory() }
        #expect(run.exitStatus == 0, "the scenario failed:\n\(run.standardOutput)\n\(run.standardError)")

        let entries = try journalctlJSON(directory: run.journalDirectory, matches: ["SYSLOG_IDENTIFIER=jobd"])
        func events(_ kind: String) -> [[String: String]] { entries.filter { $0["JOBD_EVENT"] == kind } }
        let instances = Set(entries.compactMap { $0["JOBD_INSTANCE"] })
        #expect(instances.count == 1, "one jobd run, one JOBD_INSTANCE")

        // Every owner.init has its owner.deinit: after the reload that removed "gone", and at stop.
        let initialized = events("owner.init")
        let deinitialized = events("owner.deinit")
        #expect(initialized.count == 2)
        #expect(Set(initialized.compactMap { $0["JOBD_OWNER"] }) == Set(deinitialized.compactMap { $0["JOBD_OWNER"] }))
        let order = entries.map { ($0["JOBD_EVENT"] ?? "", $0["JOB"] ?? "") }
        let goneReleased = try #require(order.firstIndex { $0 == ("owner.deinit", "gone") })
        let reloadStart = try #require(order.firstIndex { $0.0 == "reload.start" })
        let reloadDone = try #require(order.firstIndex { $0.0 == "reload.done" })
        #expect(reloadStart < goneReleased && goneReleased < reloadDone, "the removed job's owner is released by the reload itself")

        // Each reload (the rejected one too) logs one owner.retain for all it kept, as id ranges.
        let keepOwner = try #require(initialized.first { $0["JOB"] == "keep" }?["JOBD_OWNER"])
        let retains = events("owner.retain")
        #expect(retains.count == 2 && retains.allSatisfy { $0["JOBD_OWNERS"] == keepOwner && $0["JOBD_OWNER_COUNT"] == "1" },
                "\(retains)")

        // Every timer.invalidate has a reason, and every timer that was armed was invalidated.
        let invalidations = events("timer.invalidate")
        let reasons: Set<String> = ["owner-deinit", "target-gone", "shutdown"]
        #expect(!invalidations.isEmpty)
        #expect(invalidations.allSatisfy { reasons.contains($0["JOBD_REASON"] ?? "") })
        // jobd's own timers (the leak check, the watchdog) have no job owner: JOBD_OWNER=0.
        let jobTimers = invalidations.filter { $0["JOBD_OWNER"] != "0" }
        #expect(Set(jobTimers.compactMap { $0["JOBD_TIMER"] }) == Set(initialized.compactMap { $0["JOBD_TIMER"] }))
        #expect(invalidations.first { $0["JOB"] == "gone" }?["JOBD_REASON"] == "owner-deinit")
        #expect(invalidations.first { $0["JOB"] == "keep" }?["JOBD_REASON"] == "shutdown")

        // Runs, with systemd's exit fields; the rejected reload and its reason.
        let exits = events("run.exit")
        #expect(exits.contains { $0["JOB"] == "keep" && $0["EXIT_CODE"] == "exited" && $0["EXIT_STATUS"] == "0" })
        // A job's output is under the job's own name, with its run's fields: `journalctl -t keep`.
        let output = try journalctlJSON(directory: run.journalDirectory, matches: ["-t", "keep"])
        #expect(output.contains { $0["MESSAGE"] == "tick" && $0["PRIORITY"] == "6" && $0["JOBD_EVENT"] == "run.output" })
        let unlike = output.filter { !($0["JOB"] == "keep" && $0["JOBD_RUN_ID"]?.count == 32 && $0["SYSLOG_PID"] != nil) }
        #expect(unlike.isEmpty, "\(unlike)")
        #expect(!entries.contains { $0["JOBD_EVENT"] == "run.output" }, "no job output under jobd's own name")
        let runIDs = Set(exits.compactMap { $0["JOBD_RUN_ID"] })
        #expect(runIDs.count == exits.count, "every run has its own JOBD_RUN_ID")
        #expect(exits.contains { $0["JOBD_RESULT"] == "success" })
        #expect(exits.allSatisfy { ["success", "stopped"].contains($0["JOBD_RESULT"]) }, "a run in flight at the stop is stopped")

        // The catalog tells the truth about these entries: every field an entry's catalog text
        // shows (`@FIELD@`, which journalctl -x fills in) is a field that entries of that kind carry.
        var fieldsByKind: [String: Set<String>] = [:]
        for entry in entries + output {
            guard let kind = entry["JOBD_EVENT"] else { continue }
            fieldsByKind[kind, default: []].formUnion(entry.keys)
        }
        #expect(fieldsByKind.count >= 12, "the scenario logs most kinds: \(fieldsByKind.keys.sorted())")
        for (kind, fields) in fieldsByKind {
            let event = try #require(JobdEvent(rawValue: kind), "\(kind) is a known kind")
            let body = JobdCatalog.entry(for: event).body
            let referenced = Set(body.matches(of: #/@([A-Z0-9_]+)@/#).map { String($0.output.1) })
            #expect(referenced.isSubset(of: fields), "\(kind)'s catalog text shows \(referenced.subtracting(fields).sorted()), which its entries lack")
        }

        // `journalctl -p info` shows runs, reloads and errors, never the owner and timer bookkeeping,
        // which is stored at debug priority for the audit.
        let important = try journalctlJSON(directory: run.journalDirectory, matches: ["-p", "info", "SYSLOG_IDENTIFIER=jobd"])
        let bookkeeping = important.compactMap { $0["JOBD_EVENT"] }.filter {
            $0.hasPrefix("owner.") || $0.hasPrefix("timer.") || $0.hasPrefix("generation.")
        }
        #expect(bookkeeping.isEmpty, "\(Set(bookkeeping))")
        #expect(important.contains { $0["JOBD_EVENT"] == "run.exit" } && important.contains { $0["JOBD_EVENT"] == "reload.done" })
        let audit = try DaemonProcess(product: "jobctl", arguments: ["audit", "--directory", run.journalDirectory])
        #expect(try audit.waitForExit() == 0, "jobctl audit over the same journal: \(audit.lines.joined(separator: "\n"))")
        let failed = try #require(events("reload.failed").first)
        #expect(failed["PRIORITY"] == "3")
        let configError = try #require(events("config.error").first)
        #expect(configError["CONFIG_FILE"]?.hasSuffix("/jobs.d/broken.job") == true)
        #expect(configError["CONFIG_LINE"] == "3")
        #expect(events("run.exit").last { $0["JOB"] == "keep" }.map { entries.firstIndex(of: $0)! }
            ?? 0 > entries.firstIndex(of: failed)!, "the job kept running after the rejected reload")

        // MESSAGE_IDs, one per kind.
        for entry in entries where entry["JOBD_EVENT"] != nil {
            let kind = entry["JOBD_EVENT"]!
            #expect(entry["MESSAGE_ID"]?.count == 32, "\(kind) has a MESSAGE_ID")
        }
        #expect(Set(events("owner.init").compactMap { $0["MESSAGE_ID"] }).count == 1)
        #expect(events("owner.init").first?["MESSAGE_ID"] != events("owner.deinit").first?["MESSAGE_ID"])
    }

    /// `journalctl -o json --directory DIR MATCHES…`, one dictionary per entry (string fields only).
    func journalctlJSON(directory: String, matches: [String]) throws -> [[String: String]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/journalctl")
        process.arguments = ["--directory", directory, "-o", "json", "--no-pager"] + matches
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
            return object.compactMapValues { $0 as? String }
        }
    }
}
