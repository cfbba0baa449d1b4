import JobdConfig
import JobdControl
import JobdDaemon
import JobdRunner
import JobdScheduler
import JobdTimers
import JobdTestKit
import Testing
import UnixSignals

/// `jobctl stop`, `disable`/`enable`, timers that fall due, and jobd's own stop, through the main loop.
@Suite struct StopAndLifecycleTests {
    typealias H = DaemonHarness

    /// Issue 37: jobd's own stop gives every run at most `StopTimeoutMaxSec=` (20 s by default, below
    /// jobd.service's 30 s) before SIGKILL, whatever its `TimeoutStopSec=`.
    @Test func jobdsStopBoundsEveryRunsStopByStopTimeoutMaxSec() {
        for (configured, expected) in [(nil, TimeSpan.seconds(20)), (TimeSpan.seconds(3), TimeSpan.seconds(3))] {
            var settings = DaemonSettings()
            if let configured { settings.stopTimeoutMax = configured }
            let daemon = H([H.job("a") { $0.stopTimeout = .infinity }], settings: settings)
            daemon.control(.run, "a")
            daemon.send(.signal(.sigterm))
            #expect(daemon.launcher.stops.withLock { $0.map(\.reason) } == [.shutdown])
            #expect(daemon.launcher.stopAllWithin.withLock { $0 } == expected)
        }
    }

    /// Issue 36: a run that jobd's own stop ends is recorded with its result, and the job's saved
    /// history is kept, not erased as if a reload had removed the job.
    @Test func aRunEndedByJobdsStopIsRecordedAndTheHistoryKept() throws {
        let daemon = H([H.job("a"), H.job("b")])
        daemon.control(.run, "a")
        daemon.end("a", .exited(0))
        daemon.control(.run, "a")
        daemon.send(.signal(.sigterm))
        #expect(daemon.launcher.stops.withLock { $0.map(\.reason) } == [.shutdown])
        daemon.end("a", .killed(signal: 15), stopped: .shutdown)
        let saved = try #require(daemon.store.histories.withLock { $0["a"] } ?? nil, "a's history was erased")
        #expect(saved.lastRun?.stopReason == .shutdown)
        #expect(saved.lastSuccessRealtime != nil, "the earlier success is still there")
        #expect(daemon.ended)
    }

    @Test func stopAsksTheLauncherToStopTheJobsRuns() {
        let daemon = H([H.job("a")])
        daemon.control(.run, "a")
        let reply = daemon.control(.stop, "a")
        #expect(daemon.launcher.stops.withLock { $0.map(\.job) } == ["a"])
        #expect(daemon.launcher.stops.withLock { $0.map(\.reason) } == [.requested])
        #expect(reply.kinds == [.stopRequested])
        #expect(reply.responses.first?.message == "1 run(s) of a asked to stop")
        #expect(reply.isFinished)
    }

    @Test func stopWaitAnswersWhenTheJobsLastRunEnds() {
        let daemon = H([H.job("a", overlap: .parallel)])
        daemon.control(.run, "a")
        daemon.control(.run, "a")
        let reply = daemon.control(.stop, "a", wait: true)
        daemon.end("a", .killed(signal: 15), stopped: .requested)
        #expect(!reply.isFinished, "one run is still in flight")
        daemon.end("a", .killed(signal: 15), stopped: .requested)
        #expect(reply.kinds == [.stopRequested, .stopFinished])
        #expect(reply.isFinished)
    }

    @Test func stopDropsTheQueuedRunAndTellsItsWaiter() {
        let daemon = H([H.job("a", overlap: .queue)])
        daemon.control(.run, "a")
        let queued = daemon.control(.run, "a", wait: true)
        daemon.control(.stop, "a")
        #expect(queued.kinds == [.runQueued, .runSkipped])
        #expect(queued.responses.last?.run?.skipReason == "stopped")
        daemon.end("a", .killed(signal: 15), stopped: .requested)
        #expect(daemon.started("a").count == 1, "the dropped run never starts")
    }

    @Test func stopOfAJobThatDoesNotExistIsAnError() {
        let daemon = H([H.job("a")])
        #expect(daemon.control(.stop, "nothing").responses.first?.message == "no such job: nothing")
    }

    @Test func aTimerJobRunsWhenItFallsDue() {
        let daemon = H([H.job("a") { $0.triggers = [.startup(.seconds(10))] }])
        daemon.advance(.seconds(9))
        #expect(daemon.started().isEmpty)
        daemon.advance(.seconds(1))
        #expect(daemon.started("a").map(\.request.cause) == [.timer])
        #expect(daemon.events("timer.fire", job: "a").count == 1)
    }

    @Test func aTimerThatFallsDueWhileTheJobRunsIsSkippedUnderOverlapSkip() {
        let daemon = H([H.job("a") { $0.triggers = [.startup(.seconds(1)), .startup(.seconds(2))] }])
        daemon.advance(.seconds(1))
        daemon.advance(.seconds(1))
        #expect(daemon.started("a").count == 1)
        #expect(daemon.skipReasons("a") == ["overlap"])
    }

    @Test func aDisabledJobsTimerStartsNothing() {
        let daemon = H([H.job("a") { $0.triggers = [.startup(.seconds(1))] }], disabled: ["a"])
        daemon.advance(.seconds(1))
        #expect(daemon.started().isEmpty)
        #expect(daemon.skipReasons("a") == ["disabled"])
        #expect(daemon.loop.status.contains("1 disabled"))
    }

