import Foundation
import JobdTestKit
import SystemdKit
import Testing

/// Issue 37: one user's output cannot blind the journal. Under a private journald, a user's run
/// prints 60,000 lines while root's job runs: jobd's budget for the user's output
/// (`UserLogRateLimitBurst=`, 1,000 lines in 30 s) drops what is over it and says how much, every
/// entry of root's runs is there, and the leak audit is complete. (journald rate-limits by unit,
/// and there is none here: e2e's `a_users_flood_suppresses_none_of_roots_entries` shows under
/// systemd 252 that journald then suppresses nothing of jobd.service.)
@Suite(.serialized) struct UserJournalFloodTests {
    static let variable = "JOBD_TEST_USER_FLOOD"
    /// journald's "Suppressed N messages" entry.
    static let suppressedMessageID = "a596d6fe7bfa4994828e72309e95d61e"

    @Test(.enabled(if: ProcessInfo.processInfo.environment[variable] != nil, "runs only as the child of the test below"))
    func userFloodChildScenario() throws {
        let journal = try JournalFollower()
        // JOBD_TEST_USER_FLOOD=unbounded: without the budget (the test then fails).
        let conf = ProcessInfo.processInfo.environment[Self.variable] == "unbounded" ? "[Daemon]\nUserLogRateLimitBurst=infinity\n" : nil
        let setup = try UserJobsTests.Setup(journal: journal, conf: conf)
        try setup.config.write(job: "tick", "[Job]\nOnStartupSec=1h\nExecStart=/bin/echo tick-from-root\n")
        #expect(try setup.jobctl(["reload"]).0 == 0)
        let flood = "[Job]\nOnStartupSec=1h\nExecStart=/usr/bin/seq 1 60000\n"
        #expect(try setup.jobctl(["--user", "edit", "flood"], as: setup.alice, editing: flood).0 == 0)
        #expect(try setup.jobctl(["--user", "run", "flood"], as: setup.alice).0 == 0)
        try journal.waitFor(event: "run.exit", fields: ["JOB": "\(setup.alice.name):flood"])
        // Root's runs, within journald's 30 s window after the flood.
        for _ in 0 ..< 5 {
            #expect(try setup.jobctl(["run", "tick", "--wait", "--quiet"]).0 == 0)
        }
    }

    @Test func aUsersSixtyThousandLinesSuppressNoneOfRootsEntries() throws {
        let run = try PrivateJournal.expectScenarioPasses("userFloodChildScenario", enabledBy: Self.variable)
        defer { run.removeDirectory() }

        let suppressed = run.entries(where: "MESSAGE_ID", is: Self.suppressedMessageID)
        #expect(suppressed.isEmpty, "journald suppressed: \(suppressed.map(\.message))")
        #expect(run.entries(where: "SYSLOG_IDENTIFIER", is: "tick").filter { $0.message == "tick-from-root" }.count == 5)
        #expect(run.entries(where: "JOBD_EVENT", is: "run.exit").filter { $0["JOB"] == "tick" }.count == 5)
        let dropped = run.entries(where: "JOBD_EVENT", is: "run.output-dropped")
        let count = dropped.compactMap { $0["JOBD_DROPPED_COUNT"].flatMap(Int.init) }.reduce(0, +)
        #expect(count >= 50_000 && count < 60_000, "jobd says how many of the user's lines it dropped: \(count)")

        let audit = try CapturedProcess.run(DaemonProcess.productsDirectory + "/jobctl", ["audit", "--directory", run.journalDirectory],
                                            environment: Jobctl.plainEnvironment)
        #expect(audit.status == 0 && !audit.standardOutput.contains("incomplete"), "\(audit.standardOutput)\(audit.standardError)")
    }
}
