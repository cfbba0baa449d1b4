import Foundation
import JobctlCommands
import JobctlReports
import Testing

@testable import JobdCalendar

/// Seconds lists that include `0/1` print as `*` in systemd 252 (its `chain_is_star`), whatever
/// else the list holds (issue 20: `*:4,30:0/1,3,5` printed as `*:04,30:00/1,03,05`); lists without
/// a plain `0/1` keep their items. Checked against a table and against `systemd-analyze calendar`.
@Suite struct OverlappingListTests {
    static let table: [(String, String)] = [
        ("*:4,30:0/1,3,5", "*-*-* *:04,30:*"),
        ("*:*:0/1,3", "*-*-* *:*:*"),
        ("*:*:3,0/1", "*-*-* *:*:*"),
        ("*:*:0/1,5..7", "*-*-* *:*:*"),
        ("*:*:00/1,3.5", "*-*-* *:*:*"),
        ("*:*:0/1,0/2", "*-*-* *:*:*"),
        ("*:*:1/1,0/1", "*-*-* *:*:*"),
        ("Mon *:*:0/1,4", "Mon *-*-* *:*:*"),
        ("*-*-* *:*:0/1 UTC", "*-*-* *:*:* UTC"),
        // Relatives that stay lists: a range, a fractional repeat or start, hours and minutes.
        ("*:*:0..59/1,3", "*-*-* *:*:00..59,03"),
        ("*:*:0/1.5,3", "*-*-* *:*:00/1.500000,03"),
        ("*:*:0.5/1,3", "*-*-* *:*:00.500000/1,03"),
        ("*:0/1,3:0/1", "*-*-* *:00/1,03:*"),
        ("0/1:0/1:0/1", "*-*-* 00/1:00/1:*"),
    ]

    @Test(arguments: table)
    func normalizedFormAsSystemdPrintsIt(text: String, normalized: String) throws {
        #expect(try CalendarSpec.parse(text).normalized == normalized)
    }

    @Test func theWholeReportMatchesSystemdAnalyze() throws {
        guard try SystemdAnalyze.isAvailable(for: "OverlappingListTests.theWholeReportMatchesSystemdAnalyze") else { return }
        let expressions = Self.table.map(\.0)
        let base: Int64 = 1_774_743_000
        for zoneName in ["UTC", "Europe/Berlin"] {
            let zone = try TimeZoneRules.load(named: zoneName)
            let run = try SystemdAnalyze.calendar(expressions, iterations: 5, baseTime: "@\(base)", timeZone: zoneName)
            let blocks = SystemdAnalyze.blocks(of: run.stdout, count: expressions.count)
            for (expression, block) in zip(expressions, blocks) {
                let report = CalendarReport.render(
                    [expression], now: RealtimeInstant(seconds: base), baseTime: RealtimeInstant(seconds: base),
                    zone: zone, iterations: 5)
                let expected = (block ?? []).filter { !$0.contains("From now:") }
                let actual = report.output.split(separator: "\n").map(String.init).filter { !$0.contains("From now:") }
                #expect(actual == expected, "TZ=\(zoneName) '\(expression)'")
            }
        }
    }
}
