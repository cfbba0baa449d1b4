import Foundation
@testable import JobdRunner
import Testing

/// The cgroup files jobd reads, parsed from the texts the kernel writes.
struct CgroupTextTests {
    @Test func theUnifiedPathIsTheZeroLineOfProcSelfCgroup() {
        #expect(CgroupText.unifiedPath(procSelfCgroup: "0::/system.slice/jobd.service\n") == "/system.slice/jobd.service")
        // Hybrid: v1 controllers first, the unified line last.
        let hybrid = "9:name=systemd:/system.slice/jobd.service\n4:memory:/\n0::/system.slice/jobd.service/supervisor\n"
        #expect(CgroupText.unifiedPath(procSelfCgroup: hybrid) == "/system.slice/jobd.service/supervisor")
        // Legacy only, and a cgroup outside this namespace's root.
        #expect(CgroupText.unifiedPath(procSelfCgroup: "4:memory:/\n1:name=systemd:/\n") == nil)
        #expect(CgroupText.unifiedPath(procSelfCgroup: "0::..\n") == nil)
    }

    @Test func theCgroup2MountIsFoundOnUnifiedAndHybridSystems() {
        let unified = """
            24 30 0:22 / /sys ro,nosuid shared:7 - sysfs sysfs rw
            35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
            """
        #expect(CgroupText.cgroup2Mount(mountinfo: unified) == "/sys/fs/cgroup")
        let hybrid = """
            45 101 0:50 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:13 - tmpfs tmpfs ro,size=4096k,mode=755
            53 45 0:32 / /sys/fs/cgroup/memory ro,nosuid,nodev,noexec,relatime shared:15 - cgroup cgroup rw,memory
            60 45 0:38 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:22 - cgroup2 cgroup rw
            """
        #expect(CgroupText.cgroup2Mount(mountinfo: hybrid) == "/sys/fs/cgroup/unified")
        // A bind mount of a sub-cgroup is no place to append paths to; an escaped space is a space.
        #expect(CgroupText.cgroup2Mount(mountinfo: "60 45 0:38 /sub /mnt rw - cgroup2 cgroup rw") == nil)
        #expect(CgroupText.cgroup2Mount(mountinfo: "60 45 0:38 / /mnt/c\\040g rw - cgroup2 cgroup rw") == "/mnt/c g")
        #expect(CgroupText.cgroup2Mount(mountinfo: "53 45 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory") == nil)
    }

    @Test func cgroupEventsSaysWhetherTheCgroupIsPopulated() {
        #expect(CgroupText.populated(events: "populated 1\nfrozen 0\n") == true)
        #expect(CgroupText.populated(events: "populated 0\nfrozen 0\n") == false)
        #expect(CgroupText.populated(events: "frozen 0\n") == nil)
    }

    @Test func cpuStatGivesTheCPUTimeWithOrWithoutTheCPUController() {
        let bare = "usage_usec 1818\nuser_usec 1200\nsystem_usec 618\nnice_usec 0\n"
        #expect(CgroupText.cpuUsage(cpuStat: bare).map { [$0.total, $0.user, $0.system] } == [1818, 1200, 618])
        let controller = bare + "nr_periods 0\nnr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n"
        #expect(CgroupText.cpuUsage(cpuStat: controller)?.total == 1818)
        #expect(CgroupText.cpuUsage(cpuStat: "usage_usec 5\n") == nil)
    }

    /// A one-record file in one read; a longer one (not a cgroup's) still whole, and a missing one nil.
    @Test func aRecordIsReadWholeInOneReadOrMore() throws {
        let path = NSTemporaryDirectory() + "jobd-record-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "usage_usec 1818\nuser_usec 1200\nsystem_usec 618\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(CgroupFile.readRecord(path).flatMap(CgroupText.cpuUsage)?.system == 618)
        let long = String(repeating: "populated 0\n", count: 1_000) + "oom_kill 3\n"
        try long.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(CgroupFile.readRecord(path) == long)
        #expect(CgroupFile.readRecord(path + ".missing") == nil)
    }

    @Test func memoryPeakProcsAndControllers() {
        #expect(CgroupText.number("12910592\n") == 12_910_592)
        #expect(CgroupText.number("max\n") == nil)
        #expect(CgroupText.pids(procs: "101\n102\n") == [101, 102])
        #expect(CgroupText.pids(procs: "") == [])
        #expect(CgroupText.controllers("cpuset cpu io memory pids\n") == ["cpuset", "cpu", "io", "memory", "pids"])
        #expect(CgroupText.controllers("\n").isEmpty)
    }
}
