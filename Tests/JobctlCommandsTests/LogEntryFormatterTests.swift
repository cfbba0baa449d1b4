import Foundation
@testable import JobctlCommands
@testable import JobctlReports
import JobdCalendar
import SystemdKit
import Testing

@Suite struct LogEntryFormatterTests {
    let entry = JournalEntry(
        fields: ["MESSAGE": "hello \"world\"", "JOB": "backup", "JOBD_RUN": "7", "JOBD_EVENT": "run.output"],
        realtimeUSec: 1_795_439_430_250_000, monotonicUSec: 42, bootID: String(repeating: "b", count: 32), cursor: "s=1;i=2")

    @Test func shortIsJournalctlsShortWithTheJobAndRun() throws {
        let formatter = LogEntryFormatter(style: .short, timeZone: try TimeZoneRules.load(named: "Europe/Berlin"))
        #expect(formatter.format(entry) == "Nov 23 14:10:30 backup #7: hello \"world\"")
        let utc = LogEntryFormatter(style: .short, timeZone: .utc)
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

    /// The same bytes as `JSONSerialization` with `.sortedKeys` and `.withoutEscapingSlashes`,
    /// which wrote `-o json` before: the order of the keys, and the escapes.
    @Test func jsonIsWhatJSONSerializationWrote() throws {
        let names = ["MESSAGE", "JOB", "JOBD_RUN", "JOBD_EVENT", "_PID", "_SYSTEMD_UNIT", "CODE_LINE", "CODE_FILE",
                     "SYSLOG_IDENTIFIER", "JOB_X", "JOBD", "A9", "A10", "A01", "X2Y10", "X2Y9", "_A", "__Z", "Z_", "9", "10"]
        var fields: [String: String] = [:]
        for (index, name) in names.enumerated() { fields[name] = "v\(index) /path \"q\" \\ \t\n\u{1}\u{7f} é" }
        let entry = JournalEntry(fields: fields, realtimeUSec: 1, monotonicUSec: 2, bootID: "b", cursor: "c")
        var object = fields
        object["__REALTIME_TIMESTAMP"] = "1"
        object["__MONOTONIC_TIMESTAMP"] = "2"
        object["__CURSOR"] = "c"
        object["_BOOT_ID"] = "b"
        let expected = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(LogEntryFormatter.json(entry) == String(decoding: expected, as: UTF8.self))
    }
}
