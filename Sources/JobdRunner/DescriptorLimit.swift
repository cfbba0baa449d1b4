import Glibc
package import JobdConfig

/// jobd's own `RLIMIT_NOFILE` and its runs' (issue 39). Each run in flight holds three of jobd's
/// descriptors (its stdout and stderr pipes and its pidfd), so under systemd's default soft limit
/// of 1,024 only about 330 runs could be in flight before spawns failed with EMFILE. jobd raises its
/// own soft limit to its hard limit (at most `fs.nr_open`, which the kernel will not go past), and
/// gives every run the limit jobd was started with, as systemd gives each service 1024:524288: a
/// soft limit above 1,024 breaks programs that use select(). A job's own `LimitNOFILE=` wins.
package struct DescriptorLimit: Sendable, Equatable {
    /// What jobd sets its own soft limit to; `nil` leaves it as it is.
    package var raise: UInt64?
    /// What each run gets unless its job sets `LimitNOFILE=`: the limit jobd was started with.
    package var runs: ResourceLimit

    package init(raise: UInt64?, runs: ResourceLimit) {
        self.raise = raise
        self.runs = runs
    }

    /// The decision for a jobd started with `soft`:`hard` (`nil` is infinity) on a kernel whose
    /// `fs.nr_open` is `nrOpen` (`nil`: unknown).
    package static func decide(soft: UInt64?, hard: UInt64?, nrOpen: UInt64?) -> DescriptorLimit {
        let runs = ResourceLimit(soft: soft, hard: hard)
        // An infinite soft limit cannot be raised; an infinite hard one is capped by the kernel's.
        guard let soft else { return DescriptorLimit(raise: nil, runs: runs) }
        let ceiling = min(hard ?? .max, nrOpen ?? hard ?? soft)
        return DescriptorLimit(raise: ceiling > soft ? ceiling : nil, runs: runs)
    }

    /// jobd's own, decided from its limits now and applied: its soft limit raised where it can be.
    /// Called once at its start, before any run.
    package static func applyToJobd() -> DescriptorLimit {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(UInt32(RLIMIT_NOFILE.rawValue)), &limit) == 0 else {
            return DescriptorLimit(raise: nil, runs: ResourceLimit(soft: nil, hard: nil))
        }
        let value = { (raw: rlim_t) -> UInt64? in raw == rlim_t.max ? nil : UInt64(raw) }  // RLIM_INFINITY
        let decision = decide(soft: value(limit.rlim_cur), hard: value(limit.rlim_max), nrOpen: nrOpen())
        if let raise = decision.raise {
            limit.rlim_cur = rlim_t(raise)
            if setrlimit(__rlimit_resource_t(UInt32(RLIMIT_NOFILE.rawValue)), &limit) != 0 {
                return DescriptorLimit(raise: nil, runs: decision.runs)
            }
        }
        return decision
    }

    /// `/proc/sys/fs/nr_open`: the most any process's limit may be.
    private static func nrOpen() -> UInt64? {
        let descriptor = open("/proc/sys/fs/nr_open", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 32)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return UInt64(String(decoding: bytes.prefix(count).prefix { $0 >= 0x30 && $0 <= 0x39 }, as: UTF8.self))
    }
}
