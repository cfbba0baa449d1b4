import Glibc
package import JobdConfig
import JobdLocks

/// The cgroup subtree systemd delegated to jobd (`Delegate=yes` in jobd.service): jobd itself moves
/// into `supervisor` (cgroup v2 lets processes live only in leaves once controllers are enabled),
/// and each run gets `runs/run-<JOBD_RUN_ID>`, so that `runs/pids.max` bounds every run together
/// and leaves jobd room for its own threads (``TaskBudget``); a run of a user's own job gets
/// `runs/user-UID/run-<JOBD_RUN_ID>`, whose parent's `pids.max` bounds that user's runs together. systemd puts the unit's control
/// processes (`ExecReload=`) into `.control`, which jobd leaves alone.
///
/// Where a controller sits on a cgroup v1 hierarchy (a hybrid system, such as a host whose
/// controllers are bound to v1), jobd makes the same `runs/run-…` tree in its cgroup there, as
/// systemd 252 applies `TasksMax=`, `MemoryMax=`, `CPUWeight=`, `CPUQuota=` and `IOWeight=` on the
/// legacy hierarchy, and the run enters both: always for pids (every run has a task limit), for
/// memory, cpu and blkio only when its job sets a key of theirs.
package final class DelegatedCgroup: Sendable {
    /// jobd's cgroup directory and its path as `/proc/self/cgroup` names it.
    let directory: String
    let path: String
    /// The controllers enabled for the runs (`memory`, `pids`, `cpu`, `io`, where the system has them;
    /// `io` below `runs` only once a run needs it).
    let controllers: [String]
    /// jobd's cgroups on the v1 hierarchies of the controllers that are not on the unified
    /// hierarchy (by the v1 name: `pids`, `memory`, `cpu`, `blkio`), where jobd may make cgroups there.
    let legacy: [String: String]
    /// Where jobd's task limit and the runs' are (`pids.max`): jobd's cgroup where the pids
    /// controller is enabled in it, else its cgroup on the v1 hierarchy; `nil` with neither.
    private var pidsDirectory: String? { controllers.contains("pids") ? directory : legacy["pids"] }
    /// The task limits in force (set at start and at each reload by ``limitTasks(_:)``).
    private let budget = LockedBox<TaskBudget?>(nil)
    /// Cgroups of runs whose leftovers were kept (`KillMode=process`): removed once they empty.
    private let kept = LockedBox<[RunCgroup]>([])

    private init(directory: String, path: String, controllers: [String], legacy: [String: String]) {
        self.directory = directory
        self.path = path
        self.controllers = controllers
        self.legacy = legacy
    }

    /// The controllers jobd enables for its runs, where the kernel offers them.
    static let wantedControllers = ["memory", "pids", "cpu", "io"]
    /// Controllers enabled below `runs` only once a run needs them (`IOWeight=`), so that runs
    /// without the key cost what they did before it.
    static let onDemand: Set<String> = ["io"]
    /// The v1 hierarchies jobd uses where the unified one lacks their controller (`blkio` is v2's `io`).
    static let legacyControllers = ["pids", "memory", "cpu", "blkio"]
    /// A controller's name on the unified hierarchy.
    static func unifiedName(_ controller: String) -> String { controller == "blkio" ? "io" : controller }
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
                && (onDemand.contains($0) || CgroupFile.write(runs + "/cgroup.subtree_control", "+" + $0) == nil)
        }
        var legacy: [String: String] = [:]
        for controller in legacyControllers where !enabled.contains(unifiedName(controller)) {
            legacy[controller] = legacyCgroup(controller, mountinfo: mountinfo ?? "", ownCgroups: ownCgroups ?? "")
        }
        let cgroup = DelegatedCgroup(directory: directory, path: probe.ownPath!, controllers: enabled, legacy: legacy)
        cgroup.removeStaleRuns()
        return .success(cgroup)
    }

    /// jobd's cgroup on `controller`'s v1 hierarchy, with `runs` made in it; `nil` where there is
    /// none jobd may use (no such hierarchy, jobd in its root, or read-only, as in a container).
    private static func legacyCgroup(_ controller: String, mountinfo: String, ownCgroups: String) -> String? {
        guard let mount = CgroupText.legacyMount(mountinfo: mountinfo, controller: controller),
              let ownPath = CgroupText.legacyPath(procSelfCgroup: ownCgroups, controller: controller), ownPath != "/" else { return nil }
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
        let systemMaximum = TasksMax.currentSystemMaximum()
        let own = CgroupFile.read(pidsDirectory + "/pids.max").flatMap(CgroupText.pidsMax)
        let limits = TaskBudget(settings: settings, own: own, systemMaximum: systemMaximum)
        budget.withLock { $0 = limits }
        let file = pidsDirectory + "/" + Self.runsName + "/pids.max"
        if let code = CgroupFile.write(file, TasksMax.pidsMaxText(limits.runs)) {
            return .failure(TaskBudget.Failure(description: "cannot write \(file): \(CgroupFile.describe(code))"))
        }
        return .success(limits)
    }

    /// Where `controller`'s files (by its v1 name) are for the runs: in their cgroups on the unified
    /// hierarchy, in their twins on its v1 one, or nowhere jobd may write.
    func hierarchy(_ controller: String) -> CgroupSettings.Hierarchy? {
        controllers.contains(Self.unifiedName(controller)) ? .unified : legacy[controller] != nil ? .legacy : nil
    }

    /// The keys of `resources` that jobd cannot apply to a run's cgroup here, each with the reason
    /// (a job that sets one is broken at load, never run without its limit).
    package func refusals(_ resources: ResourceControl) -> [(key: ResourceControl.Key, reason: String)] {
        resources.keys.compactMap { key in refusal(key, resources: resources).map { (key, $0) } }
    }

    private func refusal(_ key: ResourceControl.Key, resources: ResourceControl) -> String? {
        let controller = CgroupSettings.controller(of: key)
        let unifiedRuns = directory + "/" + Self.runsName + "/"
        let exists = { (file: String) in access(file, F_OK) == 0 }
        switch hierarchy(controller) {
        case nil:
            return "the \(Self.unifiedName(controller)) controller is neither enabled in jobd's cgroup \(path) nor on a writable cgroup v1 hierarchy"
        case .unified?:
            switch key {
            case .memorySwapMax where !exists(unifiedRuns + "memory.swap.max"):
                return "the kernel does not account swap in cgroups (no memory.swap.max: no swap support, or swapaccount=0)"
            case .cpuWeight where resources.cpuWeight == ResourceControl.idleWeight && !exists(unifiedRuns + "cpu.idle"):
                return "this kernel has no idle cgroups (no cpu.idle; Linux 5.15 has them)"
            case .ioWeight where !exists(unifiedRuns + "io.weight") && !exists(unifiedRuns + "io.bfq.weight"):
                return "no I/O scheduler of this kernel takes weights (no io.weight or io.bfq.weight in \(path)/\(Self.runsName))"
            default:
                return nil
            }
        case .legacy?:
            let legacyRuns = (legacy[controller] ?? "") + "/" + Self.runsName + "/"
            switch key {
            case .memoryHigh:
                return "the memory controller is on the cgroup v1 hierarchy, which has no throttling limit "
                    + "(systemd 252 ignores MemoryHigh= there)"
            case .memorySwapMax:
                return "the memory controller is on the cgroup v1 hierarchy, which limits memory and swap together "
                    + "(memory.memsw.limit_in_bytes), never swap alone (systemd 252 ignores MemorySwapMax= there)"
            case .ioWeight where !exists(legacyRuns + "blkio.weight") && !exists(legacyRuns + "blkio.bfq.weight"):
                return "no I/O scheduler of this kernel takes weights (no blkio.weight or blkio.bfq.weight on the cgroup v1 "
                    + "hierarchy, where systemd 252 would write them)"
            default:
                return nil
            }
        }
    }

    /// A new cgroup for a run, named after its `JOBD_RUN_ID` (unique across restarts, so that a
    /// kept cgroup of an earlier jobd never clashes), with the run's task limit and `resources`.
    /// Its twins on v1 hierarchies are made for pids and for each controller `resources` needs.
    /// A run of a user's own job (`user`: the user's uid) goes below `runs/user-UID` (``prepareUserCgroup(_:twins:)``).
    func makeRunCgroup(invocationID: String, runID: UInt64, tasksMax: TasksMax?, resources: ResourceControl, user: UInt32? = nil) -> Result<RunCgroup, CgroupProbe.Refusal> {
        let parent = Self.runsName + (user.map { "/" + Self.userPrefix + String($0) } ?? "")
        let name = parent + "/run-" + (invocationID.isEmpty ? String(runID) : invocationID)
        let needed = Set(["pids"] + resources.keys.map(CgroupSettings.controller(of:)))
        let twins = legacy.filter { needed.contains($0.key) }.mapValues { $0 + "/" + name }
        let run = RunCgroup(directory: directory + "/" + name, path: path + "/" + name, legacy: twins,
                            hasUnifiedMemory: controllers.contains("memory"))
        for controller in Self.onDemand where resources.keys.contains(where: { Self.unifiedName(CgroupSettings.controller(of: $0)) == controller })
            && controllers.contains(controller) {
            let file = directory + "/" + Self.runsName + "/cgroup.subtree_control"
            if let code = CgroupFile.write(file, "+" + controller) {
                return .failure(CgroupProbe.Refusal("cannot enable the \(controller) controller in \(file): \(CgroupFile.describe(code))"))
            }
        }
        if user != nil, let refusal = prepareUserCgroup(parent, twins: Array(twins.keys)) { return .failure(refusal) }
        // One that exists is an adopted run's (issue 36): names are its JOBD_RUN_ID, made once.
        for made in run.entered where mkdir(made, 0o755) != 0 && errno != EEXIST {
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
        guard !resources.isEmpty else { return .success(run) }
        let pageSize = UInt64(sysconf(Int32(_SC_PAGESIZE)))
        let writes = CgroupSettings.writes(resources, hierarchy: hierarchy, physicalMemory: UInt64(sysconf(Int32(_SC_PHYS_PAGES))) * pageSize,
                                           pageSize: pageSize)
        for write in writes {
            let place = hierarchy(write.controller) == .unified ? run.directory : run.legacy[write.controller] ?? run.directory
            var failures: [String] = []
            for choice in write.choices {
                guard let code = CgroupFile.write(place + "/" + choice.file, choice.value) else { break }
                failures.append("\(place)/\(choice.file): \(CgroupFile.describe(code))")
            }
            if failures.count == write.choices.count {
                _ = run.remove()
                return .failure(CgroupProbe.Refusal("cannot set \(write): " + failures.joined(separator: "; ")))
            }
        }
        return .success(run)
    }

    /// The name of a user's cgroup in `runs`, before the uid: `user-1000`.
    static let userPrefix = "user-"

    /// Makes `name` (`runs/user-UID`) where it is missing, on the unified hierarchy and on the v1
    /// hierarchies of `twins`, with the controllers of `runs` enabled below it (on cgroup v2 a run's
    /// cgroup has a controller only where its parent enables it), and sets its `pids.max` to the
    /// user's budget (``TaskBudget/perUser``), at each run, so that a reload's applies: one user's
    /// runs together can never take every task root's runs need (issue 37).
    private func prepareUserCgroup(_ name: String, twins: [String]) -> CgroupProbe.Refusal? {
        for made in [directory + "/" + name] + twins.compactMap({ legacy[$0].map { $0 + "/" + name } })
        where mkdir(made, 0o755) != 0 && errno != EEXIST {
            return CgroupProbe.Refusal("cannot create the cgroup \(made): \(CgroupFile.describe(errno))")
        }
        let enabled = CgroupText.controllers(CgroupFile.read(directory + "/" + Self.runsName + "/cgroup.subtree_control") ?? "")
        for controller in enabled {
            if let code = CgroupFile.write(directory + "/" + name + "/cgroup.subtree_control", "+" + controller) {
                return CgroupProbe.Refusal("cannot enable the \(controller) controller in \(directory)/\(name): \(CgroupFile.describe(code))")
            }
        }
        if let limits = budget.withLock({ $0 }), let pids = pidsDirectory.map({ $0 + "/" + name + "/pids.max" }) {
            let limit = TasksMax.pidsMaxText(limits.perUser)
            if let code = CgroupFile.write(pids, limit) {
                return CgroupProbe.Refusal("cannot limit the user's runs' tasks to \(limit) (\(pids)): \(CgroupFile.describe(code))")
            }
        }
        return nil
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
        // Users' runs are a level deeper, in runs/user-UID.
        var users: [String] = []
        if case .success(let names) = FileSystem.directoryEntries(directory + "/" + Self.runsName) {
            users = names.filter { $0.hasPrefix(Self.userPrefix) }.map { "/" + Self.runsName + "/" + $0 }
        }
        for parent in ["", "/" + Self.runsName] + users {
            guard case .success(let names) = FileSystem.directoryEntries(directory + parent) else { continue }
            for name in names where name.hasPrefix("run-") {
                let run = RunCgroup(directory: directory + parent + "/" + name, path: path + parent + "/" + name,
                                    legacy: parent.isEmpty ? [:] : legacy.mapValues { $0 + parent + "/" + name })
                if !run.remove() { keep(run) }
            }
        }
        // A run's v1 cgroups whose unified one is already gone (jobd stopped between the two).
        for runs in legacy.values.flatMap({ top in (["/" + Self.runsName] + users).map { top + $0 } }) {
            guard case .success(let names) = FileSystem.directoryEntries(runs) else { continue }
            for name in names where name.hasPrefix("run-") { rmdir(runs + "/" + name) }
        }
    }
}
