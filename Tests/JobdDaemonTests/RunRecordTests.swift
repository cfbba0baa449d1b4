import Foundation
import InMemoryLogging
@testable import JobdDaemon
import JobdHandover
import JobdRunner
import JobdScheduler
import JobdState
import Logging
import Testing

/// A run's record in `runs/` gets its process and cgroup from the run's own task
/// (``StateDirectory/runSpawned(_:)``), not from the main loop, which a burst can keep behind for
/// seconds: a jobd killed then left its spawned runs recorded without a process, and the next jobd
/// recorded them abandoned while they ran on, unfollowed (5,000 jobs due at once under the unit,
/// SIGSTOP and the watchdog: 103 of 619 running processes recorded and adopted; 591 of 592 after).
@Suite struct RunRecordTests {
    private func directory(log: InMemoryLogHandler = InMemoryLogHandler()) throws -> (StateDirectory, runs: String) {
        let root = NSTemporaryDirectory() + "jobd-run-records-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root + "/run", withIntermediateDirectories: true)
        let state = StateDirectory(path: root + "/state", runtimeDirectory: root + "/run", logger: Logger(label: "test") { _ in log })
        return (state, root + "/run/runs")
    }

    @Test func aSpawnedRunsRecordGetsItsProcessAndCgroupAndGoesWithItsEnd() throws {
        let (state, runs) = try directory()
        state.runStarted(RunInFlightRecord(invocationID: "0123abcd", job: "backup", cause: "timer", startUSec: 1_700_000_000_000_000))
        state.runSpawned(SpawnedRun(job: "backup", invocationID: "0123abcd", pid: getpid(),
                                    cgroup: RunCgroup(directory: "/sys/fs/cgroup/jobd/runs/run-0123abcd", path: "/jobd/runs/run-0123abcd")))
        #expect(FileManager.default.fileExists(atPath: runs + "/0123abcd"), "written by the run's task, at once")
        state.flushHistories()
        let kept = try #require(state.abandonedRuns().first)
        #expect(kept.job == "backup" && kept.cause == "timer" && kept.startUSec == 1_700_000_000_000_000)
        #expect(kept.process?.pid == getpid() && kept.process?.startTicks == KeeperDirectory.startTicks(of: getpid()))
        #expect(kept.handedOver.cgroupPath == "/jobd/runs/run-0123abcd")
        state.runEnded("0123abcd")
        state.flushHistories()
        #expect(!FileManager.default.fileExists(atPath: runs + "/0123abcd"))
        state.runSpawned(SpawnedRun(job: "backup", invocationID: "0123abcd", pid: getpid(), cgroup: nil))
        state.flushHistories()
        #expect(state.abandonedRuns().isEmpty, "a run that ended is not recorded again")
    }

    /// A run is written once, when its process runs: one whose process never started (jobd stopped
    /// or crashed first: thousands in a burst) ran nothing, and the next jobd must not record it
    /// abandoned, a failure that starts `OnFailure=` jobs. A fleet run is written at once, so that
    /// the next jobd releases its claim even then.
    @Test func aRunIsWrittenWhenItsProcessRunsAndAFleetRunAtOnce() throws {
        let (state, runs) = try directory()
        state.runStarted(RunInFlightRecord(invocationID: "0123abcd", job: "backup", cause: "timer", startUSec: 1_700_000_000_000_000))
        let claim = HeldClaim(node: "n1", elapseUSec: 1_700_000_000_000_000, attempt: 0)
        state.runStarted(RunInFlightRecord(invocationID: "4567abcd", job: "fleet", cause: "timer", startUSec: 1_700_000_000_000_000, claim: claim))
        state.flushHistories()
        #expect(!FileManager.default.fileExists(atPath: runs + "/0123abcd"), "no process yet: nothing of it ran")
        #expect(state.abandonedRuns().map(\.invocationID) == ["4567abcd"])
        #expect(state.abandonedRuns().first?.claim == claim)
        state.runSpawned(SpawnedRun(job: "backup", invocationID: "0123abcd", pid: getpid(), cgroup: nil))
        state.flushHistories()
        #expect(state.abandonedRuns().first { $0.invocationID == "0123abcd" }?.process?.pid == getpid())
        state.runEnded("4567abcd")
        state.runStarted(RunInFlightRecord(invocationID: "89abcdef", job: "backup", cause: "timer", startUSec: 1_700_000_000_000_000))
        state.runEnded("89abcdef")
        state.flushHistories()
        #expect(state.abandonedRuns().map(\.invocationID) == ["0123abcd"])
    }

    /// A record is made in place, in one write, and replaced through a rename only where one is
    /// already (a fleet run's, which holds its claim from the start): the claim is never lost.
    /// A record that a crash left empty (created, not yet written) is no run, and goes quietly.
    @Test func aFleetRunsRecordIsReplacedWithItsProcessAndAnEmptyOneIsNoRun() throws {
        let log = InMemoryLogHandler()
        let (state, runs) = try directory(log: log)
        let claim = HeldClaim(node: "n1", elapseUSec: 1_700_000_000_000_000, attempt: 0)
        state.runStarted(RunInFlightRecord(invocationID: "4567abcd", job: "fleet", cause: "timer", startUSec: 1_700_000_000_000_000, claim: claim))
        state.flushHistories()
        state.runSpawned(SpawnedRun(job: "fleet", invocationID: "4567abcd", pid: getpid(), cgroup: nil))
        state.flushHistories()
        let kept = try #require(state.abandonedRuns().first)
        #expect(kept.claim == claim && kept.process?.pid == getpid())
        #expect(FileManager.default.createFile(atPath: runs + "/89abcdef", contents: Data()))
        #expect(state.abandonedRuns().map(\.invocationID) == ["4567abcd"])
        #expect(!FileManager.default.fileExists(atPath: runs + "/89abcdef"))
        #expect(!log.entries.contains { $0.level >= .error }, "an empty record is no error")
        #expect(FileManager.default.createFile(atPath: runs + "/89abcdef", contents: Data("cause=timer\n".utf8)))
        #expect(state.abandonedRuns().map(\.invocationID) == ["4567abcd"])
        #expect(log.entries.contains { $0.level == .error && $0.message.description.contains("89abcdef: not a run jobd kept") })
        let names = try FileManager.default.contentsOfDirectory(atPath: runs)
        #expect(names == ["4567abcd"], "no temporary file is left beside the records")
        state.runEnded("4567abcd")
        state.flushHistories()
        #expect(try FileManager.default.contentsOfDirectory(atPath: runs).isEmpty)
    }

    /// A value's line break would start a line of its own; "\r\n" is one character in Swift.
    @Test func aSavedValueLosesItsLineBreaks() {
        #expect(SavedFields.line("job", "backup") == "job=backup")
        #expect(SavedFields.line("cause", "a\r\nb\nc\rd") == "cause=abcd")
        #expect(SavedFields.line("job", "sauvegarde-été") == "job=sauvegarde-été")
    }
}
