import InMemoryLogging
import JobdConfig
import JobdControl
import JobdDaemon
import JobdHandover
import JobdScheduler
import JobdTestKit
import Logging
import Testing
import UnixSignals
import JobdHost

/// Issue 36: a jobd that is killed or crashes with runs in flight loses none of them: each run is
/// kept as in flight in the state directory from its start to its end, and the next jobd records
/// every run left there as abandoned.
@Suite struct AbandonedRunTests {
    typealias H = DaemonHarness

    @Test func aRunIsKeptAsInFlightFromItsStartToItsEnd() throws {
        let daemon = H([H.job("a")])
        daemon.control(.run, "a")
        let kept = try #require(daemon.store.runs.withLock { Array($0.values) }.first)
        #expect(kept.job == "a" && kept.cause == "manual")
        #expect(kept.invocationID == daemon.running("a").first?.request.invocationID)
        daemon.end("a")
        #expect(daemon.store.runs.withLock { $0.isEmpty })
    }

    @Test func theNextJobdRecordsARunLeftInFlightAsAbandonedAndStartsOnFailure() throws {
        let store = FakeStore()
        store.runStarted(RunInFlightRecord(invocationID: "0123abcd", job: "backup", cause: "timer",
                                           startUSec: DaemonHarness.wallStart - 60_000_000))
        store.runStarted(RunInFlightRecord(invocationID: "4567abcd", job: "gone", cause: "timer", startUSec: DaemonHarness.wallStart))
        let daemon = H([H.job("backup") { $0.onFailure = ["alert"] }, H.job("alert")], store: store)
        let entry = try #require(daemon.events("run.abandoned", job: "backup").first)
        #expect(entry.metadata["JOBD_RUN_ID"] == .string("0123abcd"))
        #expect(entry.metadata["JOBD_RESULT"] == .string("abandoned"))
        #expect(daemon.events("run.abandoned", job: "gone").count == 1, "a run of a job that is gone is recorded too")
        let history = try #require(daemon.scheduler.histories["backup"]?.lastRun)
        #expect(history.result == .abandoned && history.invocationID == "0123abcd" && history.duration == .seconds(60))
        #expect((daemon.store.histories.withLock { $0["backup"] } ?? nil)?.lastRun?.result == .abandoned, "saved")
        let alert = try #require(daemon.started("alert").first)
        #expect(alert.request.cause == .onFailure)
        #expect(alert.request.triggeredBy?.result == .abandoned)
        #expect(daemon.store.runs.withLock { Array($0.keys) } == [alert.request.invocationID], "each abandoned run is forgotten once recorded")
        #expect(daemon.scheduler.generation.owners["backup"] != nil)
        #expect(daemon.started("backup").isEmpty, "no Restart= retry and no run at start")
    }

    /// Issue 37: a user's job's run is hers in the journal by uid (`JOBD_JOB_UID=`, what her
    /// `jobctl --user logs` selects), from its wait to its record as abandoned by the next jobd.
    @Test func aUsersRunIsHersInTheJournalFromItsWaitToItsRecordAsAbandoned() throws {
        let job = H.job("alice:a", overlap: .queue) { $0.owningUID = 1000 }
        let daemon = H([job, H.job("a")])
        daemon.control(.run, "alice:a")
        daemon.control(.run, "alice:a")
        let wait = try #require(daemon.events("run.wait", job: "alice:a").first)
        #expect(wait.metadata["JOBD_JOB_UID"] == .string("1000"))
        daemon.control(.run, "a")
        let kept = daemon.store.runs.withLock { Array($0.values) }
        let mine = try #require(kept.first { $0.job == "alice:a" })
        #expect(mine.owningUID == 1000 && kept.first { $0.job == "a" }?.owningUID == nil)
        #expect(RunInFlightRecord(savedText: Substring(mine.savedText), invocationID: mine.invocationID) == mine)
        let store = FakeStore()
        for run in kept { store.runStarted(run) }
        let next = H([job, H.job("a")], store: store)
        let abandoned = try #require(next.events("run.abandoned", job: "alice:a").first)
        #expect(abandoned.metadata["JOBD_JOB_UID"] == .string("1000"))
        #expect(next.events("run.abandoned", job: "a").first?.metadata["JOBD_JOB_UID"] == nil)
    }

    @Test func anAbandonedRunIsAFailureThatNoRestartRetries() {
        #expect(RunResult.abandoned.isFailure)
        for condition in RestartPolicy.Condition.allCases { #expect(!condition.retries(.abandoned), "\(condition)") }
        let outcome = RunInFlightRecord(invocationID: "ab", job: "j", cause: "timer", startUSec: 1_000_000).outcome(nowUSec: 3_000_000)
        #expect(outcome.termination == .unknown && outcome.duration == .seconds(2))
        let saved = RunInFlightRecord(savedText: Substring(RunInFlightRecord(invocationID: "ab", job: "j", cause: "timer",
                                                                               startUSec: 7).savedText), invocationID: "ab")
        #expect(saved == RunInFlightRecord(invocationID: "ab", job: "j", cause: "timer", startUSec: 7))
    }
}

/// Issue 36: a restart hands the runs over instead of stopping them, and the next jobd adopts each
/// run whose process lives on (the same pid and start time), recording its real end.
@Suite struct HandoverTests {
    typealias H = DaemonHarness

