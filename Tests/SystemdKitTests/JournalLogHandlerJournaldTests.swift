import Foundation
import JobdLogging
import JobdTestKit
import Logging
import SystemdKit
import Testing

extension ProcessWideTests {
    /// JournalLogHandler writing into a real journald.
    ///
    /// The journal socket path is fixed in libsystemd and this (multi-threaded) test process cannot
    /// enter a new mount namespace, so the writing happens in a child: this same test binary
    /// (`/proc/self/exe`), run under `scripts/with-journald` with `--filter` selecting only
    /// ``childLogsThroughJournalLogHandler()``, which is enabled only by ``childVariable``.
    @Suite struct JournalLogHandlerJournaldTests {
        static let childVariable = "JOBD_TEST_JOURNAL_CHILD"
        static let isChild = ProcessInfo.processInfo.environment[childVariable] != nil
        static let identifier = "jobd-handler-test"

        @Test(.enabled(if: isChild, "runs only as the child process of handlerEntriesLandInJournald"))
        func childLogsThroughJournalLogHandler() throws {
            let tag = try #require(ProcessInfo.processInfo.environment[Self.childVariable])
            var logger = Logger(label: "jobd.test") {
                JournalLogHandler(label: $0, identifier: Self.identifier, fallback: { line in
                    // The journal is there in the child: reaching the fallback is a failure.
                    Issue.record("fell back to stderr: \(line)")
                })
            }
            logger.logLevel = .trace
            logger[metadataKey: "JOBD_TEST_TAG"] = .string(tag)
            logger.event(.runExit, level: .warning, "backup exited", [
                JobdField.job: "backup", JobdField.exitCode: "exited", JobdField.exitStatus: "3",
            ])
            for level in Logger.Level.allCases {
                logger.log(level: level, "level \(level)", metadata: ["JOBD_TEST_LEVEL": "\(level)"])
            }
            logger.notice("odd keys", metadata: [
                "jobd.owner": "normalized", "9LIVES": "dropped", "PRIORITY": "0", "MESSAGE_ID": "forged",
                "JOBD_EVENT": "no.such-event",
            ])
            logger.info("two\nlines", metadata: ["JOBD_TEST_MULTILINE": "a\nb"])
        }