    @Test func disableAndEnableAreKeptInTheStateStore() {
        let daemon = H([H.job("a")])
        let disabled = daemon.control(.disable, "a")
        #expect(disabled.kinds == [.jobDisabled])
        #expect(disabled.responses.first?.jobStatus?.disabled == true)
        #expect(daemon.store.disabled.withLock { $0 } == ["a"])
        #expect(daemon.events("job.disable", job: "a").count == 1)
        let enabled = daemon.control(.enable, "a")
        #expect(enabled.kinds == [.jobEnabled])
        #expect(enabled.responses.first?.jobStatus?.disabled == nil)
        #expect(daemon.store.disabled.withLock { $0 }.isEmpty)
    }

    @Test func aDisabledJobStillRunsByHand() {
        let daemon = H([H.job("a")], disabled: ["a"])
        #expect(daemon.control(.run, "a").kinds == [.runStarted])
    }

    @Test func disablingAJobThatDoesNotExistIsAnError() {
        let daemon = H([H.job("a")])
        #expect(daemon.control(.disable, "nothing").kinds == [.error])
        #expect(daemon.store.disabled.withLock { $0 }.isEmpty)
    }

    @Test func aStopSignalStopsEveryRunAndTheLoopEndsWithTheLast() {
        let daemon = H([H.job("a"), H.job("b")])
        daemon.control(.run, "a")
        daemon.control(.run, "b")
        daemon.send(.signal(.sigterm))
        #expect(daemon.launcher.stops.withLock { $0.map(\.reason) } == [.shutdown])
        #expect(!daemon.ended)
        #expect(daemon.events("daemon.stop").count == 1)
        daemon.end("a", .killed(signal: 15), stopped: .shutdown)
        #expect(!daemon.ended)
        daemon.end("b", .killed(signal: 15), stopped: .shutdown)
        #expect(daemon.ended)
    }

    @Test func aStopSignalWithNoRunEndsTheLoopAtOnce() {
        let daemon = H([H.job("a")])
        daemon.send(.signal(.sigint))
        #expect(daemon.ended)
    }

    @Test func stoppingAnswersEveryWaiterAndRefusesNewRequests() {
        let daemon = H([H.job("a", overlap: .queue)])
        let first = daemon.control(.run, "a", wait: true)
        let queued = daemon.control(.run, "a", wait: true)
        daemon.send(.signal(.sigterm))
        #expect(queued.responses.last?.run?.skipReason == "stopping")
        #expect(queued.isFinished)
        #expect(first.responses.last?.message == "jobd is stopping")
        #expect(first.isFinished)
        let late = daemon.control(.run, "a")
        #expect(late.responses.first?.message == "jobd is stopping")
        #expect(daemon.started("a").count == 1)
    }

    @Test func noTimerStartsARunOnceJobdIsStopping() {
        let daemon = H([H.job("a", overlap: .parallel) { $0.triggers = [.startup(.seconds(5))] }, H.job("b")])
        daemon.control(.run, "b")
        daemon.send(.signal(.sigterm))
        daemon.advance(.seconds(10))
        #expect(daemon.started("a").isEmpty)
    }
}

/// How the owners are armed: once per event, with the jobs' runs as the event left them.
@Suite struct ArmingTests {
    typealias H = DaemonHarness

    @Test func aFireThatStartsARunArmsTheOwnerOnce() {
        let daemon = H([H.job("a") { $0.triggers = [.startup(.seconds(1)), .unitActive(.seconds(60))] }])
        let before = daemon.timers.schedules
        daemon.advance(.seconds(1))
        #expect(daemon.started("a").count == 1)
        #expect(daemon.timers.schedules - before == 1, "the fire and the run's start arm the owner once between them")
        #expect(daemon.scheduler.generation.owners["a"]?.timer.deadline == daemon.now + .seconds(60))
    }

    @Test func onUnitInactiveSecWaitsForTheRunInFlightAndCountsFromItsEnd() {
        let daemon = H([H.job("a") { $0.triggers = [.unitInactive(.seconds(10))] }])
        daemon.control(.run, "a")
        #expect(daemon.scheduler.generation.owners["a"]?.timer.deadline == nil, "no elapse while a run is in flight")
        daemon.advance(.seconds(30))
        daemon.end("a")
        #expect(daemon.scheduler.generation.owners["a"]?.timer.deadline == daemon.now + .seconds(10))
        daemon.advance(.seconds(10))
        #expect(daemon.started("a").map(\.request.cause) == [.manual, .timer])
    }

    @Test func aParallelJobStaysInactiveUntilItsLastRunEnds() {
        let daemon = H([H.job("a", overlap: .parallel) { $0.triggers = [.unitInactive(.seconds(10))] }])
        daemon.control(.run, "a")
        daemon.control(.run, "a")
        daemon.end("a")
        #expect(daemon.scheduler.generation.owners["a"]?.timer.deadline == nil, "one run is still in flight")
        daemon.end("a")
        #expect(daemon.scheduler.generation.owners["a"]?.timer.deadline == daemon.now + .seconds(10))
    }

    @Test func aJobChangedByAReloadDuringItsRunWaitsForTheRunToEnd() {
        let daemon = H([H.job("a") { $0.triggers = [.unitInactive(.seconds(10))] }])
        daemon.control(.run, "a")
        daemon.reload([H.job("a") { $0.triggers = [.unitInactive(.seconds(20))] }])
        #expect(daemon.scheduler.generation.owners["a"]?.timer.deadline == nil, "the new owner knows the run is in flight")
        daemon.end("a")
        #expect(daemon.scheduler.generation.owners["a"]?.timer.deadline == daemon.now + .seconds(20))
    }
}
