import Testing

@testable import JobdCalendar

/// `Cron=` with a zone, as cronie schedules a job under `CRON_TZ=` (issue 29): at each real
/// minute the fields are matched against the zone's wall clock (cronie's `find_jobs`), so a time
/// the zone skips never runs and a time it repeats runs twice; while the local zone repeats an
/// hour, only wildcard jobs of other zones run. Expected times are written out in UTC and in the
/// job's zone.
@Suite struct CronZoneTests {
    let utc = TimeZoneRules.utc
    let berlin = try! TimeZoneRules.load(named: "Europe/Berlin")
    let newYork = try! TimeZoneRules.load(named: "America/New_York")

    func next(_ text: String, after start: String, local: TimeZoneRules, shownIn zone: TimeZoneRules, count: Int) throws -> [String] {
        let spec = try CronSpec.parse(text)
        return elapses(count, after: instant(start), in: zone) { spec.nextElapse(after: $0, in: local) }
    }

    @Test func theZoneIsReadAndWrittenBack() throws {
        #expect(try CronSpec.parse("0 6 * * * Europe/Berlin").normalized == "0 6 * * * Europe/Berlin")
        #expect(try CronSpec.parse("@daily\tAmerica/New_York").normalized == "0 0 * * * America/New_York")
        #expect(try CronSpec.parse("0 6 * * * UTC").normalized == "0 6 * * * UTC")
        #expect(try CronSpec.parse("0 6 * * * Europe/Berlin") != CronSpec.parse("0 6 * * *"))
        #expect(throws: CalendarError.self) { try CronSpec.parse("0 6 * * * Europe/Nowhere") }
        #expect(throws: CalendarError.self) { try CronSpec.parse("0 6 * * * ../../etc/passwd") }
        #expect(throws: CalendarError.self) { try CronSpec.parse("@reboot Europe/Berlin") }
        #expect(throws: CalendarError.self) { try CronSpec.parse("0 6 * * * mon") }
    }

    // Berlin springs forward on 2026-03-29 at 01:00 UTC (02:00 CET to 03:00 CEST): 02:30 does not
    // exist that day, and cronie never sees it, whatever jobd's own zone.
    @Test func aTimeTheZoneSkipsDoesNotRun() throws {
        let expected = ["Sat 2026-03-28 01:30:00 UTC", "Mon 2026-03-30 00:30:00 UTC", "Tue 2026-03-31 00:30:00 UTC"]
        #expect(try next("30 2 * * * Europe/Berlin", after: "2026-03-28 00:00:00 UTC", local: utc, shownIn: utc, count: 3) == expected)
        #expect(try next("30 2 * * * Europe/Berlin", after: "2026-03-28 00:00:00 UTC", local: berlin, shownIn: utc, count: 3) == expected)
        #expect(try next("30 2 * * * Europe/Berlin", after: "2026-03-28 00:00:00 UTC", local: utc, shownIn: berlin, count: 3) == [
            "Sat 2026-03-28 02:30:00 CET", "Mon 2026-03-30 02:30:00 CEST", "Tue 2026-03-31 02:30:00 CEST",
        ])
        // A wildcard job too: 02:00-02:59 Berlin time does not exist that day.
        #expect(try next("*/20 2 * * * Europe/Berlin", after: "2026-03-28 23:00:00 UTC", local: utc, shownIn: berlin, count: 2) == [
            "Mon 2026-03-30 02:00:00 CEST", "Mon 2026-03-30 02:20:00 CEST",
        ])
    }

    // Berlin falls back on 2026-10-25 at 01:00 UTC (03:00 CEST to 02:00 CET): 02:30 happens twice.
    @Test func aTimeTheZoneRepeatsRunsTwice() throws {
        #expect(try next("30 2 * * * Europe/Berlin", after: "2026-10-24 00:00:00 UTC", local: utc, shownIn: berlin, count: 4) == [
            "Sat 2026-10-24 02:30:00 CEST", "Sun 2026-10-25 02:30:00 CEST", "Sun 2026-10-25 02:30:00 CET", "Mon 2026-10-26 02:30:00 CET",
        ])
        #expect(try next("30 2 * * * Europe/Berlin", after: "2026-10-24 00:00:00 UTC", local: utc, shownIn: utc, count: 4) == [
            "Sat 2026-10-24 00:30:00 UTC", "Sun 2026-10-25 00:30:00 UTC", "Sun 2026-10-25 01:30:00 UTC", "Mon 2026-10-26 01:30:00 UTC",
        ])
    }

    // With jobd's own zone Berlin too, the second 02:30 falls while the local clock repeats its
    // hour (01:00-02:00 UTC): cronie runs only wildcard jobs of a CRON_TZ then.
    @Test func whileTheLocalZoneRepeatsAnHourOnlyWildcardJobsRun() throws {
        #expect(try next("30 2 * * * Europe/Berlin", after: "2026-10-24 00:00:00 UTC", local: berlin, shownIn: utc, count: 3) == [
            "Sat 2026-10-24 00:30:00 UTC", "Sun 2026-10-25 00:30:00 UTC", "Mon 2026-10-26 01:30:00 UTC",
        ])
        #expect(try next("*/30 2 * * * Europe/Berlin", after: "2026-10-24 23:00:00 UTC", local: berlin, shownIn: utc, count: 5) == [
            "Sun 2026-10-25 00:00:00 UTC", "Sun 2026-10-25 00:30:00 UTC", "Sun 2026-10-25 01:00:00 UTC", "Sun 2026-10-25 01:30:00 UTC",
            "Mon 2026-10-26 01:00:00 UTC",
        ])
        // New York's 21:30 on 24 October 2026 (EDT) is 01:30 UTC, inside Berlin's repeated hour:
        // under a Berlin clock cronie skips it, under a UTC clock it runs; in 2027 Berlin falls
        // back a week later.
        #expect(try next("30 21 24 10 * America/New_York", after: "2026-10-24 00:00:00 UTC", local: berlin, shownIn: utc, count: 1) == [
            "Mon 2027-10-25 01:30:00 UTC",
        ])
        #expect(try next("30 21 24 10 * America/New_York", after: "2026-10-24 00:00:00 UTC", local: utc, shownIn: utc, count: 1) == [
            "Sun 2026-10-25 01:30:00 UTC",
        ])
    }

    // New York springs forward on 2026-03-08 (02:00 EST to 03:00 EDT), three weeks before Berlin:
    // a job at 09:00 New York time moves from 14:00 to 13:00 UTC, and Berlin's local time does not
    // matter to it.
    @Test func anotherZonesScheduleFollowsThatZone() throws {
        #expect(try next("0 9 * * 1-5 America/New_York", after: "2026-03-05 00:00:00 UTC", local: berlin, shownIn: utc, count: 3) == [
            "Thu 2026-03-05 14:00:00 UTC", "Fri 2026-03-06 14:00:00 UTC", "Mon 2026-03-09 13:00:00 UTC",
        ])
        #expect(try next("0 9 * * 1-5 America/New_York", after: "2026-03-05 00:00:00 UTC", local: berlin, shownIn: newYork, count: 3) == [
            "Thu 2026-03-05 09:00:00 EST", "Fri 2026-03-06 09:00:00 EST", "Mon 2026-03-09 09:00:00 EDT",
        ])
    }

    @Test func aScheduleThatNeverMatchesNeverElapses() throws {
        #expect(try next("0 0 30 2 * Europe/Berlin", after: "2026-01-01 00:00:00 UTC", local: utc, shownIn: utc, count: 1) == ["never"])
    }
}