        @Test func handlerEntriesLandInJournald() throws {
            try PrivateJournal.requireAvailable()
            let tag = try ID128.random()
            let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            let run = try PrivateJournal.run(
                executable,
                arguments: ["--testing-library", "swift-testing", "--filter", "childLogsThroughJournalLogHandler"],
                environment: [Self.childVariable: tag]
            )
            defer { run.removeDirectory() }
            #expect(run.exitStatus == 0, "child failed:\n\(run.standardOutput)\n\(run.standardError)")

            let reader = try JournalReader(directory: run.journalDirectory)
            try reader.addMatch("JOBD_TEST_TAG", tag)
            let entries = try reader.readAll()
            #expect(entries.count == 1 + Logger.Level.allCases.count + 2)

            // Query by fields, as an operator would.
            reader.flushMatches()
            try reader.addMatch("JOBD_EVENT", JobdEvent.runExit.rawValue)
            try reader.addMatch("JOB", "backup")
            try reader.seekHead()
            let exit = try #require(try reader.readAll().first { $0["JOBD_TEST_TAG"] == tag })
            #expect(exit.message == "backup exited")
            #expect(exit["MESSAGE_ID"] == JobdEvent.runExit.messageID)
            #expect(exit["PRIORITY"] == "4")
            #expect(exit["SYSLOG_IDENTIFIER"] == Self.identifier)
            #expect(exit["EXIT_CODE"] == "exited")
            #expect(exit["EXIT_STATUS"] == "3")
            #expect(exit["JOBD_LOGGER"] == "jobd.test")
            #expect(exit["CODE_FILE"]?.hasSuffix("JournalLogHandlerJournaldTests.swift") == true)
            #expect(exit["CODE_FUNC"] == "childLogsThroughJournalLogHandler()")
            #expect(exit["CODE_LINE"].flatMap(Int.init) != nil)
            #expect(exit["_PID"] != nil, "journald added trusted fields")

            for level in Logger.Level.allCases {
                let entry = entries.first { $0["JOBD_TEST_LEVEL"] == "\(level)" }
                #expect(entry?["PRIORITY"] == String(LogRecord.priority(level)), "\(level)")
            }

            let odd = try #require(entries.first { $0.message == "odd keys" })
            #expect(odd["JOBD_OWNER"] == "normalized")
            #expect(odd["PRIORITY"] == "5")
            #expect(odd["MESSAGE_ID"] == nil, "an unknown JOBD_EVENT has no MESSAGE_ID, and none can be forged")
            #expect(odd["JOBD_EVENT"] == "no.such-event")
            #expect(odd["JOBD_DROPPED_FIELDS"] == "9LIVES,MESSAGE_ID,PRIORITY")

            let multiline = try #require(entries.first { $0["JOBD_TEST_MULTILINE"] != nil })
            #expect(multiline.message == "two\nlines")
            #expect(multiline["JOBD_TEST_MULTILINE"] == "a\nb")

            // journalctl reads the same entries with the same fields.
            let json = try CapturedProcess.run("/usr/bin/journalctl", [
                "--directory", run.journalDirectory, "-o", "json", "--no-pager", "JOBD_TEST_TAG=\(tag)",
            ])
            #expect(json.status == 0, "\(json.standardError)")
            let objects = try json.standardOutput.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            #expect(objects.count == entries.count)
            for object in objects {
                let cursor = try #require(object["__CURSOR"] as? String)
                let entry = try #require(entries.first { $0.cursor == cursor }, "journalctl's \(cursor) not read")
                #expect(object["__REALTIME_TIMESTAMP"] as? String == String(entry.realtimeUSec))
                #expect(object["__MONOTONIC_TIMESTAMP"] as? String == String(entry.monotonicUSec))
                var fields: [String: String] = [:]
                for (key, value) in object where !key.hasPrefix("__") { fields[key] = Self.text(value) }
                #expect(fields == entry.fields)
            }
        }

        @Test func handlerFallsBackToStderrWithoutJournald() throws {
            try PrivateJournal.requireAvailable()
            // A mount namespace whose /run/systemd is empty: no journal socket, whatever the host runs.
            let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
            let result = try CapturedProcess.run("/usr/bin/unshare", [
                "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
                "mount -t tmpfs tmpfs /run/systemd && exec \"$0\" --testing-library swift-testing --filter childFallsBackToStderr",
                executable,
            ], environment: [Self.childVariable: "fallback", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
            #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
            let line = try #require(result.standardError.split(separator: "\n").first { $0.contains("fallback-marker") })
            #expect(line.contains("\(Self.identifier)["))
            #expect(line.contains("<warning> backup: run.skip JOBD_REASON=\"still running\" — fallback-marker"))
        }

        @Test(.enabled(if: isChild, "runs only as the child process of handlerFallsBackToStderrWithoutJournald"))
        func childFallsBackToStderr() throws {
            #expect(throws: SystemdError.self) { try Journal.probe() }
            let error = #expect(throws: SystemdError.self) { try Journal().send([JournalField("MESSAGE", "lost?")]) }
            #expect(error?.code == .journalUnreachable)
            let logger = Logger(label: "jobd.test") { JournalLogHandler(label: $0, identifier: Self.identifier) }
            logger.event(.runSkip, level: .warning, "fallback-marker", [JobdField.job: "backup", JobdField.reason: "still running"])
        }

        /// journalctl's JSON value as text: a string, an array of byte numbers for binary data, or
        /// (for a field repeated in one entry) an array whose first element is what the reader keeps.
        static func text(_ value: Any) -> String? {
            if let string = value as? String { return string }
            if let bytes = value as? [Int] { return String(decoding: bytes.map(UInt8.init), as: UTF8.self) }
            if let array = value as? [Any], let first = array.first { return text(first) }
            return nil
        }
    }
}
