import JobdHandover
import Testing

/// What a starting jobd does with the fleet claims and fences an earlier jobd left (issue 36).
@Suite struct ClaimCarryOverTests {
    static let claim = HeldClaim(node: "node-a", elapseUSec: 1_700_000_000_000_000, attempt: 1)

    static func record(_ runID: String, claim: HeldClaim? = ClaimCarryOverTests.claim) -> RunInFlightRecord {
        RunInFlightRecord(invocationID: runID, job: "report", cause: "timer", startUSec: 7,
                          process: ProcessIdentity(pid: 300, startTicks: 55), claim: claim)
    }

    @Test func aRecordWithItsClaimReadsBackTheSameAndAnOlderRecordHasNone() {
        let record = Self.record("r1")
        #expect(RunInFlightRecord(savedText: Substring(record.savedText), invocationID: "r1") == record)
        #expect(record.savedText.contains("claim_node=node-a\n") && record.savedText.contains("claim_attempt=1\n"))
        // A record of a jobd before the claim was kept, or one cut short: no claim, the rest as before.
        #expect(RunInFlightRecord(savedText: "job=report\ncause=timer\nstart=7\npid=300\nstart_ticks=55\n", invocationID: "r1")?.claim == nil)
        #expect(RunInFlightRecord(savedText: "job=report\nclaim_node=node-a\nclaim_elapse=x\n", invocationID: "r1")?.claim == nil)
    }

    @Test func anAdoptedRunKeepsItsClaimAndItsFenceAndEveryOtherFenceGoes() {
        let decision = ClaimCarryOver.decide(runs: [(Self.record("r1"), true)], node: "node-a",
                                             fences: ["r1", "r1.stopped", "r9", "r9.stopped", ".r9.tmp"])
        #expect(decision.kept == ["r1": Self.claim])
        #expect(decision.released.isEmpty && decision.unreachable.isEmpty)
        #expect(decision.removedFences == [".r9.tmp", "r9", "r9.stopped"])
    }

    @Test func aRunNotFollowedHasItsClaimEndedAndItsFenceRemoved() {
        let decision = ClaimCarryOver.decide(runs: [(Self.record("r1"), false), (Self.record("r2", claim: nil), false)],
                                             node: "node-a", fences: ["r1"])
        #expect(decision.released == ["r1": Self.claim])
        #expect(decision.kept.isEmpty)
        #expect(decision.removedFences == ["r1"])
    }

    @Test(arguments: [String?.some("node-b"), nil])
    func aClaimOfAnotherNodeOrWithNoFleetCannotBeRenewedAndItsFenceGoes(node: String?) {
        let decision = ClaimCarryOver.decide(runs: [(Self.record("r1"), true)], node: node, fences: ["r1"])
        #expect(decision.unreachable == ["r1": Self.claim])
        #expect(decision.kept.isEmpty && decision.released.isEmpty)
        #expect(decision.removedFences == ["r1"])
    }
}
