import JobdCalendar
import JobdConfig
import JobdScheduler
import JobdTestKit
import JobdTimers
import Testing

/// The run admission's part in fleet jobs: a started run whose elapse was not claimed leaves as a
/// skip (and frees what waited for it), and a run another node lost is retried here under `Restart=`.
@Suite struct FleetAdmissionTests {
    typealias T = RunAdmissionTests
    static let elapse = RealtimeInstant(seconds: 1_800_000_000)

    static func fleetJob(_ overlap: OverlapPolicy = .skip, restart: RestartPolicy.Condition = .no, limit: UInt64 = 3) -> JobDefinition {
        T.job("report", overlap) {
            $0.triggers = [.calendar(try! CalendarSpec.parse("*:*:00"))]
            $0.runOn = .oneNode
            $0.restart.condition = restart
            $0.restart.limit = limit
        }
    }

    @Test func aTimerRunCarriesTheElapseAndItsRetryKeepsIt() throws {
        var admission = T.admission([Self.fleetJob(restart: .onFailure)])
        let run = try #require(T.started(admission.due(job: "report", now: T.at(0), elapse: Self.elapse)).first)
        #expect(run.scheduledElapse == Self.elapse)
        let retry = admission.runEnded(T.end(run, .exitCode), now: T.at(1)).actions
        guard case .retry(let request, _, _) = try #require(retry.first) else { Issue.record("no retry: \(retry)"); return }
        #expect(request.scheduledElapse == Self.elapse)
        #expect(request.attempt == 1)
    }

    /// Each row: the job's `Overlap=`, `MaxConcurrentRuns=`, and whether a second run waits behind
    /// the one whose claim fails; what must follow the declined start.
    static let declined: [(OverlapPolicy, Int?, String)] = [
        (.skip, nil, "claimed-by node-b"),
        (.queue, nil, "fleet-unavailable"),
        (.parallel, 1, "clock-skew"),
    ]

    @Test(arguments: declined)
    func aDeclinedStartIsASkipAndWhatWaitedStarts(overlap: OverlapPolicy, max: Int?, reason: String) throws {
        var admission = T.admission([Self.fleetJob(overlap)], max: max)
        let first = try #require(T.started(admission.due(job: "report", now: T.at(0), elapse: Self.elapse)).first)
        let second = admission.due(job: "report", now: T.at(1), elapse: Self.elapse)
        let waits = second.contains { if case .wait = $0 { true } else { false } }
        let actions = admission.startDeclined(job: "report", runID: first.runID, reason: reason, now: T.at(2))
        #expect(actions.first == .skip(first, reason: reason))
        #expect(T.started(actions).count == (waits ? 1 : 0))
        #expect(admission.running == (waits ? 1 : 0))
        #expect(admission.pendingRetry(of: "report") == nil)
        // Declining again (a late verdict) changes nothing.
        #expect(admission.startDeclined(job: "report", runID: first.runID, reason: reason, now: T.at(3)).isEmpty)
    }

    /// Each row: `Restart=`, `RestartLimit=`, the lost run's attempt; whether this node retries it.
    static let lost: [(RestartPolicy.Condition, UInt64, UInt64, Bool)] = [
        (.no, 3, 0, false),
        (.onFailure, 3, 0, true),
        (.onAbnormal, 3, 2, true),
        (.onAbort, 3, 0, false),
        (.onFailure, 3, 3, false),
    ]

    @Test(arguments: lost)
    func aRunLostElsewhereIsRetriedHereUnderRestart(condition: RestartPolicy.Condition, limit: UInt64, attempt: UInt64, retried: Bool) throws {
        var admission = T.admission([Self.fleetJob(restart: condition, limit: limit)])
        let actions = admission.lostElsewhere(job: "report", elapse: Self.elapse, attempt: attempt, now: T.at(0))
        #expect(actions.count == (retried ? 1 : 0))
        guard retried else { return }
        guard case .retry(let request, let at, _) = actions[0] else { Issue.record("\(actions)"); return }
        #expect(request.attempt == attempt + 1 && request.scheduledElapse == Self.elapse && request.cause == .retry)
        let started = T.started(admission.retriesDue(now: at))
        #expect(started.map(\.runID) == [request.runID])
    }

    @Test func nothingIsRetriedForAJobThisNodeDoesNotHaveOrWhileStopping() {
        var admission = T.admission([Self.fleetJob(restart: .onFailure)])
        #expect(admission.lostElsewhere(job: "other", elapse: Self.elapse, attempt: 0, now: T.at(0)).isEmpty)
        _ = admission.shutdown()
        #expect(admission.lostElsewhere(job: "report", elapse: Self.elapse, attempt: 0, now: T.at(0)).isEmpty)
    }
}
