import Testing

@testable import JobdCalendar

/// Readable examples of systemd.time(7) calendar events; the differential suite covers the rest.
@Suite struct CalendarSpecTests {
    @Test(arguments: [
        ("Mon..Fri *-*-* 02:30", "Mon..Fri *-*-* 02:30:00"),
        ("daily", "*-*-* 00:00:00"),
        ("weekly", "Mon *-*-* 00:00:00"),
        ("quarterly", "*-01,04,07,10-01 00:00:00"),
        ("semiannually", "*-01,07-01 00:00:00"),
        ("Sat,Sun 12:00", "Sat,Sun *-*-* 12:00:00"),
        ("mon,tue,wed,fri 9:00", "Mon..Wed,Fri *-*-* 09:00:00"),
        ("*-*~03", "*-*~03 00:00:00"),
        ("*:0/15", "*-*-* *:00/15:00"),
        ("12-25 8:00:30.5 Europe/Berlin", "*-12-25 08:00:30.500000 Europe/Berlin"),
        ("26-1-1 utc", "2026-01-01 00:00:00 UTC"),
        ("@1700000000", "2023-11-14 22:13:20 UTC"),
    ])
    func normalizedForm(text: String, normalized: String) throws {
        #expect(try CalendarSpec.parse(text).normalized == normalized)
    }

    @Test(arguments: ["", "UTC", "bad", "25:00", "*-*-* 12:00 ", "Mon..", "Fri..Mon", "*-02-30..31/0", "*/5:00", "2200-01-01", "*-*~29"])
    func rejectsWhatSystemdRejects(text: String) {
        #expect(throws: CalendarError.self) { try CalendarSpec.parse(text) }
    }

    @Test func errorsNameTheExpressionAndThePosition() {
        #expect {
            try CalendarSpec.parse("Mon 12:xx")
        } throws: { error in
            guard let error = error as? CalendarError else { return false }
            return error.code == .invalidCalendarExpression && error.input == "Mon 12:xx" && error.column == 8
                && error.description.contains("a number")
        }
    }

    @Test func nextElapseAcrossTheSpringForwardGap() throws {
        let berlin = try TimeZoneRules.load(named: "Europe/Berlin")
        // systemd skips a time that does not exist that day.
        let spec = try CalendarSpec.parse("*-*-* 02:30")
        #expect(
            elapses(2, after: instant("2026-03-29 00:30:00 UTC"), in: berlin) { spec.nextElapse(after: $0, in: berlin) } == [
                "Mon 2026-03-30 02:30:00 CEST", "Tue 2026-03-31 02:30:00 CEST",
            ])
        // The expression's own zone wins over the local one.
        let tokyo = try CalendarSpec.parse("*-*-* 09:00 Asia/Tokyo")
        #expect(format(tokyo.nextElapse(after: instant("2026-03-29 00:30:00 UTC"), in: berlin), in: .utc) == "Mon 2026-03-30 00:00:00 UTC")
    }

    @Test func nextElapseIsStrictlyAfter() throws {
        let spec = try CalendarSpec.parse("*-*-* 12:00:00")
        let noon = instant("2026-06-01 12:00:00 UTC")
        #expect(spec.nextElapse(after: noon, in: .utc) == instant("2026-06-02 12:00:00 UTC"))
        #expect(spec.nextElapse(after: RealtimeInstant(microseconds: noon.microseconds - 1), in: .utc) == noon)
        #expect(try CalendarSpec.parse("2020-01-01").nextElapse(after: noon, in: .utc) == nil)
    }
}
