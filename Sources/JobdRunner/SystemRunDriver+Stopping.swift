import Glibc
package import JobdConfig

extension SystemRunDriver {
    package func watchOOMKills(in cgroup: RunCgroup, _ killed: @escaping @Sendable () -> Void) -> RunDriverWatch {
        guard let watch = OOMWatch.start(cgroup) else { return .none }
        return watch.begin(killed)
    }

    /// Through the registry, which also reaches a run that has no process yet, as soon as it has one.
    package func signal(runID: UInt64, _ signal: Int32) {
        signal == SIGKILL ? registry.kill(runID: runID) : registry.terminate(runID: runID)
    }

    package func hasEnded(pid: Int32) -> Bool {
        ProcessSpawner.hasEnded(pid)
    }

    package func fenceStopped(_ fence: RunFence) -> (ended: Int64?, stopped: Bool) {
        guard let stopped = fence.stopped() else { return (nil, false) }
        return (stopped.ended, true)
    }

    /// The kernel tells nobody when a process group empties, so the stops below look again every
    /// 10 ms up to 100 ms apart (at `/proc` for a group, at the cgroup's `cgroup.events` for a cgroup).
    package func countLeftovers(group: Int32, cgroup: RunCgroup?) -> Int {
        cgroup.map { $0.members.count(where: ProcessGroup.isStaying) } ?? ProcessGroup.members(of: group)
    }

    package func terminateLeftovers(group: Int32, cgroup: RunCgroup?, grace: TimeSpan) async -> Bool {
        Self.send(SIGTERM, group: group, cgroup: cgroup)
        Self.send(SIGCONT, group: group, cgroup: cgroup)
        return await Self.waitUntil({ Self.isEmpty(group: group, cgroup: cgroup) }, for: grace.duration)
    }

    /// `cgroup.kill` for a cgroup.
    package func killLeftovers(group: Int32, cgroup: RunCgroup?) async {
        Self.send(SIGKILL, group: group, cgroup: cgroup)
        _ = await Self.waitUntil({ Self.isEmpty(group: group, cgroup: cgroup) }, for: .seconds(5))
    }

    private static func isEmpty(group: Int32, cgroup: RunCgroup?) -> Bool {
        cgroup.map { !$0.isPopulated } ?? (ProcessGroup.members(of: group) == 0)
    }

    private static func send(_ signal: Int32, group: Int32, cgroup: RunCgroup?) {
        if let cgroup { signal == SIGKILL ? cgroup.kill() : cgroup.signal(signal) } else { killpg(group, signal) }
    }

    /// Whether `isEmpty` came true within `limit`.
    private static func waitUntil(_ isEmpty: () -> Bool, for limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        var pause = Duration.milliseconds(10)
        while !isEmpty() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: min(pause, deadline - ContinuousClock.now))
            pause = min(pause * 2, .milliseconds(100))
        }
        return true
    }

    package func makePrivateTmp(job: String) -> Result<PrivateTmp, PreparationError> {
        PrivateTmp.make(job: job)
    }

    package func removePrivateTmp(_ privateTmp: PrivateTmp) async -> String? {
        await privateTmp.remove()
    }
}
