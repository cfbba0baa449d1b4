import Foundation
import JobdConfig
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
        let tool = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("systemd-analyze is missing; CI must have it (scripts/setup --test installs systemd)")
            } else {
                print("SKIPPED: systemd-analyze not found; install systemd to compare with the real thing")
            }
            return
        }
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

    @Test func printsAsSystemdDoes() throws {
        #expect(try TimeSpan.parse("5min 30s").description == "5min 30s")
        #expect(try TimeSpan.parse("90s").description == "1min 30s")
        #expect(try TimeSpan.parse("1.5h").description == "1h 30min")
        #expect(try TimeSpan.parse("500ms").description == "500ms")
    }
}
