import JobdCalendar
import JobdFleet
import Testing

/// The fleet audit over planted claims tables: each problem it names, and silence where there is none.
@Suite struct FleetAuditTests {
    static let second: Int64 = 1_000_000
    static let lease = 3 * second
    static let t0 = RealtimeInstant(seconds: 1_800_000_000)
    static func at(_ seconds: Int64) -> RealtimeInstant { RealtimeInstant(microseconds: t0.microseconds + seconds * second) }

    /// A claim of attempt `attempt` of `elapse`, claimed 10 s per attempt after the elapse, ended a
    /// second later (or, lost, with its lease 3 s after its claim).
    static func claim(_ elapse: Int64, attempt: UInt64 = 0, node: String = "a", result: String? = "success",
                      lost: Bool = false, lease: Int64? = nil) -> ClaimRecord {
        let start = elapse + 10 * Int64(attempt)
        return ClaimRecord(key: ClaimKey(job: "report", elapse: at(elapse), attempt: attempt), node: node, runID: "r\(elapse).\(attempt)",
                           claimedAt: at(start), leaseUntil: at(lease ?? start + 3), endedAt: result == nil || lost ? nil : at(start + 1),
                           result: lost ? "lost" : result, lostAt: lost ? at(start + 4) : nil, lostBy: lost ? "b" : nil)
    }

    static let sessions = [
        NodeSession(node: "a", instance: "i1", startedAt: at(-10), heartbeatAt: at(100)),
        NodeSession(node: "b", instance: "i2", startedAt: at(-10), heartbeatAt: at(100)),
    ]

    static func audit(_ claims: [ClaimRecord], expected: [Int64] = [], now: Int64 = 100) -> FleetAudit {
        FleetAudit(claims: claims, sessions: sessions, expected: ["report": expected.map(at)], lease: lease, now: at(now))
    }

    @Test func aCleanFleet() {
        let audit = Self.audit([Self.claim(0), Self.claim(1, node: "b"), Self.claim(2, result: "exit-code"),
                                Self.claim(2, attempt: 1, node: "b"), Self.claim(3, lost: true), Self.claim(3, attempt: 1, node: "b")],
                               expected: [0, 1, 2, 3])
        #expect(audit.problems.isEmpty, "\(audit.problems)")
        #expect(audit.exitCode == 0 && audit.claims == 6 && audit.elapses == 4)
        #expect(audit.text.hasPrefix("fleet audit: 6 claim(s) of 4 elapse(s), 0 in flight, clean"))
    }

    @Test func aSecondRunOfAnElapseThatSucceededIsADuplicate() {
        let audit = Self.audit([Self.claim(0), Self.claim(0, attempt: 1, node: "b")])
        #expect(audit.exitCode == 1)
        guard case .claimedTwice(let second, let first)? = audit.problems.first else { Issue.record("\(audit.problems)"); return }
        #expect(second.node == "b" && first?.node == "a")
    }

    @Test func aRetryWithoutItsFirstAttemptIsADuplicate() {
        #expect(Self.audit([Self.claim(0, attempt: 2)]).exitCode == 1)
        #expect(Self.audit([Self.claim(0, result: "exit-code"), Self.claim(0, attempt: 2)]).exitCode == 1)
    }

    /// A run recorded lost whose node wrote its real end later: it ran until then, and its retry
    /// after that is clean; a retry that started before it is a double run, whatever the results.
    @Test func aLostRunThatEndedAfterItsRetryStartedRanTwice() {
        var lostThenEnded = Self.claim(0, lost: true)
        lostThenEnded.runEndedAt = Self.at(9)
        lostThenEnded.runResult = "lost"
        let retry = Self.claim(0, attempt: 1, node: "b")
        #expect(Self.audit([lostThenEnded, retry]).problems.isEmpty)
        lostThenEnded.runEndedAt = Self.at(11)
        lostThenEnded.runResult = "success"
        let audit = Self.audit([lostThenEnded, retry])
        #expect(audit.problems == [.ranAtOnce(lostThenEnded, retry)], "\(audit.problems)")
        #expect(audit.text.contains("double run: ") && audit.text.contains("while attempt 1 ran on b"), "\(audit.text)")
    }

    /// Without its real end, a lost run counts until its lease ended (its fence stopped it by then).
    @Test func aLostRunWithoutItsEndRanUntilItsLeaseEnded() {
        let lost = Self.claim(0, lost: true, lease: 8)
        #expect(Self.audit([lost, Self.claim(0, attempt: 1, node: "b")]).problems.isEmpty)
        let lapsedLate = Self.claim(0, lost: true, lease: 12)
        let retry = Self.claim(0, attempt: 1, node: "b")
        #expect(Self.audit([lapsedLate, retry]).problems == [.ranAtOnce(lapsedLate, retry)])
    }

    /// Overlap is a double run whatever the results: a retry of a failed run that began before the
    /// failure ended, and a run of an open claim beside a later attempt.
    @Test func overlappingAttemptsAreADoubleRunWhateverTheirResults() {
        var failed = Self.claim(0, result: "exit-code")
        failed.endedAt = RealtimeInstant(microseconds: Self.at(10).microseconds + 500_000)
        let retry = Self.claim(0, attempt: 1, node: "b", result: "exit-code")
        #expect(Self.audit([failed, retry]).problems == [.ranAtOnce(failed, retry)])
        let open = Self.claim(0, result: nil, lease: 99)
        let audit = Self.audit([open, Self.claim(0, attempt: 1, node: "b")])
        #expect(audit.problems.contains(.ranAtOnce(open, Self.claim(0, attempt: 1, node: "b"))), "\(audit.problems)")
    }

    @Test func anOpenClaimIsInFlightUntilALeaseAfterItsLeaseLapsed() {
        let open = Self.claim(90, result: nil, lease: 95)
        let running = Self.audit([open], now: 97)
        #expect(running.exitCode == 0 && running.inFlight == [open])
        let abandoned = Self.audit([open], now: 99)
        #expect(abandoned.problems == [.unfinished(open)])
    }

    /// The elapses of an outage, recorded skipped when the nodes reached the database again: counted,
    /// not a problem, not unclaimed; a run of one of them after all would be a second run.
    @Test func elapsesSkippedWhileTheDatabaseWasUnavailableAreCountedNotProblems() {
        let audit = Self.audit([Self.claim(0), Self.claim(1, result: "fleet-unavailable"), Self.claim(2, node: "b", result: "fleet-unavailable"),
                                Self.claim(3)], expected: [0, 1, 2, 3])
        #expect(audit.problems.isEmpty && audit.skipped == 2, "\(audit.problems)")
        #expect(audit.text.hasPrefix("fleet audit: 4 claim(s) of 4 elapse(s), 0 in flight, 2 skipped while the database was unavailable, clean"))
        #expect(Self.audit([Self.claim(1, result: "fleet-unavailable"), Self.claim(1, attempt: 1, node: "b")]).exitCode == 1)
    }

    @Test func anElapseNobodyClaimedWhileNodesWereAlive() {
        let audit = Self.audit([Self.claim(0)], expected: [0, 1, 99])
        // 99 is within a lease of the last heartbeat (100): the nodes may have died before it.
        #expect(audit.problems == [.unclaimed(job: "report", elapse: Self.at(1), aliveNodes: ["a", "b"])])
        #expect(audit.text.contains("unclaimed elapse: report at"))
    }
}
