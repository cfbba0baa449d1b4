import JobdCalendar
import Testing

/// The forms jobctl writes besides systemd's own: `logs`' short time and `audit`'s times, and the
/// local reading they are made from, on both sides of a daylight saving change.
@Suite struct TimestampFormatTests {
    static let berlin = try! TimeZoneRules.load(named: "Europe/Berlin")

    @Test func localReadingsAcrossTheFallBack() {
        // 2026-10-25 00:30 UTC is 02:30 CEST; an hour later the clock reads 02:30 again, CET.
        let first = instant("2026-10-25 00:30:00.250 UTC")
        let second = instant("2026-10-25 01:30:00 UTC")
        #expect(Self.berlin.localDateTime(at: first) == LocalDateTime(year: 2026, month: 10, day: 25, hour: 2, minute: 30))
        #expect(Self.berlin.localDateTime(at: second) == LocalDateTime(year: 2026, month: 10, day: 25, hour: 2, minute: 30))
        #expect(LocalDateTime(year: 2026, month: 10, day: 25).weekday == 0)
        #expect(TimestampFormat.dateTimeMilliseconds(first, in: Self.berlin) == "2026-10-25 02:30:00.250")
        #expect(TimestampFormat.dateTimeMilliseconds(first, in: .utc) == "2026-10-25 00:30:00.250")
        #expect(TimestampFormat.shortTimestamp(first, in: Self.berlin) == "Oct 25 02:30:00")
        #expect(TimestampFormat.shortTimestamp(instant("2026-01-02 03:04:05 UTC"), in: .utc) == "Jan 02 03:04:05")
    }
}
