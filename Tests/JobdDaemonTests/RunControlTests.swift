import JobdConfig
import JobdControl
import JobdDaemon
import JobdRunner
import JobdScheduler
import JobdTestKit
import Testing
import UnixSignals

/// `jobctl run` (with `--wait` and `--follow-retries`), `Overlap=` and `MaxConcurrentRuns=`, as the
/// main loop answers them: runs are started and ended by the test, no process is.
@Suite struct RunControlTests {
    typealias H = DaemonHarness

    @Test func runStartsTheJobAndAnswersRunStarted() {
        let daemon = H([H.job("a")])
        let reply = daemon.control(.run, "a")
        #expect(daemon.started("a").map(\.request.cause) == [.manual])
        #expect(reply.kinds == [.runStarted])
        #expect(reply.isFinished, "without --wait the answer is the start")
    }

    @Test func runWaitAnswersWithTheRunsExitStatus() {
        let daemon = H([H.job("a")])
        let reply = daemon.control(.run, "a", wait: true)
        #expect(!reply.isFinished)
        daemon.end("a", .exited(3))
        #expect(reply.kinds == [.runStarted, .runFinished])
        let finished = reply.responses.last?.run
        #expect(finished?.exitStatus == "3")
        #expect(finished?.shellStatus == 3)
        #expect(finished?.result == RunResult.exitCode.rawValue)
        #expect(reply.isFinished)
    }

    /// jobctl reads the first reply as the run's start: a line the run writes at once, from the
    /// runner's thread, must not overtake it (CI saw `--follow-retries` read "attempt" as the start).
    @Test func theStartIsAnsweredBeforeTheRunsFirstLine() {
        let daemon = H([H.job("a")])
        daemon.launcher.lineAtLaunch.withLock { $0 = "attempt" }
        let reply = daemon.control(.run, "a", wait: true, output: true)
        daemon.end("a")
        #expect(reply.kinds == [.runStarted, .runOutput, .runFinished])
        #expect(reply.responses.dropFirst().first?.line == "attempt")
    }

    @Test func runOfAJobThatDoesNotExistIsAnError() {
        let daemon = H([H.job("a")])
        let reply = daemon.control(.run, "nothing")
        #expect(reply.kinds == [.error])
        #expect(reply.responses.first?.message == "no such job: nothing")
        #expect(daemon.started().isEmpty)
    }

    @Test func runOfABrokenJobSaysWhatIsWrongWithItsFile() {
        let daemon = H([H.job("a")], broken: [H.brokenFile("b")])
        let reply = daemon.control(.run, "b")
        #expect(reply.responses.first?.message?.contains("its file has errors") == true)
        #expect(reply.responses.first?.message?.contains("b.job:3") == true)
    }

    @Test func runWaitOfAJobInFlightUnderOverlapSkipIsAnsweredSkipped() {
        let daemon = H([H.job("a", overlap: .skip)])
        daemon.control(.run, "a")
        let reply = daemon.control(.run, "a", wait: true)
        #expect(reply.kinds == [.runSkipped])
        #expect(reply.responses.first?.run?.skipReason == "overlap")
        #expect(reply.isFinished)
        #expect(daemon.started("a").count == 1)
    }

    /// A flood of 3,000 `jobctl --user run --wait` of a user's `Overlap=parallel` job leaves at
    /// most `UserWaitingRunsMax=` (100) waiting: each one beyond is answered as skipped with the
    /// reason, which `run.skip` logs as `JOBD_REASON` (issue 37). Her entries spend her journal
    /// budget (`UserLogRateLimitBurst=`, 1,000 here in an interval no test outlasts): 100 `run.wait`
    /// and 900 `run.skip`, then one `run.entries-dropped`; every client is still answered.
    @Test func aFloodOfAUsersRunRequestsIsAnsweredSkippedBeyondUserWaitingRunsMax() {
        var settings = DaemonSettings()
        settings.jobWaitingRunsMax = nil
        settings.userLogRateLimitInterval = .infinity
        let daemon = H([H.job("alice:a", overlap: .parallel) { $0.owningUser = "alice"; $0.owningUID = 1001 }], settings: settings)
        let replies = (0..<3000).map { _ in daemon.control(.run, "alice:a", wait: true) }
        let kinds = replies.map { $0.kinds.first }
        #expect(kinds.filter { $0 == .runStarted }.count == DaemonSettings.defaultUserRunsMax)
        #expect(kinds.filter { $0 == .runQueued }.count == 100)
        let skipped = replies.filter { $0.kinds.first == .runSkipped }
        #expect(skipped.count == 3000 - 104 && skipped.allSatisfy { $0.isFinished })
        #expect(Set(skipped.map { $0.responses.first?.run?.skipReason }) == ["user-waiting-runs-max"])
        #expect(daemon.events("run.wait", job: "alice:a").count == 100)
        #expect(daemon.skipReasons("alice:a").count == 900 && Set(daemon.skipReasons("alice:a")) == ["user-waiting-runs-max"])
        #expect(daemon.events("run.entries-dropped").count == 1)
    }

