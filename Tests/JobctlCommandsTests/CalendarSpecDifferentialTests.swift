import Foundation
import JobctlCommands
import JobctlReports
import Testing

@testable import JobdCalendar

/// Thousands of generated expressions, checked line for line against `systemd-analyze calendar`
/// (systemd 252): the same verdict (accepted or rejected), the same normalized form, and the same
/// five next elapses, in several time zones and around their DST changes.
@Suite struct CalendarSpecDifferentialTests {
    static let zones = [
        "UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata",
        // Negative DST: winter GMT is the "daylight" time (issue 20).
        "Europe/Dublin", "Africa/Casablanca",
    ]

    /// Base times: just before, at and after each 2026 offset change, and a few ordinary instants.
    static func baseTimes(in zone: TimeZoneRules, random: inout ExpressionGenerator.Random) -> [Int64] {
        var bases: [Int64] = []
        var cursor = RealtimeInstant(seconds: 1_767_225_600)  // 2026-01-01
        while let transition = zone.nextTransition(after: cursor), transition.seconds < 1_798_761_600 {
            bases.append(transition.seconds - Int64(random.int(in: 1...7200)))
            bases.append(transition.seconds - 1)
            bases.append(transition.seconds + Int64(random.int(in: 0...5400)))
            cursor = transition
        }
        while bases.count < 6 {
            bases.append(Int64(random.int(in: 1_767_225_600...1_861_920_000)))
        }
        return bases
    }

    @Test func matchesSystemdAnalyze() throws {
        guard try SystemdAnalyze.isAvailable(for: "CalendarSpecDifferentialTests.matchesSystemdAnalyze") else { return }
        var generator = ExpressionGenerator(seed: 0x6A6F_6264)
        var random = ExpressionGenerator.Random(state: 42)
        var checked = 0
        var rejected = 0
        for zoneName in Self.zones {
            let zone = try TimeZoneRules.load(named: zoneName)
            for base in Self.baseTimes(in: zone, random: &random) {
                let expressions = (0..<100).map { _ in generator.expression() }
                let run = try SystemdAnalyze.calendar(expressions, iterations: 5, baseTime: "@\(base)", timeZone: zoneName)
                let blocks = SystemdAnalyze.blocks(of: run.stdout, count: expressions.count)
                for (expression, block) in zip(expressions, blocks) {
                    let context = "TZ=\(zoneName) base=@\(base) expression='\(expression)'"
                    checked += 1
                    let report = CalendarReport.render(
                        [expression], now: RealtimeInstant(seconds: base), baseTime: RealtimeInstant(seconds: base),
                        zone: zone, iterations: 5)
                    guard let block else {
                        rejected += 1
                        let gaveUp = run.stderr.contains("Failed to determine next elapse for '\(expression)'")
                        if gaveUp {
                            #expect(report.errors.first?.hasPrefix("Failed to determine next elapse") == true, "\(context)")
                        } else {
                            #expect(!report.allValid, "systemd rejects, we accept: \(context)\n\(report.output)")
                        }
                        continue
                    }
                    let expected = block.filter { !$0.contains("From now:") }
                    let actual = report.output.split(separator: "\n").map(String.init).filter { !$0.contains("From now:") }
                    #expect(actual == expected, "\(context)\nerrors: \(report.errors)")
                }
            }
        }
        #expect(checked >= 2000)
        // The generator must exercise both verdicts.
        #expect(rejected > 200 && rejected < checked - 1000)
        print("Differential test: \(checked) expressions, \(rejected) rejected by systemd")
    }
}
