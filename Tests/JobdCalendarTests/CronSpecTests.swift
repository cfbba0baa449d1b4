import Testing

@testable import JobdCalendar

/// Cron schedules against a written-down reference: crontab(5) as shipped with Debian's cron
/// (3.0pl1 with Debian's patches), and that cron's behaviour around DST changes.
@Suite struct CronSpecTests {
    let utc = TimeZoneRules.utc
    let berlin = try! TimeZoneRules.load(named: "Europe/Berlin")

    func next(_ text: String, after start: String, in zone: TimeZoneRules, count: Int = 3) throws -> [String] {
        let spec = try CronSpec.parse(text)
        return elapses(count, after: instant(start, in: zone), in: zone) { spec.nextElapse(after: $0, in: zone) }
    }

    // crontab(5): "If both fields are restricted (i.e., do not start with *), the command will be
    // run when either field matches the current time. For example, "30 4 1,15 * 5" would cause a
    // command to be run at 4:30 am on the 1st and 15th of each month, plus every Friday."
    @Test func eitherDayFieldMatchesWhenBothAreRestricted() throws {
        #expect(
            try next("30 4 1,15 * 5", after: "2026-05-01 05:00:00 UTC", in: utc, count: 4) == [
                "Fri 2026-05-08 04:30:00 UTC", "Fri 2026-05-15 04:30:00 UTC", "Fri 2026-05-22 04:30:00 UTC",
                "Fri 2026-05-29 04:30:00 UTC",
            ])
        #expect(
            try next("30 4 1,15 * 5", after: "2026-06-01 00:00:00 UTC", in: utc, count: 3) == [
                "Mon 2026-06-01 04:30:00 UTC", "Fri 2026-06-05 04:30:00 UTC", "Fri 2026-06-12 04:30:00 UTC",
            ])
        // A day-of-month list that covers every day makes the weekday irrelevant.
        #expect(
            try next("0 0 1-31 * 1", after: "2026-06-01 00:00:00 UTC", in: utc, count: 2) == [
                "Tue 2026-06-02 00:00:00 UTC", "Wed 2026-06-03 00:00:00 UTC",
            ])
    }

    // A field starting with '*' counts as unrestricted, even with a step: then both must match.
    @Test func starStepInADayFieldRequiresBothFields() throws {
        // Odd days of the month that are also Mondays.
        #expect(
            try next("0 0 */2 * 1", after: "2026-06-01 00:00:00 UTC", in: utc, count: 3) == [
                "Mon 2026-06-15 00:00:00 UTC", "Mon 2026-06-29 00:00:00 UTC", "Mon 2026-07-13 00:00:00 UTC",
            ])
        #expect(
            try next("0 0 * * 1", after: "2026-06-01 00:00:00 UTC", in: utc, count: 2) == [
                "Mon 2026-06-08 00:00:00 UTC", "Mon 2026-06-15 00:00:00 UTC",
            ])
        #expect(
            try next("0 12 13 * */7", after: "2026-01-01 00:00:00 UTC", in: utc, count: 2) == [
                "Sun 2026-09-13 12:00:00 UTC", "Sun 2026-12-13 12:00:00 UTC",
            ])
    }

    // crontab(5): names are the first three letters, case does not matter; 0 and 7 are Sunday.
    @Test func namesAndSevenForSunday() throws {
        #expect(try CronSpec.parse("0 9 * jan,JUL Mon-fri").normalized == "0 9 * 1,7 1-5")
        #expect(try CronSpec.parse("0 0 * * 7").normalized == "0 0 * * 0")
        #expect(try CronSpec.parse("0 0 * * 5-7").normalized == "0 0 * * 0,5,6")
        #expect(
            try next("0 0 * * 7", after: "2026-06-01 00:00:00 UTC", in: utc, count: 2) == [
                "Sun 2026-06-07 00:00:00 UTC", "Sun 2026-06-14 00:00:00 UTC",
            ])
        #expect(
            try next("0 9 * jul sat", after: "2026-01-01 00:00:00 UTC", in: utc, count: 2) == [
                "Sat 2026-07-04 09:00:00 UTC", "Sat 2026-07-11 09:00:00 UTC",
            ])
    }

    // crontab(5): "Step values can be used in conjunction with ranges."
    @Test func rangesWithSteps() throws {
        #expect(try CronSpec.parse("0-30/10 1-10/3 * * *").normalized == "0,10,20,30 1,4,7,10 * * *")
        #expect(try CronSpec.parse("*/15 * * * *").normalized == "*/15 * * * *")
        #expect(try CronSpec.parse("*/1 */1 * * *").normalized == "* * * * *")
        #expect(
            try next("0-30/10 1-10/3 * * *", after: "2026-06-01 01:25:00 UTC", in: utc, count: 3) == [
                "Mon 2026-06-01 01:30:00 UTC", "Mon 2026-06-01 04:00:00 UTC", "Mon 2026-06-01 04:10:00 UTC",
            ])
    }

    @Test func shorthands() throws {
        #expect(try CronSpec.parse("@reboot") == .reboot)
        #expect(try CronSpec.parse("@reboot").nextElapse(after: instant("2026-01-01 00:00:00 UTC"), in: utc) == nil)
        let expanded = [
            "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
            "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
        ]
        for (shorthand, fields) in expanded {
            #expect(try CronSpec.parse(shorthand).normalized == fields, "\(shorthand)")
        }
        #expect(
            try next("@weekly", after: "2026-06-01 00:00:00 UTC", in: utc, count: 1) == ["Sun 2026-06-07 00:00:00 UTC"])
    }

    @Test(arguments: [
        "60 * * * *", "* 24 * * *", "* * 0 * *", "* * 32 * *", "* * * 13 *", "* * * * 8", "5-1 * * * *",
        "*/0 * * * *", "5/2 * * * *", "* * * *", "* * * * * *", "* * * january *", "* * * * mon/2",
        "1,,2 * * * *", "@every", "@Daily", "",
    ])
    func rejectsWhatCronRejects(text: String) {
        #expect(throws: CalendarError.self) { try CronSpec.parse(text) }
    }

    @Test func errorsSayWhereAndWhat() {
        #expect {
            try CronSpec.parse("0 25 * * *")
        } throws: { error in
            guard let error = error as? CalendarError else { return false }
            return error.code == .invalidCronExpression && error.column == 3
                && error.description.contains("hour")
        }
    }

    // Debian's cron, crontab(5) "Daylight Saving Time": "If time was adjusted one hour forward,
    // those jobs that would have run in the interval that has been skipped will be run
    // immediately. Conversely, if time was adjusted backward, running the same job twice is
    // avoided." This applies to fixed-time jobs; jobs whose minute or hour field starts with '*'
    // run as the clock says. Europe/Berlin skips 02:00-03:00 on 2026-03-29 and repeats 02:00-03:00
    // on 2026-10-25.
    @Test func fixedTimeJobInSkippedHourRunsRightAfterTheJump() throws {
        #expect(
            try next("30 2 * * *", after: "2026-03-29 00:00:00 UTC", in: berlin, count: 2) == [
                "Sun 2026-03-29 03:00:00 CEST", "Mon 2026-03-30 02:30:00 CEST",
            ])
        // Two skipped times run together, once.
        #expect(
            try next("15,45 2 * * *", after: "2026-03-28 23:00:00 UTC", in: berlin, count: 2) == [
                "Sun 2026-03-29 03:00:00 CEST", "Mon 2026-03-30 02:15:00 CEST",
            ])
    }

    @Test func fixedTimeJobInRepeatedHourRunsOnce() throws {
        #expect(
            try next("30 2 * * *", after: "2026-10-24 22:00:00 UTC", in: berlin, count: 2) == [
                "Sun 2026-10-25 02:30:00 CEST", "Mon 2026-10-26 02:30:00 CET",
            ])
        // Starting inside the second pass does not run it either.
        #expect(
            try next("45 2 * * *", after: "2026-10-25 01:10:00 UTC", in: berlin, count: 1) == [
                "Mon 2026-10-26 02:45:00 CET"
            ])
    }

    @Test func wildcardJobsFollowTheClock() throws {
        // Spring: nothing runs in the skipped hour, no catching up.
        #expect(
            try next("30 * * * *", after: "2026-03-29 00:30:00 UTC", in: berlin, count: 2) == [
                "Sun 2026-03-29 03:30:00 CEST", "Sun 2026-03-29 04:30:00 CEST",
            ])
        // Autumn: both passes of the repeated hour run.
        #expect(
            try next("*/20 * * * *", after: "2026-10-25 00:30:00 UTC", in: berlin, count: 5) == [
                "Sun 2026-10-25 02:40:00 CEST", "Sun 2026-10-25 02:00:00 CET", "Sun 2026-10-25 02:20:00 CET",
                "Sun 2026-10-25 02:40:00 CET", "Sun 2026-10-25 03:00:00 CET",
            ])
        #expect(try CronSchedule(fields: "30 * * * *", original: "").isWildcard)
        #expect(try !CronSchedule(fields: "30 2 * * *", original: "").isWildcard)
    }

    // Found by the fuzzer (scripts/fuzz cron): a restricted field that covers every value
    // normalized to `*`, which changed its meaning: `02 * 5 * 0-7` runs every day (either day field
    // matches, and 0-7 is every weekday), `2 * 5 * *` only on the 5th. A full minute or hour field
    // written without `*` likewise keeps a job fixed-time for the DST rules.
    @Test(arguments: [
        ("02 * 5 * 0-7", "2 * 5 * 0-6"),
        ("0 0 1-31 * 1", "0 0 1-31 * 1"),
        ("0-59 2 * * *", "0-59 2 * * *"),
        ("30 0-23 * * *", "30 0-23 * * *"),
        ("*/1 * 1-31 1-12 0-7", "* * 1-31 * 0-6"),
    ])
    func aFullRestrictedFieldStaysRestrictedWhenNormalized(text: String, normalized: String) throws {
        let spec = try CronSpec.parse(text)
        #expect(spec.normalized == normalized)
        let again = try CronSpec.parse(spec.normalized)
        for zone in [utc, berlin] {
            for start in ["1970-01-01 00:00:00 UTC", "2026-03-29 00:30:00 UTC", "2026-10-25 00:30:00 UTC"] {
                let base = instant(start, in: zone)
                #expect(
                    elapses(5, after: base, in: zone) { again.nextElapse(after: $0, in: zone) }
                        == elapses(5, after: base, in: zone) { spec.nextElapse(after: $0, in: zone) },
                    "\(text) after \(start) in \(zone.identifier)")
            }
        }
    }

    // Found by the fuzzer (scripts/fuzz cron): a wildcard job whose every match falls in a skipped
    // hour (March 31 a Sunday at 02:xx: always the EU's spring-forward) recursed once per matching
    // year until the stack overflowed, which would have crashed jobd.
    @Test(arguments: ["* 2 31 3 */7", "* 2 31 3 */32", "* 2 25-31 3 */7"])
    func aWildcardJobThatOnlyMatchesSkippedHoursNeverElapses(text: String) throws {
        #expect(try next(text, after: "2026-01-01 00:00:00 UTC", in: berlin, count: 1) == ["never"])
        #expect(try next(text, after: "2026-01-01 00:00:00 UTC", in: utc, count: 1) != ["never"])
    }

    @Test func impossibleDatesNeverElapse() throws {
        #expect(try next("0 0 30 2 *", after: "2026-01-01 00:00:00 UTC", in: utc, count: 1) == ["never"])
        #expect(
            try next("0 0 29 2 *", after: "2026-01-01 00:00:00 UTC", in: utc, count: 2) == [
                "Tue 2028-02-29 00:00:00 UTC", "Sun 2032-02-29 00:00:00 UTC",
            ])
    }
}
