import Glibc
package import JobdConfig
import JobdLocks

/// The cgroup subtree systemd delegated to jobd (`Delegate=yes` in jobd.service): jobd itself moves
/// into `supervisor` (cgroup v2 lets processes live only in leaves once controllers are enabled),
/// and each run gets `runs/run-<JOBD_RUN_ID>`, so that `runs/pids.max` bounds every run together
/// and leaves jobd room for its own threads (``TaskBudget``). systemd puts the unit's control
/// processes (`ExecReload=`) into `.control`, which jobd leaves alone.
///
/// Where the pids controller sits on a cgroup v1 hierarchy (a hybrid system, such as a host whose
/// controllers are bound to v1), jobd makes the same `runs/run-…` tree in its cgroup there, as
/// systemd 252 applies `TasksMax=` on the legacy hierarchy, and each run enters both.
package final class DelegatedCgroup: Sendable {
    /// jobd's cgroup directory and its path as `/proc/self/cgroup` names it.
    let directory: String
    let path: String
    /// The controllers enabled for the runs (`memory`, `pids`, `cpu`, where the system has them).
    let controllers: [String]
    /// jobd's cgroup on the v1 hierarchy of the pids controller, where that controller is not on
    /// the unified hierarchy and jobd may make cgroups there.
    let legacyPids: String?
    /// Where jobd's task limit and the runs' are (`pids.max`): jobd's cgroup where the pids
    /// controller is enabled in it, else its cgroup on the v1 hierarchy; `nil` with neither.
    private var pidsDirectory: String? { controllers.contains("pids") ? directory : legacyPids }
    /// The task limits in force (set at start and at each reload by ``limitTasks(_:)``).
    private let budget = LockedBox<TaskBudget?>(nil)
    /// Cgroups of runs whose leftovers were kept (`KillMode=process`): removed once they empty.
    private let kept = LockedBox<[RunCgroup]>([])

    private init(directory: String, path: String, controllers: [String], legacyPids: String?) {
        self.directory = directory
        self.path = path
        self.controllers = controllers
        self.legacyPids = legacyPids
    }

    /// The controllers jobd enables for its runs, where the kernel offers them.
    static let wantedControllers = ["memory", "pids", "cpu"]
    /// The cgroup above every run's, in jobd's.
    static let runsName = "runs"

    /// Takes over jobd's delegated cgroup, or says why not (and then nothing was changed, except
    /// that jobd may already sit in `supervisor`, which is harmless).
    static func setUp() -> Result<DelegatedCgroup, CgroupProbe.Refusal> {
        var probe = CgroupProbe()
        let mountinfo = CgroupFile.read("/proc/self/mountinfo")
        let ownCgroups = CgroupFile.read("/proc/self/cgroup")
        probe.mount = mountinfo.flatMap(CgroupText.cgroup2Mount)
        probe.ownPath = ownCgroups.flatMap(CgroupText.unifiedPath)
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
        let runs = directory + "/" + runsName
        if mkdir(runs, 0o755) != 0 && errno != EEXIST {
            return .failure(CgroupProbe.Refusal("cannot create \(runs): \(CgroupFile.describe(errno))"))
        }
        let available = CgroupText.controllers(CgroupFile.read(directory + "/cgroup.controllers") ?? "")
        let enabled = wantedControllers.filter {
            available.contains($0) && CgroupFile.write(directory + "/cgroup.subtree_control", "+" + $0) == nil
                && CgroupFile.write(runs + "/cgroup.subtree_control", "+" + $0) == nil
        }
        let legacyPids = enabled.contains("pids") ? nil : legacyPidsCgroup(mountinfo: mountinfo ?? "", ownCgroups: ownCgroups ?? "")
        let cgroup = DelegatedCgroup(directory: directory, path: probe.ownPath!, controllers: enabled, legacyPids: legacyPids)
        cgroup.removeStaleRuns()
        return .success(cgroup)
    }

    /// jobd's cgroup on the pids controller's v1 hierarchy, with `runs` made in it; `nil` where
    /// there is none jobd may use (no such hierarchy, jobd in its root, or read-only, as in a
    /// container).
    private static func legacyPidsCgroup(mountinfo: String, ownCgroups: String) -> String? {
        guard let mount = CgroupText.legacyMount(mountinfo: mountinfo, controller: "pids"),
              let ownPath = CgroupText.legacyPath(procSelfCgroup: ownCgroups, controller: "pids"), ownPath != "/" else { return nil }
        let directory = mount + ownPath
        guard access(directory, W_OK) == 0, mkdir(directory + "/" + runsName, 0o755) == 0 || errno == EEXIST else { return nil }
        return directory
    }

    /// Whether runs' task limits can be applied, or why not.
    package var tasksLimitRefusal: String? {
        pidsDirectory != nil ? nil : "the pids controller is neither enabled in jobd's cgroup \(path) nor on a writable cgroup v1 hierarchy"
    }

    /// Sets the task limits from jobd's settings: `runs/pids.max`, and what each new run gets.
    /// Returns what it set, for the log, or why it could not.
    @discardableResult
    package func limitTasks(_ settings: DaemonSettings) -> Result<TaskBudget, TaskBudget.Failure> {
        guard let pidsDirectory else { return .failure(TaskBudget.Failure(description: tasksLimitRefusal ?? "no pids controller")) }
        let systemMaximum = TasksMax.systemMaximum(
            threadsMax: CgroupFile.read("/proc/sys/kernel/threads-max").flatMap(CgroupText.number),
            pidMax: CgroupFile.read("/proc/sys/kernel/pid_max").flatMap(CgroupText.number))
        let own = CgroupFile.read(pidsDirectory + "/pids.max").flatMap(CgroupText.pidsMax)
        let limits = TaskBudget(settings: settings, own: own, systemMaximum: systemMaximum)
        budget.withLock { $0 = limits }
        let file = pidsDirectory + "/" + Self.runsName + "/pids.max"
        if let code = CgroupFile.write(file, TasksMax.pidsMaxText(limits.runs)) {
            return .failure(TaskBudget.Failure(description: "cannot write \(file): \(CgroupFile.describe(code))"))
        }
        return .success(limits)
    }

    /// A new cgroup for a run, named after its `JOBD_RUN_ID` (unique across restarts, so that a
    /// kept cgroup of an earlier jobd never clashes), with the run's task limit.
    func makeRunCgroup(invocationID: String, runID: UInt64, tasksMax: TasksMax?) -> Result<RunCgroup, CgroupProbe.Refusal> {
        let name = Self.runsName + "/run-" + (invocationID.isEmpty ? String(runID) : invocationID)
        let run = RunCgroup(directory: directory + "/" + name, path: path + "/" + name, legacyPids: legacyPids.map { $0 + "/" + name })
        for made in [run.directory] + (run.legacyPids.map { [$0] } ?? []) where mkdir(made, 0o755) != 0 {
            let reason = "cannot create the cgroup \(made): \(CgroupFile.describe(errno))"
            _ = run.remove()
            return .failure(CgroupProbe.Refusal(reason))
        }
        if let limits = budget.withLock({ $0 }), let runPids = pidsDirectory.map({ $0 + "/" + name }) {
            let limit = TasksMax.pidsMaxText(limits.perRun(tasksMax))
            if let code = CgroupFile.write(runPids + "/pids.max", limit) {
                _ = run.remove()
                return .failure(CgroupProbe.Refusal("cannot limit the run's tasks to \(limit) (\(runPids)/pids.max): \(CgroupFile.describe(code))"))
            }
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

    /// At start: removes the empty run cgroups an earlier jobd left (in `runs`, or beside
    /// `supervisor` where a jobd before `runs` put them), and keeps watching those with processes
    /// still in them.
    private func removeStaleRuns() {
        for parent in ["", "/" + Self.runsName] {
            guard case .success(let names) = FileSystem.directoryEntries(directory + parent) else { continue }
            for name in names where name.hasPrefix("run-") {
                let run = RunCgroup(directory: directory + parent + "/" + name, path: path + parent + "/" + name,
                                    legacyPids: parent.isEmpty ? nil : legacyPids.map { $0 + parent + "/" + name })
                if !run.remove() { keep(run) }
            }
        }
        // A run's v1 cgroup whose unified one is already gone (jobd stopped between the two).
        if let legacyPids, case .success(let names) = FileSystem.directoryEntries(legacyPids + "/" + Self.runsName) {
            for name in names where name.hasPrefix("run-") { rmdir(legacyPids + "/" + Self.runsName + "/" + name) }
        }
    }
}