    static func store(process: ProcessIdentity?) -> FakeStore {
        let store = FakeStore()
        store.runStarted(RunInFlightRecord(invocationID: "0123abcd", job: "backup", cause: "timer",
                                           startUSec: DaemonHarness.wallStart - 60_000_000, process: process))
        return store
    }

    @Test func aRunWhoseProcessLivesOnIsAdoptedAndItsRealEndRecorded() throws {
        let daemon = H([H.job("backup") { $0.onFailure = ["alert"] }, H.job("alert")],
                       store: Self.store(process: ProcessIdentity(pid: 4242, startTicks: 99))) { context in
            context.processStartTicks = { $0 == 4242 ? 99 : nil }
        }
        let adopted = try #require(daemon.running("backup").first)
        #expect(adopted.request.invocationID == "0123abcd" && daemon.events("run.abandoned").isEmpty)
        #expect(daemon.running().count == 1)
        daemon.end("backup", .exited(7))
        #expect(daemon.scheduler.histories["backup"]?.lastRun?.result == .exitCode)
        #expect(daemon.started("alert").first?.request.triggeredBy?.invocationID == "0123abcd")
    }

    @Test func aRunWhosePidNowNamesAnotherProcessIsAbandoned() {
        let daemon = H([H.job("backup")], store: Self.store(process: ProcessIdentity(pid: 4242, startTicks: 99))) { context in
            context.processStartTicks = { $0 == 4242 ? 100 : nil }
        }
        #expect(daemon.running("backup").isEmpty)
        #expect(daemon.events("run.abandoned", job: "backup").count == 1)
    }

    @Test func aRestartLeavesEveryRunRunningAndAStopStopsThem() {
        let exits = Guarded(0)
        let restart = H([H.job("backup")]) { context in
            context.stopKind = { .handover }
            context.exitAfterHandover = { exits.withLock { $0 += 1 } }
        }
        restart.control(.run, "backup")
        restart.send(.signal(.sigterm))
        #expect(restart.launcher.stops.withLock { $0.isEmpty }, "no run is stopped")
        #expect(exits.withLock { $0 } == 1 && restart.ended)
        #expect(restart.events("jobd.handover").first?.metadata["JOBD_RUN_COUNT"] == "0", "the fake launcher hands none over")
        #expect(restart.scheduler.liveOwners == 0, "every owner is released, as at a stop")

        let stop = H([H.job("backup")])
        stop.control(.run, "backup")
        stop.send(.signal(.sigterm))
        #expect(stop.launcher.stops.withLock { $0.map(\.job) } == [nil], "a stop stops every run")
        #expect(stop.events("jobd.handover").isEmpty)
    }
}

/// Issue 39: a burst of runs gives its memory back as it drains, once; runs a few at a time never trim.
@Suite struct BurstTrimTests {
    typealias H = DaemonHarness

    @Test func aDrainedBurstTrimsAsItHalvesAndAFewRunsNever() {
        let daemon = H([H.job("a", overlap: .parallel)])
        for _ in 0..<3 { daemon.control(.run, "a") }
        for _ in 0..<3 { daemon.end("a") }
        #expect(daemon.trims.withLock { $0 } == 0)
        for _ in 0..<100 { daemon.control(.run, "a") }
        for _ in 0..<49 { daemon.end("a") }
        #expect(daemon.trims.withLock { $0 } == 0, "51 of 100 still in flight")
        daemon.end("a")
        #expect(daemon.trims.withLock { $0 } == 1, "half of the peak left")
        for _ in 0..<49 { daemon.end("a") }
        #expect(daemon.trims.withLock { $0 } == 1, "50 is below the threshold: no more halvings")
        daemon.end("a")
        #expect(daemon.trims.withLock { $0 } == 2, "the burst's last run")
    }

    /// The decision alone: at which runs in flight a burst of `peak` runs trims as it drains.
    @Test(arguments: [(peak: 63, trims: [Int]()), (64, [32, 0]), (100, [50, 0]), (1_000, [500, 250, 125, 62, 0]),
                      (6_000, [3_000, 1_500, 750, 375, 187, 93, 46, 0])])
    func aBurstTrimsAtEachHalvingAndAtItsEnd(_ burst: (peak: Int, trims: [Int])) {
        var trim = BurstTrim()
        for _ in 0..<burst.peak { trim.started() }
        var trimmedAt: [Int] = []
        for _ in 0..<burst.peak where trim.ended() { trimmedAt.append(trim.inFlight) }
        #expect(trimmedAt == burst.trims)
    }

    /// Runs that start while a burst drains count towards the level it halves from.
    @Test func runsStartedWhileABurstDrainsMoveTheLevelUp() {
        var trim = BurstTrim()
        for _ in 0..<100 { trim.started() }
        let first = (0..<50).map { _ in trim.ended() }
        #expect(first == Array(repeating: false, count: 49) + [true], "50 left of 100")
        for _ in 0..<50 { trim.started() }
        let second = (0..<50).map { _ in trim.ended() }
        #expect(second == Array(repeating: false, count: 49) + [true], "50 left of a level of 100 again")
    }
}
