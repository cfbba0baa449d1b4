import Glibc

/// The cgroup of one run (`<jobd's cgroup>/run-<JOBD_RUN_ID>`): the run's process enters it before
/// its command runs (``Trampoline``), so every process the run starts is in it
/// unless it is moved out by root; what is left of a run, stopping it, and what it used are read
/// from it rather than guessed from process groups.
package struct RunCgroup: Sendable {
    /// The directory, under the cgroup file system's mount.
    package let directory: String
    /// As `/proc/PID/cgroup` names it: `/system.slice/jobd.service/runs/run-…`.
    package let path: String
    /// Its twins on the cgroup v1 hierarchies of controllers the unified one lacks, by controller
    /// (`pids`, `memory`, `cpu`, `blkio`), where jobd limits the run there.
    package let legacy: [String: String]
    /// Whether its cgroup on the unified hierarchy has the memory controller's files
    /// (`memory.peak`, `memory.events`): not where the controller sits on v1 or is missing, as on
    /// a hybrid host, where looking for them would cost two failed opens a run.
    package let hasUnifiedMemory: Bool

    package init(directory: String, path: String, legacy: [String: String] = [:], hasUnifiedMemory: Bool = true) {
        self.directory = directory
        self.path = path
        self.legacy = legacy
        self.hasUnifiedMemory = hasUnifiedMemory
    }

    /// The directories the run's process enters (`jobd-cgexec --cgroup`): its cgroup, then its twins.
    var entered: [String] { [directory] + DelegatedCgroup.legacyControllers.compactMap { legacy[$0] } }

    /// The processes in it now (zombies are not listed: they are already gone).
    var members: [pid_t] { CgroupText.pids(procs: CgroupFile.read(directory + "/cgroup.procs") ?? "") }

    /// Whether a process is still in it; a cgroup that cannot be read counts as empty.
    var isPopulated: Bool {
        CgroupFile.readRecord(directory + "/cgroup.events").flatMap { CgroupText.populated(events: $0) } ?? false
    }

    /// Sends `signal` to every process in it but `skipping` (a main process already signalled,
    /// which systemd too signals once), each through a pidfd (``PidSignal``): a process that
    /// ended after `cgroup.procs` was read is not signalled, nor another given its pid since. (A
    /// process forked while this runs may miss it; the stop that follows a SIGTERM is
    /// `cgroup.kill`, which misses none.)
    func signal(_ signal: Int32, skipping: pid_t = 0) {
        for pid in members where pid != skipping { PidSignal.send(signal, to: pid, inCgroup: path) }
    }

    /// SIGKILL to every process in it, with `cgroup.kill` (Linux 5.14), which also reaches processes
    /// forked meanwhile; one by one on older kernels.
    func kill() {
        if CgroupFile.write(directory + "/cgroup.kill", "1") != nil { signal(SIGKILL) }
    }

    /// CPU time and peak memory, if the cgroup reports them.
    var usage: RunUsage? {
        guard let stat = CgroupFile.readRecord(directory + "/cpu.stat"), let cpu = CgroupText.cpuUsage(cpuStat: stat) else { return nil }
        let peak = hasUnifiedMemory ? CgroupFile.readRecord(directory + "/memory.peak").flatMap(CgroupText.number) : nil
        return RunUsage(cpuUSec: cpu.total, userUSec: cpu.user, systemUSec: cpu.system, memoryPeak: peak)
    }

    /// How many processes the kernel's OOM killer killed in it: `oom_kill` of `memory.events` on
    /// the unified hierarchy (with those of cgroups below), of `memory.oom_control` on v1; 0 where
    /// neither can be read.
    var oomKills: UInt64 {
        if let memory = legacy["memory"] {
            return CgroupFile.readRecord(memory + "/memory.oom_control").flatMap { CgroupText.oomKills(events: $0) } ?? 0
        }
        guard hasUnifiedMemory else { return 0 }
        return CgroupFile.readRecord(directory + "/memory.events").flatMap { CgroupText.oomKills(events: $0) } ?? 0
    }

    /// Removes the cgroup (and its v1 twins); fails (EBUSY) while a process is in it. One already
    /// gone counts as removed.
    func remove() -> Bool {
        entered.reversed().allSatisfy { rmdir($0) == 0 || errno == ENOENT }
    }
}
