import Foundation
import JobctlCommands
import JobctlReports
import JobdCalendar
import Testing

/// `jobctl calendar`'s CalendarReport against what `systemd-analyze calendar` prints, captured live.
@Suite struct CalendarReportTests {
    static var realNow: RealtimeInstant {
        RealtimeInstant(microseconds: Int64(Date().timeIntervalSince1970 * 1_000_000))
    }

    func compare(
        _ expressions: [String], zone zoneName: String, iterations: Int, baseTime: String?, test: String
    ) throws {
        guard try SystemdAnalyze.isAvailable(for: test) else { return }
        let zone = try TimeZoneRules.load(named: zoneName)
        let now = Self.realNow
        let run = try SystemdAnalyze.calendar(expressions, iterations: iterations, baseTime: baseTime, timeZone: zoneName)
        let after = Self.realNow
        let base = try baseTime.map { try BaseTime.parse($0, now: now, zone: zone) }
        let report = CalendarReport.render(expressions, now: now, baseTime: base, zone: zone, iterations: iterations)
        // systemd-analyze read the clock at some instant between `now` and `after` (seconds apart on
        // a loaded machine): its "From now" must be ours at one of the seconds in between.
        let instants = stride(from: now.microseconds, through: after.microseconds, by: 1_000_000).map(RealtimeInstant.init(microseconds:))
            + [after]
        let matching = instants.contains { instant in
            CalendarReport.render(expressions, now: instant, baseTime: base, zone: zone, iterations: iterations).output == run.stdout
        }
        #expect(matching || report.output == run.stdout, "\(report.output) against systemd-analyze's \(run.stdout)")
        #expect(report.allValid == (run.status == 0))
        let failedExpressions = run.stderr.split(separator: "\n").filter { $0.hasPrefix("Failed to parse") }.count
        #expect(report.errors.count == failedExpressions)
    }

    /// Elapses placed in the middle of systemd's "From now" buckets, so the few milliseconds
    /// between our `now` and systemd's cannot change the text.
    @Test func fromNowPhrasesMatch() throws {
        let now = Self.realNow.seconds
        let offsets: [Int64] = [
            -40_000_000, -86_400 * 3 - 3600 * 5, -7200 - 1830, -330, -90, 30, 90, 330, 3600 + 1830, 7 * 3600 + 1800,
            86_400 + 3 * 3600 + 1800, 86_400 * 3 + 43_200, 86_400 * 10 + 43_200, 86_400 * 45 + 43_200,
            86_400 * 400 + 43_200, 86_400 * 800 + 43_200,
        ]
        let expressions = offsets.map { "@\(now + $0)" }
        try compare(expressions, zone: "Europe/Berlin", iterations: 1, baseTime: "@\(now - 50_000_000)", test: "fromNowPhrasesMatch")
    }

    @Test func blocksForSeveralExpressionsWithAnInvalidOneInBetween() throws {
        try compare(
            ["Mon..Fri *-*-* 02:30", "bad", "hourly", "*-*~01 12:00 Asia/Tokyo", "2020-01-01"],
            zone: "Europe/Berlin", iterations: 3, baseTime: "2026-03-29 00:30:00 UTC",
            test: "blocksForSeveralExpressionsWithAnInvalidOneInBetween")
    }

    @Test func universalZoneHasNoUTCLines() throws {
        try compare(
            ["*:0/20", "Sat *-*-* 18:00", "minutely"], zone: "UTC", iterations: 12, baseTime: "2026-10-25 00:30:00 UTC",
            test: "universalZoneHasNoUTCLines")
    }

    @Test func cronModeUsesCronSemantics() throws {
        let zone = TimeZoneRules.utc
        let now = RealtimeInstant(seconds: 1_781_104_800)  // 2026-06-10 15:20:00 UTC
        let report = CalendarReport.render(
            ["0 9 * jan,jul mon-fri", "@reboot", "61 * * * *"], now: now, zone: zone, iterations: 2, cron: true)
        #expect(
            report.output == """
                  Original form: 0 9 * jan,jul mon-fri
                Normalized form: 0 9 * 1,7 1-5
                    Next elapse: Wed 2026-07-01 09:00:00 UTC
                       From now: 2 weeks 6 days left
                       Iter. #2: Thu 2026-07-02 09:00:00 UTC
                       From now: 3 weeks 0 days left

                Normalized form: @reboot
                    Next elapse: never


                """)
        #expect(!report.allValid)
        #expect(report.errors == ["Failed to parse cron expression '61 * * * *': a value from 0 to 59, not 61 in the minute field at column 1"])
    }
}
