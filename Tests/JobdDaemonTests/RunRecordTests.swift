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
}
