import JobdConfig
@testable import JobdRunner
import Testing

/// How many tasks the runs get together and each (issue 26: runs cannot starve jobd).
struct TaskBudgetTests {
    static func settings(_ text: String) throws -> DaemonSettings {
        try DaemonSettings.read(path: "/c/jobd.conf", text: "[Daemon]\n" + text).get()
    }

    @Test(arguments: [
        // jobd.conf, jobd's own pids.max, the system's maximum -> runs together, a run by default
        ("", UInt64?(4_915), UInt64(32_767), UInt64?(4_659), UInt64?(4_915)),
        ("", nil, 32_767, 32_511, 4_915),
        ("", 300, 32_767, 150, 4_915),
        ("", 1, 32_767, 1, 4_915),
        ("RunsTasksMax=1000\n", 4_915, 32_767, 1_000, 4_915),
        ("RunsTasksMax=infinity\nDefaultTasksMax=infinity\n", 4_915, 32_767, nil, nil),
        ("RunsTasksMax=10%\nDefaultTasksMax=64\n", nil, 32_767, 3_276, 64),
    ])
    func runsKeepAReserveForJobd(conf: String, own: UInt64?, system: UInt64, runs: UInt64?, perRun: UInt64?) throws {
        let budget = TaskBudget(settings: try Self.settings(conf), own: own, systemMaximum: system)
        #expect(budget.runs == runs)
        #expect(budget.defaultPerRun == perRun)
    }

    @Test func aJobsOwnTasksMaxWinsOverTheDefault() throws {
        let budget = TaskBudget(settings: try Self.settings("DefaultTasksMax=64\n"), own: 4_915, systemMaximum: 32_767)
        #expect(budget.perRun(.count(20)) == 20)
        #expect(budget.perRun(.permyriad(100)) == 327)
        #expect(budget.perRun(.infinity) == nil)
        #expect(budget.perRun(nil) == 64)
    }

    /// Issue 37: one user's runs together have `DefaultTasksMax=`, and never more than half of what
    /// all runs may hold, so that root's runs keep the rest.
    @Test(arguments: [
        // jobd.conf, jobd's own pids.max -> one user's runs together
        ("DefaultTasksMax=64\n", UInt64?(400), UInt64?(64)),
        ("DefaultTasksMax=64\n", 100, 25),
        ("DefaultTasksMax=infinity\n", 400, 100),
        ("RunsTasksMax=infinity\nDefaultTasksMax=64\n", 400, 64),
        ("RunsTasksMax=infinity\nDefaultTasksMax=infinity\n", 400, nil),
        ("RunsTasksMax=1\n", 400, 1),
    ])
    func aUsersRunsTogetherHaveTheDefaultAndAtMostHalfOfTheRuns(conf: String, own: UInt64?, perUser: UInt64?) throws {
        let budget = TaskBudget(settings: try Self.settings(conf), own: own, systemMaximum: 32_767)
        #expect(budget.perUser == perUser, "runs \(budget.runs.map(String.init) ?? "none")")
    }

    @Test func thePidsControllersV1HierarchyIsFoundWhereTheUnifiedOneLacksIt() {
        let cgroups = "9:name=systemd:/system.slice/jobd.service\n8:pids:/system.slice/jobd.service\n4:cpu,cpuacct:/\n0::/system.slice/jobd.service\n"
        #expect(CgroupText.legacyPath(procSelfCgroup: cgroups, controller: "pids") == "/system.slice/jobd.service")
        #expect(CgroupText.legacyPath(procSelfCgroup: cgroups, controller: "cpuacct") == "/")
        #expect(CgroupText.legacyPath(procSelfCgroup: "0::/system.slice/jobd.service\n", controller: "pids") == nil)
        let mountinfo = """
            30 25 0:26 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw
            31 25 0:27 / /sys/fs/cgroup/pids rw,relatime shared:9 - cgroup cgroup rw,pids
            32 25 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct
            33 25 0:29 /machine /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
            """
        #expect(CgroupText.legacyMount(mountinfo: mountinfo, controller: "pids") == "/sys/fs/cgroup/pids")
        #expect(CgroupText.legacyMount(mountinfo: mountinfo, controller: "cpuacct") == "/sys/fs/cgroup/cpu,cpuacct")
        #expect(CgroupText.legacyMount(mountinfo: mountinfo, controller: "memory") == nil, "not the hierarchy's root")
        #expect(CgroupText.pidsMax("max\n") == nil && CgroupText.pidsMax("4915\n") == 4_915)
    }

    @Test func aRunEntersItsV1TwinToo() {
        let cgroup = RunCgroup(directory: "/sys/fs/cgroup/unified/jobd/runs/run-1", path: "/jobd/runs/run-1",
                               legacy: ["pids": "/sys/fs/cgroup/pids/jobd/runs/run-1"])
        #expect(Trampoline.plan(cgroup: cgroup, account: nil, directory: nil, environment: [:], argv: ["/bin/true"]).cgroups == [
            "/sys/fs/cgroup/unified/jobd/runs/run-1", "/sys/fs/cgroup/pids/jobd/runs/run-1",
        ])
    }
}
