import JobdConfig
import JobdFleet
import Testing

@Suite struct LeaseScheduleTests {
    @Test func beatsEveryThirdOfTheLease() {
        #expect(LeaseSchedule(leaseMicroseconds: 30_000_000, maxSkewMicroseconds: 0).beatInterval == .seconds(10))
        #expect(LeaseSchedule(leaseMicroseconds: 3_000_000, maxSkewMicroseconds: 0).beatInterval == .seconds(1))
        #expect(LeaseSchedule(leaseMicroseconds: 30_000, maxSkewMicroseconds: 0).beatInterval == .milliseconds(100))
    }

    @Test func reconnectionBacksOffToAThirdOfTheLease() {
        let schedule = LeaseSchedule(leaseMicroseconds: 30_000_000, maxSkewMicroseconds: 0)
        #expect((1...7).map { schedule.reconnectDelay(afterFailures: $0) }
                == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10)])
        #expect(LeaseSchedule(leaseMicroseconds: 600_000_000, maxSkewMicroseconds: 0).reconnectDelay(afterFailures: 100) == .seconds(30))
    }

    @Test func clockOffsetIsMeasuredAgainstTheMiddleOfTheRoundTrip() {
        #expect(LeaseSchedule.clockOffset(database: 1_000_500, localBefore: 1_000_000, localAfter: 1_000_200) == 400)
        #expect(LeaseSchedule.clockOffset(database: 999_000, localBefore: 1_000_000, localAfter: 1_000_000) == -1_000)
        let schedule = LeaseSchedule(leaseMicroseconds: 1, maxSkewMicroseconds: 500_000)
        #expect(schedule.acceptsSkew(500_000) && schedule.acceptsSkew(-500_000))
        #expect(!schedule.acceptsSkew(500_001) && !schedule.acceptsSkew(-600_000))
        // A slow round trip makes the reading uncertain: only a node surely too far off is refused.
        #expect(schedule.acceptsSkew(600_000, uncertainty: 100_000) && !schedule.acceptsSkew(600_001, uncertainty: 100_000))
    }

    /// A failover's skipped elapse: at a beat it gets its row only once no node can still claim it
    /// (a lease and twice the skew after it); when jobd stops, at once, young or not, since no
    /// later beat of this node would write it (`jobctl audit --fleet` found such an elapse unclaimed).
    @Test func aSkippedElapseIsRecordedOnceNoNodeCanClaimItOrWhenJobdStops() {
        let schedule = LeaseSchedule(leaseMicroseconds: 3_000_000, maxSkewMicroseconds: 2_000_000)
        let elapse: Int64 = 100_000_000
        #expect(!schedule.recordsSkip(of: elapse, now: elapse + 1_000_000, stopping: false))
        #expect(!schedule.recordsSkip(of: elapse, now: elapse + 7_000_000, stopping: false))
        #expect(schedule.recordsSkip(of: elapse, now: elapse + 7_000_001, stopping: false))
        #expect(schedule.recordsSkip(of: elapse, now: elapse + 1_000_000, stopping: true))
        #expect(schedule.recordsSkip(of: elapse, now: elapse - 1_000_000, stopping: true), "even one this node's clock has not reached")
    }

    /// A fence fires `MaxClockSkewSec=` before the lease ends, at least 200 ms (twice the
    /// supervisor's look) and at most a third of the lease (renewals come every third).
    @Test func aFenceFiresTheMarginBeforeTheLeaseEnds() {
        #expect(LeaseSchedule(leaseMicroseconds: 3_000_000, maxSkewMicroseconds: 500_000).fenceDeadline(sentAt: 1_000_000) == 3_500_000)
        #expect(LeaseSchedule(leaseMicroseconds: 3_000_000, maxSkewMicroseconds: 2_000_000).fenceMarginMicroseconds == 1_000_000)
        #expect(LeaseSchedule(leaseMicroseconds: 30_000_000, maxSkewMicroseconds: 0).fenceMarginMicroseconds == 200_000)
        #expect(LeaseSchedule(leaseMicroseconds: 30_000_000, maxSkewMicroseconds: 2_000_000).fenceDeadline(sentAt: 0) == 28_000_000)
    }
}
