import Foundation
import JobdTestKit
import SystemdKit
import Testing

extension ProcessWideTests {
    /// The reader against journal files a real journald wrote (scripts/with-journald), filled by
    /// `systemd-cat`, so these tests do not depend on jobd's own writer.
    @Suite struct JournalReaderTests {
        @Test func readsWhatSystemdCatWrote() throws {
            try PrivateJournal.requireAvailable()
            let script = """
                echo first | systemd-cat -t reader-a -p info
                echo second | systemd-cat -t reader-b -p warning
                echo third | systemd-cat -t reader-a -p err
                """
            let run = try PrivateJournal.run("/bin/sh", arguments: ["-c", script])
            defer { run.removeDirectory() }
            #expect(run.exitStatus == 0, "\(run.standardError)")

            let reader = try JournalReader(directory: run.journalDirectory)
            try reader.addMatch("SYSLOG_IDENTIFIER", "reader-a")
            let a = try reader.readAll()
            #expect(a.map(\.message) == ["first", "third"])
            #expect(a.map { $0["PRIORITY"] } == ["6", "3"])

            // Same field twice: either value. A disjunction: either group.
            reader.flushMatches()
            try reader.addMatch("SYSLOG_IDENTIFIER", "reader-a")
            try reader.addMatch("SYSLOG_IDENTIFIER", "reader-b")
            try reader.addConjunction()
            try reader.addMatch("PRIORITY", "4")
            try reader.addDisjunction()
            try reader.addMatch("PRIORITY", "3")
            try reader.seekHead()
            #expect(try reader.readAll().compactMap(\.message) == ["second", "third"])

            let entry = try #require(a.first)
            #expect(ID128.isValid(entry.bootID))
            #expect(entry.bootID == entry["_BOOT_ID"])
            #expect(entry.seqnum != nil && entry.seqnumID != nil)

            // Resuming from a cursor returns the same entry again.
            reader.flushMatches()
            try reader.seek(cursor: entry.cursor)
            #expect(try reader.next()?.cursor == entry.cursor)
        }

        @Test func headAndSeekSinceAJudgeCompleteness() throws {
            try PrivateJournal.requireAvailable()
            let run = try PrivateJournal.run("/bin/sh", arguments: ["-c", "echo one | systemd-cat -t head; echo two | systemd-cat -t head"])
            defer { run.removeDirectory() }
            let reader = try JournalReader(directory: run.journalDirectory)
            try reader.addMatch("SYSLOG_IDENTIFIER", "head")
            let head = try #require(try reader.head())
            // A fresh journal starts at sequence number 1: nothing was rotated away.
            #expect(head.firstEntry.seqnum == 1)
            #expect(head.firstEntry["SYSLOG_IDENTIFIER"] != "head", "head() ignores the reader's matches")
            let entries = try reader.readAll()
            #expect(entries.count == 2)
            for entry in entries { #expect(head.realtimeUSec.contains(entry.realtimeUSec)) }

            let second = try #require(entries.last)
            try #require(entries[0].realtimeUSec < second.realtimeUSec)
            try reader.seek(realtimeSinceUSec: second.realtimeUSec)
            #expect(try reader.next()?.message == "two")
        }

        @Test func openingFilesAndAMissingDirectory() throws {
            try PrivateJournal.requireAvailable()
            let run = try PrivateJournal.run("/bin/sh", arguments: ["-c", "echo in-file | systemd-cat -t files"])
            defer { run.removeDirectory() }
            let files = try FileManager.default.subpathsOfDirectory(atPath: run.journalDirectory)
                .filter { $0.hasSuffix(".journal") }.map { run.journalDirectory + "/" + $0 }
            #expect(!files.isEmpty)
            let reader = try JournalReader(files: files)
            try reader.addMatch("SYSLOG_IDENTIFIER", "files")
            #expect(try reader.readAll().map(\.message) == ["in-file"])

            let error = #expect(throws: SystemdError.self) {
                _ = try JournalReader(directory: run.directory + "/no-such-directory")
            }
            #expect(error?.code == .journalReadFailed)
        }
    }
}
