import JobdConfig

/// The cgroup files a run's resource keys are written to, and what each gets, on the hierarchy its
/// controller is on: pure, so that every conversion is tested without a cgroup. The values are
/// systemd 252's (`cgroup_context_apply` in src/core/cgroup.c): on the unified hierarchy each key has
/// its own file; on a cgroup v1 one, `MemoryMax=` is `memory.limit_in_bytes`, `CPUWeight=` becomes
/// `cpu.shares`, `CPUQuota=` `cpu.cfs_quota_us` over `cpu.cfs_period_us`, and `IOWeight=`
/// `blkio.weight`. `MemoryHigh=` and `MemorySwapMax=`, which systemd ignores there, never get here:
/// ``DelegatedCgroup/refusal(for:)`` refuses them at load.
struct CgroupSettings {
    /// Where a controller's files are for jobd's runs.
    enum Hierarchy: Equatable {
        case unified
        case legacy
    }

    /// One value to write: the first file of `choices` the kernel takes is enough (a weight goes to
    /// the BFQ scheduler's file and the generic one, where either exists, as systemd writes both).
    struct Write: Equatable, CustomStringConvertible {
        /// The controller, as the v1 hierarchy is named (`memory`, `cpu`, `blkio`).
        var controller: String
        var choices: [Choice]

        struct Choice: Equatable {
            var file: String
            var value: String
        }

        init(_ controller: String, _ file: String, _ value: String) {
            self.controller = controller
            choices = [Choice(file: file, value: value)]
        }

        init(_ controller: String, choices: [(String, String)]) {
            self.controller = controller
            self.choices = choices.map { Choice(file: $0.0, value: $0.1) }
        }

        var description: String { choices.map { "\($0.file)=\($0.value)" }.joined(separator: " or ") }
    }

    /// The controller each key needs, as its v1 hierarchy is named.
    static func controller(of key: ResourceControl.Key) -> String {
        switch key {
        case .memoryMax, .memoryHigh, .memorySwapMax: "memory"
        case .cpuWeight, .cpuQuota: "cpu"
        case .ioWeight: "blkio"
        }
    }

    /// systemd's period for `CPUQuota=` (`CPUQuotaPeriodSec=` unset): 100 ms.
    static let defaultPeriod: UInt64 = 100_000

    /// What to write for `resources`; `hierarchy` says where each controller is (jobd checked at load
    /// that every key set has one).
    static func writes(
        _ resources: ResourceControl, hierarchy: (String) -> Hierarchy?, physicalMemory: UInt64, pageSize: UInt64
    ) -> [Write] {
        var writes: [Write] = []
        let memory = hierarchy("memory")
        func bytes(_ limit: ResourceControl.MemoryLimit) -> String {
            String(limit.resolved(physicalMemory: physicalMemory, pageSize: pageSize))
        }
        if let limit = resources.memoryMax {
            writes.append(memory == .unified ? Write("memory", "memory.max", bytes(limit)) : Write("memory", "memory.limit_in_bytes", bytes(limit)))
        }
        if memory == .unified {
            if let limit = resources.memoryHigh { writes.append(Write("memory", "memory.high", bytes(limit))) }
            if let limit = resources.memorySwapMax { writes.append(Write("memory", "memory.swap.max", bytes(limit))) }
        }
        let cpu = hierarchy("cpu")
        if let weight = resources.cpuWeight {
            if cpu == .unified {
                writes.append(weight == ResourceControl.idleWeight ? Write("cpu", "cpu.idle", "1") : Write("cpu", "cpu.weight", String(weight)))
            } else {
                writes.append(Write("cpu", "cpu.shares", String(shares(weight))))
            }
        }
        if let quota = resources.cpuQuota {
            let (quota, period) = quotaAndPeriod(permyriad: quota)
            if cpu == .unified {
                writes.append(Write("cpu", "cpu.max", "\(quota) \(period)"))
            } else {
                writes += [Write("cpu", "cpu.cfs_period_us", String(period)), Write("cpu", "cpu.cfs_quota_us", String(quota))]
            }
        }
        if let weight = resources.ioWeight {
            if hierarchy("blkio") == .unified {
                writes.append(Write("blkio", choices: [("io.bfq.weight", String(bfqWeight(weight))), ("io.weight", "default \(weight)")]))
            } else {
                writes.append(Write("blkio", choices: [("blkio.bfq.weight", String(bfqWeight(weight))), ("blkio.weight", String(blkioWeight(weight)))]))
            }
        }
        return writes
    }

    /// `CPUWeight=` as `cpu.shares` (`cgroup_cpu_weight_to_shares`): 1024 for the default 100,
    /// within 2…262144; `idle`, which v1 lacks, is the least, 2.
    static func shares(_ weight: UInt64) -> UInt64 {
        weight == ResourceControl.idleWeight ? 2 : min(max(weight * 1_024 / 100, 2), 262_144)
    }

    /// `IOWeight=` as `blkio.weight` (`cgroup_weight_io_to_blkio`): 500 for the default 100, within 10…1000.
    static func blkioWeight(_ weight: UInt64) -> UInt64 {
        min(max(weight * 500 / 100, 10), 1_000)
    }

    /// `IOWeight=` as BFQ's weight (`BFQ_WEIGHT`): 1…1000 with 100 at the default, linear on each side.
    static func bfqWeight(_ weight: UInt64) -> UInt64 {
        weight <= 100 ? 100 - (100 - weight) * 99 / 99 : 100 + (weight - 100) * 900 / 9_900
    }

    /// `CPUQuota=` as microseconds per period, and the period (`cgroup_cpu_adjust_period`): 100 ms,
    /// longer for a quota under 1% so that each period grants at least 1 ms, at most 1 s.
    static func quotaAndPeriod(permyriad: UInt64) -> (quota: UInt64, period: UInt64) {
        let perSecond = permyriad * 100  // microseconds of CPU time per second
        let period = min(max(defaultPeriod, 1_000, 1_000 * 1_000_000 / perSecond), 1_000_000)
        return (max(perSecond * period / 1_000_000, 1_000), period)
    }
}
