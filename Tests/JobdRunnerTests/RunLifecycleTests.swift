import Glibc
import JobdConfig
import JobdLogging
import JobdRunner
import Testing

/// A run's decisions, event by event, with no process, file or clock: the steps in order, when
/// SIGTERM and SIGKILL go, what is kept for `KillMode=process`, and the result `run.exit` reports.
@Suite struct RunLifecycleTests {
    static func job(_ keys: String = "") throws -> JobDefinition {
        try JobFileReader.read(name: "backup", path: "/etc/jobd/jobs.d/backup.job", text: "[Job]\nExecStart=/usr/bin/backup\n" + keys).get()
    }

    static func lifecycle(_ keys: String = "", fence: Bool = false) throws -> RunLifecycle {
        RunLifecycle(.init(try job(keys), runID: 7, invocationID: "abc", hasFence: fence))
    }

    /// Drives `lifecycle` to a running process (pid 42) in cgroup `/runs/run-abc`.
    static func running(_ lifecycle: inout RunLifecycle) {
        _ = lifecycle.handle(.assertionsHeld)
        _ = lifecycle.handle(.environmentRead)
        _ = lifecycle.handle(.cgroupMade(path: "/runs/run-abc"))
        if lifecycle.plan.privateTmp { _ = lifecycle.handle(.privateTmpMade) }
        _ = lifecycle.handle(.spawned(pid: 42))
    }

    static func outcome(_ actions: [RunLifecycle.Action]) -> RunOutcome? {
        actions.lazy.compactMap { if case .finish(let outcome) = $0 { outcome } else { nil } }.first
    }

    static func exitFields(_ actions: [RunLifecycle.Action]) -> [String: String]? {
        actions.lazy.compactMap { if case .logExit(_, let fields, _) = $0 { fields } else { nil } }.first
    }

    @Test func aNormalRunGoesThroughEveryPhaseAndEndsSuccess() throws {
        var run = try Self.lifecycle()
        #expect(run.start() == [.checkAssertions])
        #expect(run.handle(.assertionsHeld) == [.readEnvironment], "no User=: no account to resolve")
        #expect(run.handle(.environmentRead) == [.makeCgroup] && run.phase == .placing)
        #expect(run.handle(.cgroupMade(path: "/runs/run-abc")) == [.spawn, .watch] && run.phase == .spawning)
        let started = run.handle(.spawned(pid: 42))
        #expect(run.phase == .running)
        guard case .logStart(42, let fields)? = started.first else { Issue.record("\(started)"); return }
        #expect(fields[JobdField.pid] == "42" && fields[JobdField.cgroup] == "/runs/run-abc" && fields[JobdField.job] == "backup")
        #expect(run.handle(.exited(.exited(0))) == [.stopWatching, .countLeftovers] && run.phase == .reaping)
        #expect(run.handle(.leftoversCounted(0)) == [.removeCgroup(keep: false)])
        #expect(run.handle(.cgroupRemoved(usage: nil, oomKills: 0)) == [.reap])
        let ended = run.handle(.reaped(elapsed: TimeSpan(microseconds: 1_500_000)))
        #expect(run.phase == .done)
        let outcome = try #require(Self.outcome(ended))
        #expect(outcome.result == .success && outcome.termination == .exited(0) && outcome.duration.microseconds == 1_500_000)
        let exit = try #require(Self.exitFields(ended))
        #expect(exit[JobdField.exitCode] == "exited" && exit[JobdField.exitStatus] == "0" && exit[JobdField.result] == "success")
        #expect(exit[JobdField.durationUSec] == "1500000" && exit[JobdField.pid] == "42")
        #expect(!ended.contains { if case .mail = $0 { true } else { false } }, "no MailTo=")
    }

    @Test func aFailedAssertionEndsTheRunAssertBeforeAnythingOfItStarts() throws {
        var run = try Self.lifecycle("User=nobody\n")
        let actions = run.handle(.assertionFailed("AssertPathExists=/srv/data"))
        guard case .logStartFailure(let message, _)? = actions.first else { Issue.record("\(actions)"); return }
        #expect(message == "run 7 of backup could not start: AssertPathExists=/srv/data does not hold")
        #expect(actions.dropFirst().elementsEqual([.reap]), "nothing was made: nothing to remove")
        let outcome = try #require(Self.outcome(run.handle(.reaped(elapsed: TimeSpan(microseconds: 10)))))
        #expect(outcome.result == .assert && outcome.termination.startFailure == "AssertPathExists=/srv/data does not hold")
    }

