import InMemoryLogging
import JobdConfig
import JobdControl
import JobdDaemon
import JobdRunner
import JobdScheduler
import JobdTimers
import JobdTestKit
import Testing
import UnixSignals

/// Reloads through the main loop: the read finishes when the test says, so runs, requests and
/// timers can happen while it reads, as they do while a slow file system holds a real one up.
@Suite struct ReloadTests {
    typealias H = DaemonHarness

    @Test func aReloadAddsAndRemovesJobsAndTellsItsWatcher() throws {
        let daemon = H([H.job("a"), H.job("b")])
        let watcher = daemon.control(.watchReload)
        #expect(watcher.kinds == [.reloadSubscribed])
        daemon.reload([H.job("a"), H.job("c")])
        let report = try #require(watcher.responses.last?.reload)
        #expect(watcher.kinds == [.reloadSubscribed, .reloadResult])
        #expect(report.accepted)
        #expect(report.added == ["c"])
        #expect(report.removed == ["b"])
        #expect(report.kept == 1)
        #expect(report.generation == 2)
        #expect(watcher.isFinished)
        #expect(Set(daemon.scheduler.generation.owners.keys) == ["a", "c"])
        #expect(daemon.events("reload.done").count == 1)
    }

    @Test func anUnchangedJobKeepsItsOwnerAcrossAReload() {
        let daemon = H([H.job("a"), H.job("b")])
        let owner = daemon.scheduler.generation.owners["a"]
        daemon.reload([H.job("a"), H.job("b", every: 30)])
        #expect(daemon.scheduler.generation.owners["a"] === owner)
    }

    @Test func aRunInFlightAndItsWaiterOutliveTheReloadThatRemovesItsJob() {
        let daemon = H([H.job("a"), H.job("b")])
        let reply = daemon.control(.run, "a", wait: true)
        daemon.reload([H.job("b")])
        #expect(daemon.launcher.stops.withLock { $0.isEmpty }, "a reload stops no run")
        #expect(daemon.running("a").count == 1)
        daemon.end("a", .exited(0))
        #expect(reply.kinds == [.runStarted, .runFinished])
        #expect(daemon.control(.run, "a").responses.first?.message == "no such job: a")
    }

    @Test func aReloadThatRemovesAJobDropsItsQueuedRun() {
        let daemon = H([H.job("a", overlap: .queue), H.job("b")])
        daemon.control(.run, "a")
        let queued = daemon.control(.run, "a", wait: true)
        daemon.reload([H.job("b")])
        #expect(queued.responses.last?.run?.skipReason == "job-removed")
        #expect(queued.isFinished)
        daemon.end("a")
        #expect(daemon.started("a").count == 1)
    }

    @Test func aReloadThatRemovesAJobCancelsItsRetry() {
        let daemon = H([H.job("a") {
            $0.restart.condition = .onFailure
            $0.restart.delay = .seconds(1)
        }, H.job("b")])
        daemon.control(.run, "a")
        daemon.end("a", .exited(1))
        daemon.reload([H.job("b")])
        #expect(daemon.skipReasons("a") == ["job-removed"])
        daemon.advance(.seconds(2))
        #expect(daemon.started("a").count == 1)
    }

    @Test func anOverlapPolicyChangedByAReloadDecidesTheNextRun() {
        let daemon = H([H.job("a", overlap: .skip)])
        daemon.control(.run, "a")
        #expect(daemon.control(.run, "a").kinds == [.runSkipped])
        daemon.reload([H.job("a", overlap: .queue)])
        #expect(daemon.control(.run, "a").kinds == [.runQueued], "the run in flight of the old definition counts")
        daemon.end("a")
        #expect(daemon.running("a").first?.definition.overlap == .queue, "the queued run starts with the new definition")
    }

    @Test func aRunQueuedBeforeAReloadToOverlapSkipStillStarts() {
        let daemon = H([H.job("a", overlap: .queue)])
        daemon.control(.run, "a")
        daemon.control(.run, "a")
        daemon.reload([H.job("a", overlap: .skip)])
        daemon.end("a")
        #expect(daemon.started("a").count == 2)
        #expect(daemon.control(.run, "a").kinds == [.runSkipped], "and the new policy applies from then on")
    }

