import JobdConfig
@testable import JobdRunner
import Testing

/// Which cgroup file takes which value for a run's resource keys, as systemd 252's
/// `cgroup_context_apply` writes them on each hierarchy (issue 27).
struct CgroupSettingsTests {
    static func resources(_ lines: String) throws -> ResourceControl {
        try JobFileReader.read(name: "j", path: "/j/j.job", text: "[Job]\nExecStart=/bin/true\n" + lines).get().resourceControl
    }

    static func writes(_ lines: String, on hierarchy: CgroupSettings.Hierarchy) throws -> [String] {
        CgroupSettings.writes(try resources(lines), hierarchy: { _ in hierarchy }, physicalMemory: 8 << 30, pageSize: 4_096)
            .map { "\($0.controller): \($0)" }
    }

    @Test(arguments: [
        ("MemoryMax=50M", ["memory: memory.max=52428800"], ["memory: memory.limit_in_bytes=52428800"]),
        ("MemoryMax=25%", ["memory: memory.max=2147483648"], ["memory: memory.limit_in_bytes=2147483648"]),
        ("MemoryHigh=40M", ["memory: memory.high=41943040"], []),
        ("MemorySwapMax=0", ["memory: memory.swap.max=0"], []),
        ("CPUWeight=200", ["cpu: cpu.weight=200"], ["cpu: cpu.shares=2048"]),
        ("CPUWeight=1", ["cpu: cpu.weight=1"], ["cpu: cpu.shares=10"]),
        ("CPUWeight=10000", ["cpu: cpu.weight=10000"], ["cpu: cpu.shares=102400"]),
        ("CPUWeight=idle", ["cpu: cpu.idle=1"], ["cpu: cpu.shares=2"]),
        ("CPUQuota=20%", ["cpu: cpu.max=20000 100000"], ["cpu: cpu.cfs_period_us=100000", "cpu: cpu.cfs_quota_us=20000"]),
        ("CPUQuota=150%", ["cpu: cpu.max=150000 100000"], ["cpu: cpu.cfs_period_us=100000", "cpu: cpu.cfs_quota_us=150000"]),
        // Under 1%, the period grows so that each grants 1 ms.
        ("CPUQuota=0.5%", ["cpu: cpu.max=1000 200000"], ["cpu: cpu.cfs_period_us=200000", "cpu: cpu.cfs_quota_us=1000"]),
        ("CPUQuota=0.01%", ["cpu: cpu.max=1000 1000000"], ["cpu: cpu.cfs_period_us=1000000", "cpu: cpu.cfs_quota_us=1000"]),
        ("IOWeight=100", ["blkio: io.bfq.weight=100 or io.weight=default 100"], ["blkio: blkio.bfq.weight=100 or blkio.weight=500"]),
        ("IOWeight=1", ["blkio: io.bfq.weight=1 or io.weight=default 1"], ["blkio: blkio.bfq.weight=1 or blkio.weight=10"]),
        ("IOWeight=10000", ["blkio: io.bfq.weight=1000 or io.weight=default 10000"], ["blkio: blkio.bfq.weight=1000 or blkio.weight=1000"]),
        ("IOWeight=1000", ["blkio: io.bfq.weight=181 or io.weight=default 1000"], ["blkio: blkio.bfq.weight=181 or blkio.weight=1000"]),
    ])
    func eachKeyGoesWhereSystemdWritesIt(lines: String, unified: [String], legacy: [String]) throws {
        #expect(try Self.writes(lines + "\n", on: .unified) == unified)
        #expect(try Self.writes(lines + "\n", on: .legacy) == legacy)
    }

    @Test func aJobWithoutTheKeysWritesNothing() throws {
        #expect(try Self.writes("", on: .unified).isEmpty)
        #expect(try Self.writes("MemoryMax=infinity\n", on: .legacy).isEmpty)
    }

    @Test func everyKeyNamesTheControllerThatTakesIt() {
        #expect(ResourceControl.Key.allCases.map(CgroupSettings.controller(of:)) == ["memory", "memory", "memory", "cpu", "cpu", "blkio"])
        #expect(CgroupSettings.shares(100) == 1_024 && CgroupSettings.blkioWeight(100) == 500 && CgroupSettings.bfqWeight(100) == 100)
    }
}
