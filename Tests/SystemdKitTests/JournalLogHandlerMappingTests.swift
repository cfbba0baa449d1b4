import JobdLogging
import Logging
import SystemdKit
import Testing

@Suite struct JournalLogHandlerMappingTests {
    static func record(_ level: Logger.Level = .info, _ metadata: [String: String] = [:], error: String? = nil) -> LogRecord {
        LogRecord(
            level: level, message: "hello", metadata: metadata, label: "jobd.test", seconds: 0, nanoseconds: 0,
            file: "JobdLogging/Here.swift", function: "f()", line: 7, error: error
        )
    }

    static func fields(_ record: LogRecord) -> [(String, String)] {
        JournalLogHandler.fields(for: record, identifier: "jobd").map { ($0.name.rawValue, $0.value) }
    }

    @Test(arguments: [
        (Logger.Level.trace, "7"), (.debug, "7"), (.info, "6"), (.notice, "5"), (.warning, "4"), (.error, "3"), (.critical, "2"),
    ])
    func priorityFollowsTheLevel(_ level: Logger.Level, _ priority: String) {
        #expect(Self.fields(Self.record(level)).first { $0.0 == "PRIORITY" }?.1 == priority)
    }

    @Test func fixedFieldsComeFirstThenMetadataSorted() {
        let fields = Self.fields(Self.record(.info, ["JOB": "backup", "JOBD_EVENT": "run.start", "JOBD_RUN": "r1"]))
        #expect(fields.map(\.0) == [
            "MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "MESSAGE_ID", "CODE_FILE", "CODE_LINE", "CODE_FUNC", "JOBD_LOGGER",
            "JOB", "JOBD_EVENT", "JOBD_RUN",
        ])
        #expect(fields.first { $0.0 == "MESSAGE_ID" }?.1 == JobdEvent.runStart.messageID)
        #expect(fields.first { $0.0 == "CODE_LINE" }?.1 == "7")
    }

    @Test func everyEventKindGetsItsMessageID() {
        for kind in JobdEvent.allCases {
            let fields = Self.fields(Self.record(.info, [JobdField.event: kind.rawValue]))
            #expect(fields.first { $0.0 == "MESSAGE_ID" }?.1 == kind.messageID)
        }
    }

    @Test func unknownEventsAndPlainRecordsHaveNoMessageID() {
        #expect(!Self.fields(Self.record(.info, ["JOBD_EVENT": "nope"])).contains { $0.0 == "MESSAGE_ID" })
        #expect(!Self.fields(Self.record()).contains { $0.0 == "MESSAGE_ID" })
    }

    @Test func invalidKeysAreNormalizedOrDroppedAndListed() {
        let fields = Self.fields(Self.record(.info, [
            "jobd.owner": "o", "_PID": "1", "9LIVES": "x", "PRIORITY": "0", "MESSAGE_ID": "forged",
            "JOB": "kept", "job": "collides", "": "empty", String(repeating: "A", count: 65): "long",
        ]))
        let byName = Dictionary(fields, uniquingKeysWith: { first, _ in first })
        #expect(byName["JOBD_OWNER"] == "o")
        #expect(byName["PID"] == "1")
        #expect(byName["JOB"] == "kept")
        #expect(byName["PRIORITY"] == "6")
        #expect(fields.filter { $0.0 == "PRIORITY" || $0.0 == "JOB" }.count == 2, "no duplicates of handler fields or valid keys")
        #expect(byName["JOBD_DROPPED_FIELDS"] == ",9LIVES,\(String(repeating: "A", count: 65)),MESSAGE_ID,PRIORITY,job")
        for (name, _) in fields { #expect(JournalFieldName.isValid(name), "\(name)") }
    }

    @Test func errorsAreAField() {
        #expect(Self.fields(Self.record(.error, error: "boom")).contains { $0 == ("JOBD_ERROR", "boom") })
    }
}
