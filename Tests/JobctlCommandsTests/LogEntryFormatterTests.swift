import Foundation
@testable import JobctlCommands
import SystemdKit
import Testing

@Suite struct LogEntryFormatterTests {
    let entry = JournalEntry(
        fields: ["MESSAGE": "hello \"world\"", "JOB": "backup", "JOBD_RUN": "7", "JOBD_EVENT": "run.output"],
        realtimeUSec: 1_795_439_430_250_000, monotonicUSec: 42, bootID: String(repeating: "b", count: 32), cursor: "s=1;i=2")

    @Test func shortIsJournalctlsShortWithTheJobAndRun() {
        let formatter = LogEntryFormatter(style: .short, timeZone: TimeZone(identifier: "Europe/Berlin")!)
        #expect(formatter.format(entry) == "Nov 23 14:10:30 backup #7: hello \"world\"")
        let utc = LogEntryFormatter(style: .short, timeZone: TimeZone(identifier: "UTC")!)
        #expect(utc.format(entry) == "Nov 23 13:10:30 backup #7: hello \"world\"")
    }

    @Test func jsonIsOneObjectPerLineWithEveryField() throws {
        let line = LogEntryFormatter(style: .json).format(entry)
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(object["MESSAGE"] == "hello \"world\"")
        #expect(object["JOB"] == "backup")
        #expect(object["__REALTIME_TIMESTAMP"] == "1795439430250000")
        #expect(object["__CURSOR"] == "s=1;i=2")
    }
}
