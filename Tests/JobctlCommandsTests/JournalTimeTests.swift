import Foundation
@testable import JobctlCommands
import JobdCalendar
import JobdTestKit
import Testing

/// `--since`/`--until` values, read as journalctl reads them: by table, with a fixed time now, and
/// against the real `systemd-analyze timestamp` (systemd's own parse_timestamp).
@Suite struct JournalTimeTests {
    static let berlin = try! TimeZoneRules.load(named: "Europe/Berlin")
    /// Mon 2026-11-23 14:10:30.250 CET (13:10:30.250 UTC).
    static let now: UInt64 = 1_795_439_430_250_000
    let time = JournalTime(timeZone: berlin)

    static let table: [(String, UInt64)] = [
        ("now", now),
        ("today", 1_795_388_400_000_000),          // 2026-11-23 00:00 CET
        ("yesterday", 1_795_302_000_000_000),
        ("tomorrow", 1_795_474_800_000_000),
        ("2026-11-23 10:00", 1_795_424_400_000_000),
        ("2026-11-23 10:00:00", 1_795_424_400_000_000),
        ("2026-11-23 10:00:00.5", 1_795_424_400_500_000),
        ("Mon 2026-11-23 10:00", 1_795_424_400_000_000),
        ("monday 2026-11-23 10:00", 1_795_424_400_000_000),
        ("2026-11-23", 1_795_388_400_000_000),
        ("26-11-23", 1_795_388_400_000_000),
        ("10:00", 1_795_424_400_000_000),
        ("2026-11-23 10:00 UTC", 1_795_428_000_000_000),
        ("2026-07-01 12:00", 1_782_900_000_000_000),  // CEST
        ("@1700000000", 1_700_000_000_000_000),
        ("@1700000000.25", 1_700_000_000_250_000),
        ("-1h", now - 3_600_000_000),
        ("-90s", now - 90_000_000),
        ("-90", now - 90_000_000),
        ("-1h 30min", now - 5_400_000_000),
        ("+5min", now + 300_000_000),
        ("5min ago", now - 300_000_000),
        ("2 days ago", now - 172_800_000_000),
        ("5min left", now + 300_000_000),
    ]

    @Test(arguments: table) func reads(_ text: String, _ expected: UInt64) throws {
        #expect(try time.parse(text, nowUSec: Self.now) == expected, "\(text)")
    }

    @Test(arguments: [
        "", "Tue 2026-11-23 10:00", "2026-02-31", "2026-11-23 25:00", "2026-11", "@x", "-1 fortnight",
        "in 5min", "2026-11-23T10:00:00", "10:00 2026-11-23", "-infinity", "2026-11-23 10:00 +0100", "10",
    ])
    func rejects(_ text: String) {
        #expect(throws: JournalTime.Failure.self, "\(text)") { try time.parse(text, nowUSec: Self.now) }
    }

    @Test func failureSaysWhatIsExpected() {
        #expect {
            try time.parse("soon", nowUSec: Self.now)
        } throws: { error in
            "\(error)".contains("'soon' is not a time") && "\(error)".contains("'-1h'")
        }
    }

    /// Forms that do not depend on the time now, against `systemd-analyze timestamp` in two zones.
    @Test(arguments: ["Europe/Berlin", "UTC", "America/New_York"])
    func matchesSystemdAnalyze(_ zone: String) throws {
        let analyze = try Requirement.tools("/usr/bin/systemd-analyze", for: "the comparison with systemd-analyze")
        let forms = [
            "2026-11-23 10:00", "2026-11-23 10:00:07", "2026-11-23 10:00:07.123456", "Mon 2026-11-23 10:00",
            "2026-11-23", "26-11-23", "99-01-02", "2026-03-29 02:30", "2026-10-25 02:30", "2026-07-01 12:00 UTC",
            "@1700000000.5", "1970-01-02",
        ]
        let local = JournalTime(timeZone: try TimeZoneRules.load(named: zone))
        for form in forms {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: analyze)
            process.arguments = ["timestamp", "--", form]
            process.environment = ["TZ": zone, "PATH": "/usr/bin:/bin"]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = Pipe()
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard let line = output.split(separator: "\n").first(where: { $0.contains("UNIX seconds: @") }) else {
                Issue.record("systemd-analyze timestamp '\(form)' printed no time: \(output)")
                continue
            }
            let seconds = try #require(Double(line.split(separator: "@").last!))
            let expected = UInt64((seconds * 1_000_000).rounded())
            #expect(try local.parse(form, nowUSec: Self.now) == expected, "\(form) in \(zone)")
        }
    }
}
