import Glibc

/// The cgroup of one run (`<jobd's cgroup>/run-<JOBD_RUN_ID>`): the run's process enters it before
/// its command runs (``Trampoline``), so every process the run starts is in it
/// unless it is moved out by root; what is left of a run, stopping it, and what it used are read
/// from it rather than guessed from process groups.
package struct RunCgroup: Sendable {
    /// The directory, under the cgroup file system's mount.
    let directory: String
    /// As `/proc/PID/cgroup` names it: `/system.slice/jobd.service/runs/run-…`.
    package let path: String
    /// Its twin on the pids controller's cgroup v1 hierarchy, where jobd limits tasks there.
    let legacyPids: String?

    init(directory: String, path: String, legacyPids: String? = nil) {
        self.directory = directory
        self.path = path
        self.legacyPids = legacyPids
    }

    /// The directories the run's process enters (`jobd-cgexec --cgroup`).
    var entered: [String] { [directory] + (legacyPids.map { [$0] } ?? []) }

    /// The processes in it now (zombies are not listed: they are already gone).
    var members: [pid_t] { CgroupText.pids(procs: CgroupFile.read(directory + "/cgroup.procs") ?? "") }

    /// Whether a process is still in it; a cgroup that cannot be read counts as empty.
    var isPopulated: Bool {
        CgroupFile.read(directory + "/cgroup.events").flatMap { CgroupText.populated(events: $0) } ?? false
    }

    /// Sends `signal` to every process in it. (A process forked while this runs may miss it; the
    /// stop that follows a SIGTERM is `cgroup.kill`, which misses none.)
    func signal(_ signal: Int32) {
        for pid in members { Glibc.kill(pid, signal) }
    }

    /// SIGKILL to every process in it, with `cgroup.kill` (Linux 5.14), which also reaches processes
    /// forked meanwhile; one by one on older kernels.
    func kill() {
        if CgroupFile.write(directory + "/cgroup.kill", "1") != nil { signal(SIGKILL) }
    }

    /// CPU time and peak memory, if the cgroup reports them.
    var usage: RunUsage? {
        guard let stat = CgroupFile.read(directory + "/cpu.stat"), let cpu = CgroupText.cpuUsage(cpuStat: stat) else { return nil }
        let peak = CgroupFile.read(directory + "/memory.peak").flatMap(CgroupText.number)
        return RunUsage(cpuUSec: cpu.total, userUSec: cpu.user, systemUSec: cpu.system, memoryPeak: peak)
    }

    /// Removes the cgroup (and its v1 twin); fails (EBUSY) while a process is in it. One already
    /// gone counts as removed.
    func remove() -> Bool {
        entered.reversed().allSatisfy { rmdir($0) == 0 || errno == ENOENT }
    }
}
