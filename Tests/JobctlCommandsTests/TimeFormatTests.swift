import Foundation
@testable import JobctlCommands
@testable import JobctlReports
import JobdTestKit
import Testing

/// LEFT and PASSED of `jobctl list` (and the spans of `jobctl status`), rounded as
/// `systemctl list-timers` rounds them.
@Suite struct TimeFormatTests {
    static let now: Int64 = 1_795_439_430_250_000
    static let second: Int64 = 1_000_000, minute = 60 * second, hour = 60 * minute, day = 24 * hour

    static let table: [(Int64, String)] = [
        (0, "now"),
        (12, "12us left"),
        (250_000, "250ms left"),
        (45 * second + 999_999, "45s left"),
        (-(4 * minute + 59 * second + 900_000), "4min 59s ago"),
        (5 * minute + 59 * second, "5min left"),
        (59 * minute + 59 * second, "59min left"),
        (hour + 5 * minute + 30 * second, "1h 5min left"),
        (-(5 * hour + 59 * minute), "5h 59min ago"),
        (6 * hour + 59 * minute, "6h left"),
        (25 * hour - 1, "24h left"),
        (25 * hour + 59 * minute, "1 day 1h left"),
        (-(2 * day + 23 * hour), "2 days ago"),
        (6 * day + 23 * hour, "6 days left"),
        (8 * day, "1 week 1 day left"),
        (-(20 * day), "2 weeks 6 days ago"),
        (40 * day, "1 month 9 days left"),
        (400 * day, "1 year 1 month left"),
        (-(3 * 365 * day + 2 * day), "3 years 0 months ago"),
    ]

    @Test(arguments: table) func roundsAsSystemctl(_ offset: Int64, _ expected: String) {
        #expect(TimeFormat.relative(Self.now + offset, now: Self.now) == expected)
    }

    @Test func unsetIsNotApplicable() {
        #expect(TimeFormat.relative(nil, now: Self.now) == "n/a")
    }

    /// Against systemd 252 itself: `systemd-analyze timestamp @T` prints "From now:" with the same
    /// function list-timers uses. systemd-analyze reads its clock somewhere between the test's
    /// readings before and after it ran: what it says must be what jobctl says of one of them
    /// (the same for all, unless a loaded machine let the process straddle a rounding step).
    @Test func matchesSystemdAnalyze() throws {
        let analyze = try Requirement.tools("/usr/bin/systemd-analyze", for: "the comparison with systemd-analyze")
        let second = Self.second, minute = Self.minute, hour = Self.hour, day = Self.day
        let offsets: [Int64] = [
            -(30 * second + 500_000), 90 * second + 500_000, -(7 * minute + 30 * second), 2 * hour + 10 * minute + 30 * second,
            -(9 * hour + 30 * minute), 26 * hour + 30 * minute, -(3 * day + 12 * hour), 10 * day + 12 * hour,
            -(45 * day + 12 * hour), 500 * day + 12 * hour,
        ]
        for offset in offsets {
            let now = TimeFormat.nowUSec()
            let target = now + offset
            let process = Process()
            process.executableURL = URL(fileURLWithPath: analyze)
            process.arguments = ["timestamp", "@\(target / 1_000_000).\(String(format: "%06lld", target % 1_000_000))"]
            process.environment = ["TZ": "UTC", "PATH": "/usr/bin:/bin"]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let after = TimeFormat.nowUSec()
            let line = try #require(output.split(separator: "\n").first { $0.contains("From now:") }, "\(output)")
            let systemd = line.split(separator: ":", maxSplits: 1)[1].trimmingCharacters(in: .whitespaces)
            let ours = Set(stride(from: now, through: after, by: 10_000).map { TimeFormat.relative(target, now: $0) }
                + [TimeFormat.relative(target, now: after)])
            #expect(ours.contains(systemd), "offset \(offset): systemd \(systemd), jobctl \(ours)")
        }
    }
}
