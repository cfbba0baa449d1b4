import Foundation
@testable import JobdDaemon
import JobdHandover
import JobdRunner
import Logging
import Testing

/// A run's record in `runs/` gets its process and cgroup from the run's own task
/// (``StateDirectory/runSpawned(_:)``), not from the main loop, which a burst can keep behind for
/// seconds: a jobd killed then left its spawned runs recorded without a process, and the next jobd
/// recorded them abandoned while they ran on, unfollowed (5,000 jobs due at once under the unit,
/// SIGSTOP and the watchdog: 103 of 619 running processes recorded and adopted; 591 of 592 after).
@Suite struct RunRecordTests {
    private func directory() throws -> (StateDirectory, runs: String) {
        let root = NSTemporaryDirectory() + "jobd-run-records-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root + "/run", withIntermediateDirectories: true)
        let state = StateDirectory(path: root + "/state", runtimeDirectory: root + "/run", logger: Logger(label: "test"))
        return (state, root + "/run/runs")
    }

    @Test func aSpawnedRunsRecordGetsItsProcessAndCgroupAndGoesWithItsEnd() throws {
        let (state, runs) = try directory()
        state.runStarted(RunInFlightRecord(invocationID: "0123abcd", job: "backup", cause: "timer", startUSec: 1_700_000_000_000_000))
        state.runSpawned(SpawnedRun(job: "backup", invocationID: "0123abcd", pid: getpid(),
                                    cgroup: RunCgroup(directory: "/sys/fs/cgroup/jobd/runs/run-0123abcd", path: "/jobd/runs/run-0123abcd")))
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
}
