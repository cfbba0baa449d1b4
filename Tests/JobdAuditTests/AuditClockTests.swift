import Foundation
import JobdAudit
import Testing

@Suite struct AuditClockTests {
    let clock = AuditClock()  // UTC
    let now: UInt64 = 1_700_000_000_000_000

    @Test func epochSeconds() throws {
        #expect(try clock.parse("@1700000000", nowUSec: now) == 1_700_000_000_000_000)
        #expect(try clock.parse("@1700000000.25", nowUSec: now) == 1_700_000_000_250_000)
    }

    @Test func dateAndTimeInTheClocksZone() throws {
        #expect(try clock.parse("2023-11-14 22:13:20", nowUSec: now) == 1_700_000_000_000_000)
        #expect(try clock.parse("2023-11-14 22:13", nowUSec: now) == 1_699_999_980_000_000)
        #expect(try clock.parse("2023-11-14", nowUSec: now) == 1_699_920_000_000_000)
        let berlin = AuditClock(timeZone: TimeZone(identifier: "Europe/Berlin")!)
        #expect(try berlin.parse("2023-11-14 23:13:20", nowUSec: now) == 1_700_000_000_000_000)
    }

    @Test func relativeToNow() throws {
        #expect(try clock.parse("-1h", nowUSec: now) == now - 3_600_000_000)
        #expect(try clock.parse("-30min", nowUSec: now) == now - 1_800_000_000)
        #expect(try clock.parse("-90s", nowUSec: now) == now - 90_000_000)
        #expect(try clock.parse("-90", nowUSec: now) == now - 90_000_000)
        #expect(try clock.parse("-2d", nowUSec: now) == now - 172_800_000_000)
    }

    @Test(arguments: ["yesterday", "2023-02-31 00:00:00", "2023-11-14 25:00:00", "@x", "-1 fortnight", "", "2023-11"])
    func rejectsOtherForms(_ text: String) {
        #expect(throws: AuditError.self) { try clock.parse(text, nowUSec: now) }
    }

    @Test func describesTimesAndSpans() {
        #expect(clock.describe(realtimeUSec: 1_700_000_000_123_456) == "2023-11-14 22:13:20.123")
        #expect(AuditClock.seconds(5_000_000) == "5s")
        #expect(AuditClock.seconds(250_000) == "0.25s")
        #expect(AuditClock.seconds(3_723_000_000) == "1h 2min 3s")
    }
}