    @Test func aReplaceRunAcrossAReloadStartsAfterTheStoppedOne() {
        let daemon = H([H.job("a", overlap: .replace)])
        daemon.control(.run, "a")
        daemon.control(.run, "a")
        daemon.reload([H.job("a", every: 120, overlap: .replace)])
        daemon.end("a", .killed(signal: 15), stopped: .replaced)
        #expect(daemon.running("a").count == 1)
        #expect(daemon.running("a").first?.definition.triggers == [.unitActive(.seconds(120))])
    }

    @Test func aBrokenFileKeepsItsJobsPreviousDefinition() throws {
        let daemon = H([H.job("a"), H.job("b")])
        let watcher = daemon.control(.watchReload)
        daemon.reload([H.job("b")], broken: [H.brokenFile("a")])
        let report = try #require(watcher.responses.last?.reload)
        #expect(!report.accepted)
        #expect(report.errors.count == 1)
        #expect(daemon.control(.run, "a").kinds == [.runStarted], "a runs as it was defined before")
        #expect(daemon.loop.status.contains("; 1 broken file(s): a.job"))
        #expect(daemon.events("reload.failed").count == 1)
    }

    @Test func aNewBrokenFileAddsNoJob() {
        let daemon = H([H.job("a")])
        daemon.reload([H.job("a")], broken: [H.brokenFile("b")])
        #expect(daemon.scheduler.generation.owners["b"] == nil)
        #expect(daemon.control(.run, "b").responses.first?.message?.contains("its file has errors") == true)
    }

    @Test func aConfigurationThatCannotBeReadKeepsTheGenerationRunning() throws {
        let daemon = H([H.job("a")])
        let watcher = daemon.control(.watchReload)
        daemon.hangUp()
        daemon.finishRead([], fatal: ConfigError(file: "/etc/jobd/jobs.d", line: nil, message: "Permission denied"))
        let report = try #require(watcher.responses.last?.reload)
        #expect(!report.accepted)
        #expect(report.generation == 1)
        #expect(daemon.scheduler.generation.number == 1)
        #expect(daemon.control(.run, "a").kinds == [.runStarted])
    }

    @Test func jobsRunWhileASlowReloadReads() {
        let daemon = H([H.job("a") { $0.triggers = [.startup(.seconds(30))] }, H.job("b")])
        daemon.hangUp()
        #expect(daemon.source.reading == 1)
        daemon.advance(.seconds(30))
        #expect(daemon.started("a").map(\.request.cause) == [.timer], "timers fire while the reload reads")
        #expect(daemon.control(.run, "b").kinds == [.runStarted], "and clients are answered")
        daemon.end("b")
        daemon.finishRead([H.job("a") { $0.triggers = [.startup(.seconds(30))] }])
        #expect(daemon.source.reading == 0)
        #expect(daemon.events("reload.done").count == 1)
    }

    @Test func aSlowReloadIsSaidInTheJournalAndStatus() {
        let daemon = H([H.job("a")])
        daemon.hangUp()
        daemon.advance(.seconds(5))
        #expect(daemon.log.entries.contains { "\($0.message)".hasPrefix("reload still reading the configuration after 5s") })
        #expect(daemon.loop.status.contains("reloading for 5s, still reading the configuration"))
        daemon.finishRead([H.job("a")])
        #expect(!daemon.loop.status.contains("reloading"))
    }

    @Test func aHangUpDuringAReadMakesAnotherReadFollowIt() {
        let daemon = H([H.job("a")])
        daemon.hangUp()
        daemon.hangUp()
        daemon.hangUp()
        #expect(daemon.source.reading == 1, "one read at a time")
        daemon.finishRead([H.job("a")])
        #expect(daemon.source.reading == 1, "the hang-ups during it make one more")
        daemon.finishRead([H.job("a"), H.job("b")])
        #expect(daemon.source.reading == 0)
        #expect(daemon.events("reload.done").count == 2)
        #expect(daemon.scheduler.generation.owners["b"] != nil)
    }

