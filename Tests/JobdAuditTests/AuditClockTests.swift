import Foundation
import JobdAudit
import Testing

@Suite struct AuditClockTests {
    let clock = AuditClock()  // UTC

    @Test func describesTimesAndSpans() {
        #expect(clock.describe(realtimeUSec: 1_700_000_000_123_456) == "2023-11-14 22:13:20.123")
        #expect(AuditClock.seconds(5_000_000) == "5s")
        #expect(AuditClock.seconds(250_000) == "0.25s")
        #expect(AuditClock.seconds(3_723_000_000) == "1h 2min 3s")
    }
}
