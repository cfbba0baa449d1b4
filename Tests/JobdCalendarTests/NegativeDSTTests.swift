import Testing

@testable import JobdCalendar

/// After a spring-forward where DST is negative (Europe/Dublin: IST is standard time, winter GMT
/// the "daylight" time), a wildcard hour runs in the first hour after the jump, as systemd 252
/// computes it (issue 20: jobd skipped it). The expected instants are systemd-analyze's; the
/// differential suite checks Europe/Dublin and Africa/Casablanca wholesale.
@Suite struct NegativeDSTTests {
    /// 2026-03-29 00:10 UTC (00:10 GMT): 01:00 UTC, when the clocks go to 02:00 IST, is next.
    static let base = RealtimeInstant(seconds: 1_774_743_000)

    @Test(arguments: ["Europe/Dublin", "IST-1GMT-0,M10.5.0/1,M3.5.0/1"])
    func wildcardHoursRunInTheFirstHourAfterTheJump(zoneName: String) throws {
        let zone = TimeZoneRules.current(environment: ["TZ": zoneName])
        #expect(zone.offset(at: Self.base) == 0, "GMT before the jump")
        let cases: [(String, Int64)] = [
            ("hourly", 1_774_746_000),  // 02:00 IST
            ("*:30", 1_774_744_200),  // 00:30 GMT, then 02:30 IST below
            ("*:0/20", 1_774_743_600),  // 00:20 GMT, 00:40 GMT, then 02:00 IST
        ]
        for (expression, expected) in cases {
            let spec = try CalendarSpec.parse(expression)
            #expect(spec.nextElapse(after: Self.base, in: zone) == RealtimeInstant(seconds: expected), "\(zoneName) \(expression)")
        }
        let halfPast = try CalendarSpec.parse("*:30")
        #expect(halfPast.nextElapse(after: RealtimeInstant(seconds: 1_774_744_200), in: zone) == RealtimeInstant(seconds: 1_774_747_800),
                "02:30 IST follows 00:30 GMT")
        let third = try CalendarSpec.parse("*:0/20")
        #expect(third.nextElapse(after: RealtimeInstant(seconds: 1_774_744_800), in: zone) == RealtimeInstant(seconds: 1_774_746_000),
                "02:00 IST follows 00:40 GMT")
    }
}