    @Test func aQueuedRunStartsWhenTheRunInFlightEndsAndItsWaiterHearsItsEnd() {
        let daemon = H([H.job("a", overlap: .queue)])
        daemon.control(.run, "a")
        let reply = daemon.control(.run, "a", wait: true)
        #expect(reply.kinds == [.runQueued])
        #expect(daemon.started("a").count == 1)
        daemon.end("a")
        #expect(daemon.started("a").count == 2, "the queued run starts when the first ends")
        #expect(!reply.isFinished)
        daemon.end("a", .exited(0))
        #expect(reply.kinds == [.runQueued, .runFinished])
        #expect(reply.responses.last?.run?.runID == daemon.started("a").last?.request.runID)
    }

    @Test func overlapReplaceStopsTheRunInFlightAndStartsTheNewOneAfterIt() {
        let daemon = H([H.job("a", overlap: .replace)])
        daemon.control(.run, "a")
        daemon.control(.run, "a")
        #expect(daemon.launcher.stops.withLock { $0.map(\.job) } == ["a"])
        #expect(daemon.launcher.stops.withLock { $0.map(\.reason) } == [.replaced])
        #expect(daemon.started("a").count == 1, "the new run waits for the stopped one to end")
        daemon.end("a", .killed(signal: 15), stopped: .replaced)
        #expect(daemon.running("a").count == 1)
        #expect(daemon.started("a").count == 2)
    }

    @Test func overlapParallelRunsSideBySide() {
        let daemon = H([H.job("a", overlap: .parallel)])
        daemon.control(.run, "a")
        daemon.control(.run, "a")
        daemon.control(.run, "a")
        #expect(daemon.running("a").count == 3)
        #expect(daemon.loop.status.hasPrefix("1 job(s), 3 running"))
    }

    @Test func maxConcurrentRunsMakesARunWaitForASlot() {
        let daemon = H([H.job("a"), H.job("b")], settings: DaemonSettings(maxConcurrentRuns: 1))
        daemon.control(.run, "a")
        let reply = daemon.control(.run, "b", wait: true)
        #expect(reply.kinds == [.runQueued])
        #expect(daemon.started("b").isEmpty)
        #expect(daemon.loop.status.contains("1 waiting for a slot"))
        daemon.end("a")
        #expect(daemon.running("b").count == 1, "the slot the run of a freed goes to b")
        daemon.end("b")
        #expect(reply.kinds == [.runQueued, .runFinished])
    }

    @Test func followRetriesFollowsTheRetryToItsEnd() {
        let daemon = H([H.job("a") {
            $0.restart.condition = .onFailure
            $0.restart.delay = .seconds(1)
            $0.restart.limit = 2
        }])
        let reply = daemon.control(.run, "a", wait: true, followRetries: true)
        daemon.end("a", .exited(1))
        #expect(reply.kinds == [.runStarted, .runFinished])
        let first = reply.responses.last?.run
        #expect(first?.retryAttempt == 1)
        #expect(first?.retryLimit == 2)
        #expect(first?.retryDelayUSec == 1_000_000)
        #expect(!reply.isFinished, "the waiter follows the retry")
        daemon.advance(.seconds(1))
        #expect(daemon.running("a").map(\.request.runID) == [first?.retryRunID].compactMap { $0 })
        daemon.end("a", .exited(0))
        #expect(reply.kinds == [.runStarted, .runFinished, .runFinished])
        #expect(reply.isFinished)
    }

    @Test func withoutFollowRetriesTheWaitEndsWithTheFirstRun() {
        let daemon = H([H.job("a") {
            $0.restart.condition = .onFailure
            $0.restart.delay = .seconds(1)
        }])
        let reply = daemon.control(.run, "a", wait: true)
        daemon.end("a", .exited(1))
        #expect(reply.isFinished)
        #expect(reply.responses.last?.run?.retryAttempt == 1, "it hears that a retry comes")
    }

    @Test func statusOfAJobShowsItsRunInFlight() throws {
        let daemon = H([H.job("a")])
        daemon.control(.run, "a")
        let reply = daemon.control(.status, "a")
        let status = try #require(reply.responses.first?.jobStatus)
        #expect(status.running == 1)
        #expect(status.runs?.first?.pid == 4_001)
        #expect(status.runs?.first?.cause == "manual")
        #expect(status.lastStartCause == "manual")
    }

    @Test func listShowsEveryJobAndEveryBrokenFile() throws {
        let daemon = H([H.job("b"), H.job("a")], broken: [H.brokenFile("c")])
        let reply = daemon.control(.list)
        let jobs = try #require(reply.responses.first?.jobs)
        #expect(Set(jobs.map(\.name)) == ["a", "b", "c"])
        #expect(jobs.first { $0.name == "c" }?.errors?.count == 1)
        #expect(reply.isFinished)
    }

    @Test func aRunsHistoryIsSavedWhenItEnds() throws {
        let daemon = H([H.job("a")])
        daemon.control(.run, "a")
        daemon.end("a", .exited(2))
        let saved = try #require(daemon.store.histories.withLock { $0["a"] } ?? nil)
        #expect(saved.lastRun?.result == .exitCode)
        #expect(saved.lastRun?.termination == .exited(2) && saved.lastRun?.job == "a")
        #expect(daemon.loop.status.contains("1 failed"))
    }
}
