import JobdLogging
import Logging
import Synchronization
import Testing

@Suite struct ReadableLogHandlerTests {
    static func record(_ message: String, _ metadata: [String: String], level: Logger.Level = .info) -> LogRecord {
        LogRecord(
            level: level, message: message, metadata: metadata, label: "jobd.scheduler",
            seconds: 1_795_326_000, nanoseconds: 123_456_789, file: "F.swift", function: "f()", line: 1
        )
    }

    /// Drops the local-time stamp, which depends on TZ, after checking its shape.
    static func withoutTimestamp(_ line: String) -> Substring {
        let stamp = line.prefix(23)
        #expect(stamp.count == 23 && stamp.hasSuffix(".123"), "\(stamp)")
        #expect(stamp.dropFirst(4).first == "-" && stamp.dropFirst(10).first == " " && stamp.dropFirst(13).first == ":")
        return line.dropFirst(24)
    }

    @Test func eventLineIsShortAndGreppable() {
        let line = ReadableLogHandler.line(
            Self.record("job exited", ["JOB": "backup", "JOBD_EVENT": "run.exit", "EXIT_STATUS": "0", "EXIT_CODE": "exited"]),
            identifier: "jobd", pid: 1234
        )
        #expect(Self.withoutTimestamp(line) == "jobd[1234] <info> backup: run.exit EXIT_CODE=exited EXIT_STATUS=0 — job exited")
    }

    @Test func withoutJobTheLabelIsTheSubject() {
        let line = ReadableLogHandler.line(Self.record("ready", [:], level: .notice), identifier: "jobd", pid: 1)
        #expect(Self.withoutTimestamp(line) == "jobd[1] <notice> — ready")
    }

    @Test func valuesAndMessagesStayOnOneLine() {
        let line = ReadableLogHandler.line(
            Self.record("first\nsecond", ["JOBD_REASON": "still \"running\"", "EMPTY": "", "K": "a=b"]),
            identifier: "jobd", pid: 1
        )
        #expect(!line.contains("\n"))
        #expect(Self.withoutTimestamp(line)
            == #"jobd[1] <info> EMPTY="" JOBD_REASON="still \"running\"" K="a=b" — first\nsecond"#)
    }

    @Test func handlerWritesOneLinePerRecordToItsOutput() {
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "jobd.test") { label in
            ReadableLogHandler(label: label, identifier: "jobd") { text in lines.withLock { $0.append(text) } }
        }
        logger.event(.runSkip, "skipped", ["JOB": "backup", "JOBD_REASON": "busy"])
        logger.debug("not shown at the default level")
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        #expect(written.first?.hasSuffix("<info> backup: run.skip JOBD_REASON=busy — skipped\n") == true)
    }
}
