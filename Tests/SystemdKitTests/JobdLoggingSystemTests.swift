import Foundation
import JobdLogging
import JobdTestKit
import Logging
import SystemdKit
import Testing

extension ProcessWideTests {
    /// `JobdLoggingSystem.bootstrap` changes swift-log for the whole process, once, so it runs in a
    /// child (this test binary again, under scripts/with-journald) and never in the test process.
    @Suite struct JobdLoggingSystemTests {
        static let childVariable = "JOBD_TEST_BOOTSTRAP_CHILD"

        @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil,
                       "runs only as the child process of bootstrapChoosesTheJournalOrStderr"))
        func childBootstraps() {
            let first = JobdLoggingSystem.bootstrap(identifier: "jobd-bootstrap-test")
            let second = JobdLoggingSystem.bootstrap(identifier: "ignored", level: .trace)
            #expect(first == second, "a second bootstrap changes nothing")
            print("TARGET=\(first.kind.rawValue)")
            Logger(label: "jobd.test").event(.daemonReady, "bootstrap-marker", [JobdField.job: "none"])
            // The entry was only queued: the shutdown writes it, as jobd's does before it exits.
            #expect(JobdLoggingSystem.shutdown())
        }

        @Test(arguments: [nil, "stderr"])
        func bootstrapChoosesTheJournalOrStderr(override: String?) throws {
            try PrivateJournal.requireAvailable()
            var environment = [Self.childVariable: "1"]
            environment["JOBD_LOG_TARGET"] = override
            let run = try PrivateJournal.run(
                try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
                arguments: ["--testing-library", "swift-testing", "--filter", "childBootstraps"],
                environment: environment
            )
            defer { run.removeDirectory() }
            #expect(run.exitStatus == 0, "\(run.standardOutput)\n\(run.standardError)")
            let inJournal = run.entries(where: "SYSLOG_IDENTIFIER", is: "jobd-bootstrap-test")
            if override == "stderr" {
                #expect(run.standardOutput.contains("TARGET=stderr"))
                #expect(inJournal.isEmpty)
                #expect(run.standardError.contains("jobd-bootstrap-test["))
                #expect(run.standardError.contains("<info> none: daemon.ready — bootstrap-marker"))
            } else {
                // No JOURNAL_STREAM here, but journald listens on its socket.
                #expect(run.standardOutput.contains("TARGET=journal"))
                #expect(inJournal.map(\.message) == ["bootstrap-marker"])
                #expect(inJournal.first?["MESSAGE_ID"] == JobdEvent.daemonReady.messageID)
            }
        }
    }
}
