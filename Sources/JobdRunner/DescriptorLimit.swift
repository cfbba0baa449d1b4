import Glibc
package import JobdConfig

/// jobd's `RLIMIT_NOFILE` and its runs' (issue 39). Each run in flight holds three of jobd's
/// descriptors (stdout, stderr, pidfd), and jobd.service keeps systemd's soft limit of 1,024, which
/// would stop runs at about 330 in flight: jobd raises its own soft limit to its hard limit (no
/// higher than the kernel's `fs.nr_open`), and gives every run the soft limit it started with, as
/// systemd gives services 1024:524288, since a program that uses `select()` breaks above 1,024.
package struct DescriptorLimit: Sendable, Equatable {
    /// What jobd sets its own soft limit to; `nil`: it stays as it is.
    package var raisedSoft: UInt64?
    /// What every run gets (the soft limit jobd started with, and jobd's hard limit); `nil` where
    /// jobd's own was not raised, so that a run inherits the same limits without a system call.
    package var runs: ResourceLimit?

    package init(raisedSoft: UInt64?, runs: ResourceLimit?) {
        (self.raisedSoft, self.runs) = (raisedSoft, runs)
    }

    /// The decision on jobd's limits as it started (`nil`: infinity) and `fs.nr_open` (`nil`: not read).
    package static func decide(soft: UInt64?, hard: UInt64?, nrOpen: UInt64?) -> DescriptorLimit {
        // An infinite hard limit is never a soft one the kernel takes: nr_open bounds it.
        let ceiling: UInt64? = switch (hard, nrOpen) {
        case (let hard?, let nrOpen?): min(hard, nrOpen)
        case (let hard?, nil): hard
        case (nil, let nrOpen?): nrOpen
        case (nil, nil): nil
        }
        guard let ceiling, let soft, ceiling > soft else { return DescriptorLimit(raisedSoft: nil, runs: nil) }
        return DescriptorLimit(raisedSoft: ceiling, runs: ResourceLimit(soft: soft, hard: hard))
    }

    /// Decides on jobd's limits now and raises its soft limit; what runs get, and jobd's own soft
    /// limit as it then is (`nil`: infinity, or not read), which bounds its runs in flight
    /// (`RunAdmission.runsInFlightCeiling`). A refused raise leaves jobd's and its runs' limits as
    /// they were.
    package static func raiseOwn() -> (limit: DescriptorLimit, ownSoft: UInt64?) {
        let unchanged = DescriptorLimit(raisedSoft: nil, runs: nil)
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(UInt32(ResourceLimit.Resource.nofile.number)), &limit) == 0 else { return (unchanged, nil) }
        let nrOpen = CgroupFile.read("/proc/sys/fs/nr_open").flatMap { UInt64($0.split(separator: "\n").first ?? "") }
        let infinity = rlim_t.max  // RLIM_INFINITY
        let soft = limit.rlim_cur == infinity ? nil : UInt64(limit.rlim_cur)
        let decided = decide(soft: soft, hard: limit.rlim_max == infinity ? nil : UInt64(limit.rlim_max), nrOpen: nrOpen)
        guard let raised = decided.raisedSoft else { return (decided, soft) }
        limit.rlim_cur = rlim_t(raised)
        guard setrlimit(__rlimit_resource_t(UInt32(ResourceLimit.Resource.nofile.number)), &limit) == 0 else { return (unchanged, soft) }
        return (decided, raised)
    }
}
