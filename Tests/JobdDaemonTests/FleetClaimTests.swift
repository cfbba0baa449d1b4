import JobdCalendar
import JobdConfig
import JobdControl
import JobdDaemon
import JobdFleet
import JobdHandover
import JobdRunner
import JobdScheduler
import JobdTimers
import JobdTestKit
import Testing
import UnixSignals

/// `RunOn=one-node` jobs through the main loop: a timer run starts only once this node claimed its
/// elapse, and the fleet's answer may come late, after a stop, a reload or another run.
@Suite struct FleetClaimTests {
    typealias H = DaemonHarness

    /// Every minute, on one node of the fleet.
    static func fleetJob(_ name: String = "report", _ configure: (inout JobDefinition) -> Void = { _ in }) -> JobDefinition {
        H.job(name) {
            $0.triggers = [.calendar(try! CalendarSpec.parse("*:*:00"))]
            $0.runOn = .oneNode
            configure(&$0)
        }
    }

    @Test func aFleetJobClaimsItsElapseBeforeItStarts() throws {
        let daemon = H([Self.fleetJob()], fleet: "n1")
        let fleet = try #require(daemon.fleet)
        daemon.advance(.seconds(60))
        #expect(daemon.started().isEmpty, "nothing starts before the claim is answered")
        let claim = try #require(fleet.claims.withLock { $0.first })
        #expect(claim.key.job == "report")
        #expect(claim.key.elapse == RealtimeInstant(microseconds: H.wallStart + 60_000_000))
        fleet.answer(.won(token: 1))
        daemon.pump()
        let run = try #require(daemon.running("report").first)
        #expect(run.fields["NODE"] == "n1" || run.fields.values.contains("n1"))
        #expect(daemon.control(.status, "report").responses.first?.jobStatus?.lastNode == "n1")
    }

    /// A claimed run starts with its fence and its claim's fencing token (`JOBD_FENCE`, issue 40);
    /// a host job's run and a run by hand have neither.
    @Test func onlyAClaimedRunIsFenced() throws {
        let daemon = H([Self.fleetJob(), Self.fleetJob("host") { $0.runOn = .everyNode }], fleet: "n1")
        daemon.advance(.seconds(60))
        daemon.fleet?.answer(.won(token: 41))
        daemon.pump()
        let report = try #require(daemon.running("report").first)
        #expect(report.fence?.path == "/run/fleet.invalid/fence/" + report.request.invocationID)
        #expect(report.context["JOBD_FENCE"] == "41")
        let host = try #require(daemon.running("host").first)
        #expect(host.fence == nil && host.context["JOBD_FENCE"] == nil)
    }

    /// Issue 36: a claimed run's in-flight record names its claim, for the jobd after a crash or a
    /// handover (which writes the same record).
    @Test func aClaimedRunsInFlightRecordNamesItsClaim() throws {
        let daemon = H([Self.fleetJob()], fleet: "n1")
        daemon.advance(.seconds(60))
        daemon.fleet?.answer(.won(token: 1))
        daemon.pump()
        let run = try #require(daemon.running("report").first)
        let record = daemon.store.runs.withLock { $0[run.request.invocationID] }
        #expect(record?.claim == HeldClaim(node: "n1", elapseUSec: H.wallStart + 60_000_000, attempt: 0))
    }

