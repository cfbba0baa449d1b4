import Foundation
import JobdConfig
import JobdTestKit
import Testing

@Suite struct TimeSpanTests {
    /// Expected values as `systemd-analyze timespan` (systemd 252) gives them; nil = rejected.
    static let table: [(String, UInt64?)] = [
        ("90s", 90_000_000), ("5min 30s", 330_000_000), ("5min30s", 330_000_000), ("1h", 3_600_000_000),
        ("250ms", 250_000), ("1.5h", 5_400_000_000), ("0.5", 500_000), ("2 h", 7_200_000_000),
        ("1h30", 3_630_000_000), (" 90s ", 90_000_000), ("1y", 31_557_600_000_000),
        ("1M", 2_629_800_000_000), ("3 weeks", 1_814_400_000_000), ("5m", 300_000_000),
        ("1hour2min", 3_720_000_000), (".5s", 500_000), ("10", 10_000_000), ("7d", 604_800_000_000),
        ("2us", 2), ("1.25s", 1_250_000), ("1 day 2 hours", 93_600_000_000), ("0", 0),
        ("infinity", .max), ("5mins", nil), ("", nil), ("1.5.5s", nil), ("1e3", nil), ("5S", nil),
        ("5.", nil), ("9999999999999999999h", nil), ("soon", nil), ("5 parsecs", nil),
        // strtoll's sign, as systemd reads it: a '+' right before a number, in any component.
        ("+3.1s", 3_100_000), ("+3s", 3_000_000), ("3s +1s", 4_000_000), ("3s+1s", 4_000_000),
        ("+ 3s", nil), ("++3s", nil), ("+.5s", nil), ("+infinity", nil), ("-3s", nil), ("3s -1s", nil),
        ("100y", 3_155_760_000_000_000),
    ]

    @Test func matchesSystemdsTable() {
        for (text, expected) in Self.table {
            let parsed = try? TimeSpan.parse(text)
            #expect(parsed?.microseconds == expected, "'\(text)'")
        }
    }

    /// The same table, asked of the real systemd-analyze on this machine, so that the table itself
    /// cannot drift from systemd.
    @Test func tableAgreesWithSystemdAnalyze() throws {
        let tool = try Requirement.tools("/usr/bin/systemd-analyze", for: "the comparison with systemd's time spans")
        for (text, expected) in Self.table where !text.isEmpty {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = ["timespan", "--", text]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = Pipe()
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let microseconds = output.split(separator: "\n")
                .first { $0.contains("μs:") }
                .flatMap { UInt64($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
            #expect(microseconds == expected, "systemd-analyze timespan '\(text)' said: \(output)")
        }
    }

    /// Spans systemd takes but jobd's scheduler could not represent in nanoseconds: an error that
    /// names the maximum, never a trap (a huge whole part with a fraction trapped in `parse`).
    @Test(arguments: [
        "1000y", "100y 1us", "101y", "99999999999999999.5s", "18446744073709551615us", "18446744073709551616",
        "584542y", "3155760000.000001s", "99999999999999999999999999999999.9h", "100y 100y",
    ])
    func spansAboveTheMaximumAreErrorsNamingIt(text: String) {
        #expect(throws: TimeSpanError.self) { try TimeSpan.parse(text) }
        do {
            _ = try TimeSpan.parse(text)
        } catch {
            #expect(error.reason.contains("longer than 100y"), "\(error)")
        }
    }

    @Test func secondsBeyondMicrosecondsSaturate() {
        #expect(TimeSpan.seconds(.max).isInfinite)
        #expect(TimeSpan.seconds(90).microseconds == 90_000_000)
    }

    @Test func theMaximumItselfIsAccepted() throws {
        #expect(try TimeSpan.parse("100y") == TimeSpan.maximum)
        #expect(try TimeSpan.parse("3155760000s") == TimeSpan.maximum)
        #expect(try TimeSpan.parse("infinity").isInfinite)
    }

    @Test func printsAsSystemdDoes() throws {
        #expect(try TimeSpan.parse("5min 30s").description == "5min 30s")
        #expect(try TimeSpan.parse("90s").description == "1min 30s")
        #expect(try TimeSpan.parse("1.5h").description == "1h 30min")
        #expect(try TimeSpan.parse("500ms").description == "500ms")
    }
}

/// Durations as systemd writes them: `format_timespan` with an accuracy, checked against
/// `systemd-analyze timespan` (accuracy 1us) and at jobd's 1 ms.
@Suite struct DurationFormatTests {
    static let spans: [UInt64] = [1, 999, 11_471, 2_013_000, 65_200_000, 3_723_000_000, 5_000_000, 90_000_000, 2_500_000, 86_400_000_001]

    @Test func atOneMicrosecondItIsWhatSystemdAnalyzePrints() throws {
        let analyze = try Requirement.tools("/usr/bin/systemd-analyze", for: "the comparison with systemd's time spans")
        for span in Self.spans {
            let result = try CapturedProcess.run(analyze, ["timespan", "\(span)us"])
            let human = result.standardOutput.split(separator: "\n").first { $0.contains("Human:") }
                .map { $0.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces) }
            #expect(TimeSpan(microseconds: span).description(accuracy: TimeSpan(microseconds: 1)) == human, "\(span)us")
        }
    }

    @Test func atOneMillisecondMicrosecondsGo() {
        let ms = TimeSpan(microseconds: 1_000)
        #expect(TimeSpan(microseconds: 11_471).description(accuracy: ms) == "11ms")
        #expect(TimeSpan(microseconds: 2_013_471).description(accuracy: ms) == "2.013s")
        #expect(TimeSpan(microseconds: 65_200_000).description(accuracy: ms) == "1min 5.200s")
        #expect(TimeSpan(microseconds: 5_000_000).description(accuracy: ms) == "5s")
        #expect(TimeSpan(microseconds: 999).description(accuracy: ms) == "999us")
    }
}
