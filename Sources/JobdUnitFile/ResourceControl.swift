/// What a run's cgroup is limited to, read as systemd 252 reads the same keys of a service
/// (systemd.resource-control(5)): `MemoryMax=`, `MemoryHigh=`, `MemorySwapMax=`, `CPUWeight=`,
/// `CPUQuota=` and `IOWeight=`. jobd writes them to the run's own cgroup (JobdRunner's
/// `CgroupSettings` says which file takes which value on each hierarchy). `TasksMax=` is
/// ``TasksMax``, which has a default of its own.
package struct ResourceControl: Sendable, Hashable {
    package enum Key: String, CaseIterable, Sendable {
        case memoryMax = "MemoryMax"
        case memoryHigh = "MemoryHigh"
        case memorySwapMax = "MemorySwapMax"
        case cpuWeight = "CPUWeight"
        case cpuQuota = "CPUQuota"
        case ioWeight = "IOWeight"
    }

    /// A memory limit: bytes, or a share of the machine's physical memory, resolved when a run starts.
    package enum MemoryLimit: Sendable, Hashable {
        case bytes(UInt64)
        /// In ten-thousandths of the physical memory (`50%` is 5000).
        case permyriad(UInt64)

        /// The bytes, as systemd's `physical_memory_scale` counts a share: whole pages, rounded down.
        package func resolved(physicalMemory: UInt64, pageSize: UInt64) -> UInt64 {
            switch self {
            case .bytes(let bytes): bytes
            case .permyriad(10_000): physicalMemory
            case .permyriad(let share): physicalMemory / pageSize * share / 10_000 * pageSize
            }
        }
    }

    /// `MemoryMax=`: the hard limit; past it the kernel's OOM killer kills in the cgroup. `nil`: none.
    package var memoryMax: MemoryLimit?
    /// `MemoryHigh=`: past it the run is throttled and its memory reclaimed hard. `nil`: none.
    package var memoryHigh: MemoryLimit?
    /// `MemorySwapMax=`: how much swap the run may use (`0`: none). `nil`: no limit.
    package var memorySwapMax: MemoryLimit?
    /// `CPUWeight=`: 1 to 10000 (100 is the kernel's default), or 0 for `idle`.
    package var cpuWeight: UInt64?
    /// `CPUQuota=`: CPU time per second of wall-clock time, in ten-thousandths of one CPU (`20%` is
    /// 2000; more than one CPU is more than 10000).
    package var cpuQuota: UInt64?
    /// `IOWeight=`: 1 to 10000 (100 is the kernel's default).
    package var ioWeight: UInt64?
    /// The line of each key that is set, for an error about it (a jobd that cannot apply it).
    private var lines = Lines()

    package init() {}

    /// The keys set to a limit (an empty value and `infinity` set none).
    package var keys: [Key] {
        Key.allCases.filter { key in
            switch key {
            case .memoryMax: memoryMax != nil
            case .memoryHigh: memoryHigh != nil
            case .memorySwapMax: memorySwapMax != nil
            case .cpuWeight: cpuWeight != nil
            case .cpuQuota: cpuQuota != nil
            case .ioWeight: ioWeight != nil
            }
        }
    }

    /// Whether no key is set (then a run's cgroup is made as before these keys).
    package var isEmpty: Bool { keys.isEmpty }

    /// The line `key` was set on.
    package func line(of key: Key) -> Int? { lines.lines[key] }

    /// The idle weight of `CPUWeight=idle`.
    package static let idleWeight: UInt64 = 0
    /// The weights' bounds (`CGROUP_WEIGHT_MIN`, `CGROUP_WEIGHT_MAX`) and default.
    package static let weights: ClosedRange<UInt64> = 1...10_000
    package static let defaultWeight: UInt64 = 100

    /// Reads `key`'s `value` on `line` into `self`; an empty value resets the key. Returns the
    /// error's message and hint when the value is wrong.
    package mutating func read(key: Key, value: String, line: Int) -> (message: String, hint: String)? {
        lines.lines[key] = value.isEmpty ? nil : line
        switch key {
        case .memoryMax, .memoryHigh, .memorySwapMax:
            let limit: MemoryLimit?
            if value.isEmpty || value == "infinity" {
                limit = nil
            } else if let share = Permyriad.parse(value) {
                guard share <= 10_000 else { return Self.memoryError(key, value, "is more than 100% of the memory") }
                limit = .permyriad(share)
            } else if let bytes = ByteSize.parse(value) {
                limit = .bytes(bytes)
            } else {
                return Self.memoryError(key, value, "is not a memory limit")
            }
            // As systemd: only MemorySwapMax= may be 0 (no swap at all); a run could not live under
            // a limit of nothing, nor can the kernel's 2⁶⁴ − 1 ("max") be written as a number.
            if limit == .bytes(UInt64.max) || (key != .memorySwapMax && (limit == .bytes(0) || limit == .permyriad(0))) {
                return Self.memoryError(key, value, "is out of range")
            }
            switch key {
            case .memoryMax: memoryMax = limit
            case .memoryHigh: memoryHigh = limit
            default: memorySwapMax = limit
            }
        case .cpuWeight, .ioWeight:
            if value.isEmpty {
                if key == .cpuWeight { cpuWeight = nil } else { ioWeight = nil }
                return nil
            }
            if key == .cpuWeight && value == "idle" {
                cpuWeight = Self.idleWeight
                return nil
            }
            guard value.utf8.allSatisfy({ $0.isASCIIDigit }), let weight = UInt64(value), Self.weights.contains(weight) else {
                lines.lines[key] = nil
                return ("\(key.rawValue)=: '\(value)' is not a weight",
                        "write a number from 1 to 10000 (100 is the default)" + (key == .cpuWeight ? ", or idle" : ""))
            }
            if key == .cpuWeight { cpuWeight = weight } else { ioWeight = weight }
        case .cpuQuota:
            if value.isEmpty {
                cpuQuota = nil
                return nil
            }
            guard let share = Permyriad.parse(value), share > 0 else {
                lines.lines[key] = nil
                return ("CPUQuota=: '\(value)' is not a CPU quota",
                        "write a percentage of one CPU such as 20%, or above 100% for more than one CPU, such as 150%")
            }
            cpuQuota = share
        }
        return nil
    }

    private static func memoryError(_ key: Key, _ value: String, _ problem: String) -> (message: String, hint: String) {
        ("\(key.rawValue)=: '\(value)' \(problem)",
         "write bytes with K, M, G or T (base 1024) such as 512M, a share of the physical memory such as 25%, or infinity"
            + (key == .memorySwapMax ? "; 0 allows no swap" : ""))
    }

    /// Lines, for error messages only: two settings that differ only here are the same.
    private struct Lines: Hashable, Sendable {
        var lines: [Key: Int] = [:]
        static func == (lhs: Lines, rhs: Lines) -> Bool { true }
        func hash(into hasher: inout Hasher) {}
    }
}