    @Test func anAccountThatCannotBeResolvedFailsTheStartAndALateStopChangesNothing() throws {
        var run = try Self.lifecycle("User=nobody\n")
        #expect(run.handle(.assertionsHeld) == [.resolveAccount])
        let actions = run.handle(.accountFailed("User=nobody: no such user"))
        #expect(actions.count == 2 && actions.last == .reap)
        #expect(run.handle(.stopRequested(.requested)).isEmpty, "the run is over: nothing to stop")
        let outcome = try #require(Self.outcome(run.handle(.reaped(elapsed: TimeSpan(microseconds: 10)))))
        #expect(outcome.result == .startFailed && outcome.stopReason == nil)
    }

    @Test func aCgroupThatCannotBeMadeFailsTheStartAndAPrivateTmpThatCannotRemovesTheCgroup() throws {
        var refused = try Self.lifecycle("MemoryMax=1G\n")
        _ = refused.handle(.assertionsHeld)
        _ = refused.handle(.environmentRead)
        let actions = refused.handle(.cgroupFailed("its cgroup could not be set up: no memory controller"))
        #expect(actions.last == .reap && !actions.contains(.spawn))

        var noTmp = try Self.lifecycle("PrivateTmp=yes\n")
        _ = noTmp.handle(.assertionsHeld)
        _ = noTmp.handle(.environmentRead)
        #expect(noTmp.handle(.cgroupMade(path: "/runs/run-abc")) == [.makePrivateTmp])
        let failed = noTmp.handle(.privateTmpFailed("PrivateTmp=: cannot make a directory in /tmp: No space left on device"))
        #expect(failed.dropFirst().elementsEqual([.removeCgroup(keep: false)]), "\(failed)")
        #expect(noTmp.handle(.cgroupRemoved(usage: nil, oomKills: 0)) == [.reap])
    }

    @Test func runtimeMaxSecSendsSIGTERMThenSIGKILLAfterTimeoutStopSecAndEndsTimeout() throws {
        var run = try Self.lifecycle("RuntimeMaxSec=5\nTimeoutStopSec=3\n")
        Self.running(&run)
        let stop = run.handle(.stopRequested(.runtimeExceeded))
        guard case .terminate(.runtimeExceeded, let fields)? = stop.first else { Issue.record("\(stop)"); return }
        #expect(fields[JobdField.reason] == "runtime-max" && stop.count == 1 && run.phase == .stopping)
        #expect(run.handle(.stopSent) == [.armStopTimeout], "TimeoutStopSec= counts once SIGTERM went")
        #expect(run.handle(.stopRequested(.requested)).isEmpty, "the first reason stands")
        let kill = run.handle(.stopTimeoutElapsed)
        guard case .kill? = kill.first, kill.count == 1 else { Issue.record("\(kill)"); return }
        #expect(run.handle(.exited(.killed(signal: SIGKILL))) == [.stopWatching, .countLeftovers])
        #expect(run.handle(.stopTimeoutElapsed).isEmpty, "a timeout after the exit sends nothing")
        _ = run.handle(.leftoversCounted(0))
        _ = run.handle(.cgroupRemoved(usage: nil, oomKills: 0))
        let ended = run.handle(.reaped(elapsed: TimeSpan(microseconds: 8_000_000)))
        let outcome = try #require(Self.outcome(ended))
        #expect(outcome.result == .timeout && outcome.stopReason == .runtimeExceeded && outcome.termination == .killed(signal: SIGKILL))
        #expect(Self.exitFields(ended)?[JobdField.reason] == "runtime-max")
    }

    /// A stop that finds the main process already ended, its end not heard yet, sends nothing and
    /// arms no timeout; the run ends as its process did, and a later stop is judged afresh.
    @Test func aStopThatFindsTheProcessEndedIsNoStop() throws {
        var run = try Self.lifecycle("RuntimeMaxSec=5\n")
        Self.running(&run)
        #expect(run.handle(.stopRequested(.shutdown)).count == 1)
        #expect(run.handle(.endedBeforeStop).isEmpty && run.phase == .running && run.stopReason == nil)
        guard case .terminate(.requested, _)? = run.handle(.stopRequested(.requested)).first else { Issue.record("a later stop"); return }
        #expect(run.handle(.endedBeforeStop).isEmpty)
        #expect(run.handle(.exited(.exited(0))) == [.stopWatching, .countLeftovers])
        _ = run.handle(.leftoversCounted(0))
        _ = run.handle(.cgroupRemoved(usage: nil, oomKills: 0))
        let outcome = try #require(Self.outcome(run.handle(.reaped(elapsed: TimeSpan(microseconds: 1_000)))))
        #expect(outcome.result == .success && outcome.stopReason == nil)
    }