    /// Issue 36: the next jobd follows a fleet run whose process lives on under its claim (the run
    /// keeps its elapse and attempt, and its claim and fence are carried over); a run it cannot
    /// follow has its claim released.
    @Test(arguments: [true, false])
    func anAdoptedFleetRunKeepsItsClaimAndAnAbandonedOneReleasesIt(alive: Bool) throws {
        let claim = HeldClaim(node: "n1", elapseUSec: H.wallStart - 60_000_000, attempt: 2)
        let store = FakeStore()
        store.runStarted(RunInFlightRecord(invocationID: "0123abcd", job: "report", cause: "retry", startUSec: H.wallStart - 30_000_000,
                                           process: ProcessIdentity(pid: 4242, startTicks: 99), claim: claim))
        let daemon = H([Self.fleetJob()], fleet: "n1", store: store) { context in
            context.processStartTicks = { $0 == 4242 && alive ? 99 : nil }
        }
        let carried = try #require(daemon.fleet?.carried.withLock { $0.first })
        #expect(carried.kept == (alive ? ["0123abcd": claim] : [:]))
        #expect(carried.released == (alive ? [:] : ["0123abcd": claim]))
        #expect(daemon.running("report").first.map { ($0.request.scheduledElapse?.microseconds, $0.request.attempt) }
                    .map { $0.0 == claim.elapseUSec && $0.1 == 2 } ?? !alive)
        // Followed with its fence: stopped by it, the adopted run ends lost, as a run of this jobd's.
        #expect(daemon.running("report").first?.fence?.path == (alive ? "/run/fleet.invalid/fence/0123abcd" : nil))
    }

    @Test func anElapseAnotherNodeClaimedIsSkipped() {
        let daemon = H([Self.fleetJob()], fleet: "n1")
        daemon.advance(.seconds(60))
        daemon.fleet?.answer(.taken(by: "n2"))
        daemon.pump()
        #expect(daemon.started().isEmpty)
        #expect(daemon.skipReasons("report") == ["claimed-by n2"])
        #expect(daemon.control(.status, "report").responses.first?.jobStatus?.lastNode == "n2")
    }

    @Test func anUnavailableDatabaseSkipsTheRunAndTheNextElapseClaimsAgain() {
        let daemon = H([Self.fleetJob()], fleet: "n1")
        daemon.advance(.seconds(60))
        daemon.fleet?.answer(.unavailable(reason: "fleet-unavailable"))
        daemon.pump()
        #expect(daemon.skipReasons("report") == ["fleet-unavailable"])
        daemon.advance(.seconds(60))
        #expect(daemon.fleet?.claims.withLock { $0.count } == 1, "the next minute is claimed")
    }

    @Test func withoutAFleetAFleetJobIsSkippedAndAHostJobRuns() {
        let daemon = H([Self.fleetJob(), Self.fleetJob("host") { $0.runOn = .everyNode }])
        daemon.advance(.seconds(60))
        #expect(daemon.skipReasons("report") == ["no-fleet"])
        #expect(daemon.started().map(\.request.job) == ["host"])
    }

    @Test func aRunByHandClaimsNothing() {
        let daemon = H([Self.fleetJob()], fleet: "n1")
        #expect(daemon.control(.run, "report").kinds == [.runStarted])
        #expect(daemon.fleet?.claims.withLock { $0.isEmpty } == true)
    }

    @Test func aClaimWonAfterJobdBeganToStopStartsNothingAndEndsTheClaim() {
        let daemon = H([Self.fleetJob()], fleet: "n1")
        daemon.advance(.seconds(60))
        daemon.send(.signal(.sigterm))
        #expect(!daemon.ended, "the claim in flight is waited for")
        daemon.fleet?.answer(.won(token: 1))
        daemon.pump()
        #expect(daemon.started().isEmpty)
        #expect(daemon.fleet?.finished.withLock { $0.map(\.result) } == [RunResult.stopped.rawValue])
        #expect(daemon.ended)
    }

    @Test func aClaimAnsweredLateStillHoldsOverlapForTheJob() {
        let daemon = H([Self.fleetJob()], fleet: "n1")
        daemon.advance(.seconds(60))
        #expect(daemon.control(.run, "report").kinds == [.runSkipped], "the claimed run counts as in flight")
        daemon.fleet?.answer(.won(token: 1))
        daemon.pump()
        #expect(daemon.running("report").count == 1)
    }

    @Test func aQueuedRunStartsWhenTheClaimIsLost() {
        let daemon = H([Self.fleetJob { $0.overlap = .queue }], fleet: "n1")
        daemon.advance(.seconds(60))
        #expect(daemon.control(.run, "report").kinds == [.runQueued])
        daemon.fleet?.answer(.taken(by: "n2"))
        daemon.pump()
        #expect(daemon.running("report").map(\.request.cause) == [.manual])
    }

    @Test func aClaimedRunsEndIsRecordedInTheFleet() {
        let daemon = H([Self.fleetJob()], fleet: "n1")
        daemon.advance(.seconds(60))
        daemon.fleet?.answer(.won(token: 1))
        daemon.pump()
        let invocation = daemon.running("report").first?.request.invocationID
        daemon.end("report", .exited(1))
        #expect(daemon.fleet?.finished.withLock { $0.map(\.runID) } == [invocation].compactMap { $0 })
        #expect(daemon.fleet?.finished.withLock { $0.map(\.result) } == [RunResult.exitCode.rawValue])
    }

    @Test func aRetryOfAFleetRunClaimsTheSameElapseAsTheNextAttempt() throws {
        let daemon = H([Self.fleetJob {
            $0.restart.condition = .onFailure
            $0.restart.delay = .seconds(1)
        }], fleet: "n1")
        daemon.advance(.seconds(60))
        daemon.fleet?.answer(.won(token: 1))
        daemon.pump()
        daemon.end("report", .exited(1))
        daemon.advance(.seconds(1))
        let retry = try #require(daemon.fleet?.claims.withLock { $0.first })
        #expect(retry.key.attempt == 1)
        #expect(retry.key.elapse == RealtimeInstant(microseconds: H.wallStart + 60_000_000))
    }
}

extension FleetClaimTests {
    @Test func aClaimWonAfterAReloadRemovedTheJobStartsNothingAndLetsJobdStop() {
        let other = H.job("other") { $0.triggers = [.startup(.seconds(3600))] }
        let daemon = H([Self.fleetJob(), other], fleet: "n1")
        daemon.advance(.seconds(60))
        daemon.reload([other])
        daemon.fleet?.answer(.won(token: 1))
        daemon.pump()
        #expect(daemon.started().isEmpty)
        #expect(daemon.skipReasons("report") == ["job-removed"])
        #expect(daemon.fleet?.finished.withLock { $0.map(\.result) } == [RunResult.stopped.rawValue], "the claim ends without a run")
        #expect(daemon.loop.status.hasPrefix("1 job(s), 0 running"))
        daemon.send(.signal(.sigterm))
        #expect(daemon.ended, "no run is left to wait for")
    }
}
