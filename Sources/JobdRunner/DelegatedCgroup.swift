import Glibc
import JobdConfig
import JobdLocks

/// The cgroup subtree systemd delegated to jobd (`Delegate=yes` in jobd.service): jobd itself moves
/// into `supervisor` (cgroup v2 lets processes live only in leaves once controllers are enabled),
/// and each run gets `run-<JOBD_RUN_ID>` beside it. systemd puts the unit's control processes
/// (`ExecReload=`) into `.control`, which jobd leaves alone.
package final class DelegatedCgroup: Sendable {
    /// jobd's cgroup directory and its path as `/proc/self/cgroup` names it.
    let directory: String
    let path: String
    /// The controllers enabled for the runs (`memory`, `pids`, `cpu`, where the system has them).
    let controllers: [String]
    /// Cgroups of runs whose leftovers were kept (`KillMode=process`): removed once they empty.
    private let kept = LockedBox<[RunCgroup]>([])

    private init(directory: String, path: String, controllers: [String]) {
        self.directory = directory
        self.path = path
        self.controllers = controllers
    }

    /// The controllers jobd enables for its runs, where the kernel offers them.
    static let wantedControllers = ["memory", "pids", "cpu"]

    /// Takes over jobd's delegated cgroup, or says why not (and then nothing was changed, except
    /// that jobd may already sit in `supervisor`, which is harmless).
    static func setUp() -> Result<DelegatedCgroup, CgroupProbe.Refusal> {
        var probe = CgroupProbe()
        probe.mount = CgroupFile.read("/proc/self/mountinfo").flatMap(CgroupText.cgroup2Mount)
        probe.ownPath = CgroupFile.read("/proc/self/cgroup").flatMap(CgroupText.unifiedPath)
        if let mount = probe.mount, let ownPath = probe.ownPath {
            let directory = mount + ownPath
            probe.delegated = [CgroupFile.xattr(directory, "trusted.delegate"), CgroupFile.xattr(directory, "user.delegate")]
                .contains("1")
            probe.writable = access(directory, W_OK) == 0
            probe.alone = CgroupFile.read(directory + "/cgroup.procs").map(CgroupText.pids) == [getpid()]
        }
        probe.trampoline = Trampoline.located
        let directory: String
        switch probe.decision() {
        case .failure(let refusal): return .failure(refusal)
        case .success(let found): directory = found
        }
        let supervisor = directory + "/supervisor"
        if mkdir(supervisor, 0o755) != 0 && errno != EEXIST {
            return .failure(CgroupProbe.Refusal("cannot create \(supervisor): \(CgroupFile.describe(errno))"))
        }
        if let code = CgroupFile.write(supervisor + "/cgroup.procs", String(getpid())) {
            return .failure(CgroupProbe.Refusal("cannot move jobd into \(supervisor): \(CgroupFile.describe(code))"))
        }
        let available = CgroupText.controllers(CgroupFile.read(directory + "/cgroup.controllers") ?? "")
        let enabled = wantedControllers.filter {
            available.contains($0) && CgroupFile.write(directory + "/cgroup.subtree_control", "+" + $0) == nil
        }
        let cgroup = DelegatedCgroup(directory: directory, path: probe.ownPath!, controllers: enabled)
        cgroup.removeStaleRuns()
        return .success(cgroup)
    }

    /// A new cgroup for a run, named after its `JOBD_RUN_ID` (unique across restarts, so that a
    /// kept cgroup of an earlier jobd never clashes).
    func makeRunCgroup(invocationID: String, runID: UInt64) -> Result<RunCgroup, CgroupProbe.Refusal> {
        let name = "run-" + (invocationID.isEmpty ? String(runID) : invocationID)
        let run = RunCgroup(directory: directory + "/" + name, path: path + "/" + name)
        guard mkdir(run.directory, 0o755) == 0 else {
            return .failure(CgroupProbe.Refusal("cannot create the cgroup \(run.path): \(CgroupFile.describe(errno))"))
        }
        return .success(run)
    }

    /// Remembers a run's cgroup that still has processes jobd leaves running; it is removed once
    /// it empties (looked at whenever a run ends, and at jobd's next start).
    func keep(_ run: RunCgroup) {
        kept.withLock { $0.append(run) }
    }

    /// Removes the kept cgroups that have emptied since.
    func removeEmptyKept() {
        let candidates = kept.withLock { $0 }
        let removed = candidates.filter { $0.remove() }.map(\.directory)
        guard !removed.isEmpty else { return }
        kept.withLock { $0.removeAll { removed.contains($0.directory) } }
    }

    /// At start: removes the empty run cgroups an earlier jobd left, and keeps watching those with
    /// processes still in them.
    private func removeStaleRuns() {
        guard case .success(let names) = FileSystem.directoryEntries(directory) else { return }
        for name in names where name.hasPrefix("run-") {
            let run = RunCgroup(directory: directory + "/" + name, path: path + "/" + name)
            if !run.remove() { keep(run) }
        }
    }
}