    @Test func aRunItsFenceStoppedEndsLostAtTheTimeItReallyEnded() throws {
        var run = try Self.lifecycle(fence: true)
        Self.running(&run)
        #expect(run.handle(.exited(.killed(signal: SIGTERM))) == [.stopWatching, .checkFence])
        let fenced = run.handle(.fenceStopped(endedAt: 1_767_225_600_000_000))
        guard case .logFenceStop(let fields)? = fenced.first else { Issue.record("\(fenced)"); return }
        #expect(fields[JobdField.reason] == "lease-lost" && fenced.last == .countLeftovers)
        _ = run.handle(.leftoversCounted(0))
        _ = run.handle(.cgroupRemoved(usage: nil, oomKills: 0))
        let outcome = try #require(Self.outcome(run.handle(.reaped(elapsed: TimeSpan(microseconds: 10)))))
        #expect(outcome.result == .lost && outcome.stopReason == .leaseLost && outcome.fencedEnd == 1_767_225_600_000_000)
    }

    @Test func leftoversOfKillModeProcessKeepTheCgroupAndPrivateTmpOthersAreStoppedAndBothRemoved() throws {
        var kept = try Self.lifecycle("KillMode=process\nPrivateTmp=yes\n")
        Self.running(&kept)
        _ = kept.handle(.exited(.exited(0)))
        let keep = kept.handle(.leftoversCounted(2))
        guard case .keepLeftovers(2, let fields)? = keep.first else { Issue.record("\(keep)"); return }
        #expect(fields[JobdField.leftovers] == "2")
        #expect(keep.dropFirst().elementsEqual([.removeCgroup(keep: true)]), "PrivateTmp= stays for what runs: \(keep)")
        let ended = kept.handle(.cgroupRemoved(usage: nil, oomKills: 0))
        #expect(ended == [.reap])
        #expect(Self.exitFields(kept.handle(.reaped(elapsed: TimeSpan(microseconds: 10))))?[JobdField.leftovers] == "2")

        var stopped = try Self.lifecycle("PrivateTmp=yes\n")
        Self.running(&stopped)
        _ = stopped.handle(.exited(.exited(0)))
        let stop = stopped.handle(.leftoversCounted(2))
        guard case .stopLeftovers(2, _)? = stop.first, stop.count == 1 else { Issue.record("\(stop)"); return }
        #expect(stopped.handle(.leftoversStopped) == [.removeCgroup(keep: false), .removePrivateTmp])
        #expect(stopped.handle(.privateTmpRemoved).isEmpty, "the cgroup is not removed yet")
        #expect(stopped.handle(.cgroupRemoved(usage: nil, oomKills: 0)) == [.reap])
    }

    @Test func mailIsDueOnFailureOnlyUnderMailOnFailureAndAnOOMKillFailsTheRun() throws {
        for (status, due) in [(Int32(1), true), (0, false)] {
            var run = try Self.lifecycle("MailTo=ops@example.org\nMailOn=failure\n")
            Self.running(&run)
            _ = run.handle(.exited(.exited(status)))
            _ = run.handle(.leftoversCounted(0))
            _ = run.handle(.cgroupRemoved(usage: nil, oomKills: 0))
            let ended = run.handle(.reaped(elapsed: TimeSpan(microseconds: 10)))
            #expect(ended.contains { if case .mail = $0 { true } else { false } } == due, "exit \(status): \(ended)")
        }
        var oom = try Self.lifecycle("MemoryMax=1G\n")
        Self.running(&oom)
        _ = oom.handle(.exited(.exited(0)))
        _ = oom.handle(.leftoversCounted(0))
        _ = oom.handle(.cgroupRemoved(usage: nil, oomKills: 1))
        #expect(Self.outcome(oom.handle(.reaped(elapsed: TimeSpan(microseconds: 10))))?.result == .oomKill)
    }
}
