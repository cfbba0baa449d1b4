import Testing

@testable import JobdCalendar

/// `--base-time` values as `systemd-analyze` reads them.
@Suite struct BaseTimeTests {
    @Test func baseTimeForms() throws {
        let berlin = try TimeZoneRules.load(named: "Europe/Berlin")
        let now = instant("2026-06-10 15:20:00 UTC")
        func base(_ text: String) throws -> String {
            format(try BaseTime.parse(text, now: now, zone: berlin), in: berlin)
        }
        #expect(try base("now") == "Wed 2026-06-10 17:20:00 CEST")
        #expect(try base("today") == "Wed 2026-06-10 00:00:00 CEST")
        #expect(try base("tomorrow") == "Thu 2026-06-11 00:00:00 CEST")
        #expect(try base("yesterday") == "Tue 2026-06-09 00:00:00 CEST")
        #expect(try base("@1774745999") == "Sun 2026-03-29 01:59:59 CET")
        #expect(try base("2026-03-29 00:30:00 UTC") == "Sun 2026-03-29 01:30:00 CET")
        #expect(try base("2026-12-24 18:00") == "Thu 2026-12-24 18:00:00 CET")
        #expect(try base("2026-12-24 18:00 America/New_York") == "Fri 2026-12-25 00:00:00 CET")
        #expect(try base("Thu 2026-12-24") == "Thu 2026-12-24 00:00:00 CET")
        #expect(try base("+1h 30min") == "Wed 2026-06-10 18:50:00 CEST")
        #expect(try base("2 days ago") == "Mon 2026-06-08 17:20:00 CEST")
        #expect(throws: CalendarError.self) { try BaseTime.parse("Fri 2026-12-24", now: now, zone: berlin) }
        #expect(throws: CalendarError.self) { try BaseTime.parse("soon", now: now, zone: berlin) }
    }
}