    @Test func aWatcherThatSubscribedDuringAReadHearsTheNextReload() throws {
        let daemon = H([H.job("a")])
        let before = daemon.control(.watchReload)
        daemon.hangUp()
        let during = daemon.control(.watchReload)
        daemon.finishRead([H.job("a")])
        #expect(before.isFinished)
        #expect(!during.isFinished, "what it reads began before the watcher asked")
        daemon.reload([H.job("a"), H.job("b")])
        let report = try #require(during.responses.last?.reload)
        #expect(report.sequence == 2)
        #expect(report.added == ["b"])
    }

    @Test func aRaisedMaxConcurrentRunsStartsTheWaitingRuns() {
        let daemon = H([H.job("a"), H.job("b")], settings: DaemonSettings(maxConcurrentRuns: 1))
        daemon.control(.run, "a")
        daemon.control(.run, "b")
        #expect(daemon.started("b").isEmpty)
        daemon.reload([H.job("a"), H.job("b")], settings: DaemonSettings(maxConcurrentRuns: 2))
        #expect(daemon.running("b").count == 1)
    }

    @Test func aBrokenJobdConfKeepsTheSettingsJobdHas() {
        let daemon = H([H.job("a"), H.job("b")], settings: DaemonSettings(maxConcurrentRuns: 1))
        daemon.reload([H.job("a"), H.job("b")], settings: nil)
        daemon.control(.run, "a")
        daemon.control(.run, "b")
        #expect(daemon.started("b").isEmpty, "MaxConcurrentRuns=1 still holds")
    }

    @Test func aRemovedJobsHistoryGoesWithIt() {
        let daemon = H([H.job("a"), H.job("b")])
        daemon.control(.run, "b")
        daemon.end("b")
        daemon.reload([H.job("a")])
        let saved = daemon.store.histories.withLock { $0["b"] }
        #expect(saved != nil && saved! == nil, "its kept history is removed")
    }

    @Test func aJobRemovedDuringItsRunKeepsItsHistoryUntilTheRunEnds() throws {
        let daemon = H([H.job("a"), H.job("b")])
        daemon.control(.run, "b")
        daemon.reload([H.job("a")])
        let kept = try #require(daemon.store.histories.withLock { $0["b"] } ?? nil)
        #expect(kept.lastStartCause == "manual")
        daemon.end("b", .exited(4))
        let saved = daemon.store.histories.withLock { $0["b"] }
        #expect(saved != nil && saved! == nil, "the history goes with the last run")
    }
}

/// Issue 37: revocation that revokes. A user who may no longer have jobs (users.deny, the account
/// gone, the file another uid's) keeps no previous definition, as a file with a typo would, and
/// the job's runs in flight are stopped; the reload itself is done.
@Suite struct RevokedUserJobTests {
    typealias H = DaemonHarness

    static let userJob = H.job("alice:tick", every: 1) { $0.owningUser = "alice" }

    @Test func aRevokedUsersJobKeepsNoDefinitionAndItsRunsStop() {
        let daemon = H([Self.userJob, H.job("root-job")])
        daemon.control(.run, "alice:tick")
        var revoked = H.brokenFile("alice:tick", "users.deny lists alice")
        revoked.owner = "alice"
        revoked.revoked = true
        daemon.reload([H.job("root-job")], broken: [revoked])
        #expect(daemon.scheduler.generation.owners["alice:tick"] == nil, "no previous definition kept")
        #expect(daemon.launcher.stops.withLock { $0.map(\.job) + $0.map { $0.reason.rawValue } } == ["alice:tick", "revoked"])
        let outcome = daemon.end("alice:tick", .killed(signal: 15), stopped: .revoked)
        #expect(outcome?.result == .stopped)
        daemon.advance(.seconds(5))
        #expect(daemon.started("alice:tick").count == 1, "it never runs again")
    }

    @Test func aUsersFileWithAnErrorKeepsThePreviousDefinitionAsRootsDoes() {
        let daemon = H([Self.userJob])
        var typo = H.brokenFile("alice:tick")
        typo.owner = "alice"
        daemon.reload([], broken: [typo])
        #expect(daemon.scheduler.generation.owners["alice:tick"] != nil)
        #expect(daemon.launcher.stops.withLock { $0.isEmpty })
    }
}
