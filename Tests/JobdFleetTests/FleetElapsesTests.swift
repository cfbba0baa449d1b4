import JobdCalendar
import JobdFleet
import Testing

/// `jobctl audit --fleet --elapses` (issue 40): per elapse in a window, ran once / skipped (why) /
/// ran twice / not claimed, over planted claims tables.
@Suite struct FleetElapsesTests {
    typealias A = FleetAuditTests

    static func elapses(_ claims: [ClaimRecord], expected: [Int64], window: ClosedRange<Int64> = 0 ... 100) -> FleetElapses {
        FleetElapses(claims: claims, expected: ["report": expected.map(A.at)], window: A.at(window.lowerBound) ... A.at(window.upperBound))
    }

    @Test func eachElapseSaysWhatCameOfIt() {
        var unavailable = A.claim(4, result: FleetDatabase.skippedResult)
        unavailable.endedAt = A.at(4)
        let report = Self.elapses(
            [A.claim(0), A.claim(1, node: "b", result: "exit-code"), A.claim(1, attempt: 1, node: "a"),
             A.claim(2, lost: true), A.claim(2, attempt: 1, node: "b"), unavailable, A.claim(5), A.claim(5, attempt: 1, node: "b"),
             A.claim(6, result: nil), A.claim(200)],
            expected: [0, 1, 2, 3, 4, 5, 6])
        let outcomes = report.elapses.map(\.outcome)
        #expect(report.elapses.map(\.elapse) == [0, 1, 2, 3, 4, 5, 6].map(A.at), "the window's elapses, in order; 200 is outside it")
        #expect(outcomes[0] == .ranOnce(node: "a", result: "success", retried: []))
        #expect(outcomes[1] == .ranOnce(node: "a", result: "success", retried: [A.claim(1, node: "b", result: "exit-code")]))
        #expect(outcomes[2] == .ranOnce(node: "b", result: "success", retried: [A.claim(2, lost: true)]))
        #expect(outcomes[3] == .unclaimed)
        #expect(outcomes[4] == .skipped(reason: "fleet-unavailable"))
        #expect(outcomes[5] == .ranTwice([A.claim(5), A.claim(5, attempt: 1, node: "b")]), "a second run after a success")
        #expect(outcomes[6] == .ranOnce(node: "a", result: nil, retried: []), "in flight")
        #expect(report.ranTwice)

        let text = report.text(in: .utc)
        #expect(text.contains("report  ran once on a (success), after attempt 0 on b: exit-code"), "\(text)")
        #expect(text.contains("report  not claimed by any node") && text.contains("report  skipped (fleet-unavailable)"), "\(text)")
        #expect(text.contains("report  RAN 2 TIMES: attempt 0 on a (run r5.0): success; attempt 1 on b (run r5.1): success"), "\(text)")
    }

    /// Two attempts at the same time are a double run even when the first failed.
    @Test func aRetryWhileTheFirstAttemptRanRanTwice() {
        var first = A.claim(0, result: "exit-code")
        first.endedAt = A.at(30)
        let report = Self.elapses([first, A.claim(0, attempt: 1, node: "b")], expected: [0])
        #expect(report.ranTwice, "\(report.elapses)")
        #expect(!Self.elapses([A.claim(0)], expected: [0]).ranTwice)
        #expect(Self.elapses([], expected: []).text(in: .utc) == "no elapse of a fleet job in the window\n")
    }
}
