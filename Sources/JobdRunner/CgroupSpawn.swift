import Glibc
import JobdLocks

/// Whether runs start straight in their cgroup (`clone3` with `CLONE_INTO_CGROUP`, Linux 5.7) or
/// through `jobd-cgexec`, which enters it (issue 39). Found out at the first run that needs it and
/// then kept, so that a kernel without it costs one refused `clone3`, not one a run.
package final class CgroupSpawn: Sendable {
    private let refusal = LockedBox<String?>(nil)

    package init() {}

    /// Whether `clone3` refused to start a process in a cgroup because the kernel (or a seccomp
    /// filter) lacks it, rather than for this run alone: no `clone3` (ENOSYS, also a container's
    /// filter), a `clone_args` larger than the kernel knows (E2BIG, before 5.7), an unknown flag
    /// (EINVAL), a cgroup it cannot start in (EOPNOTSUPP).
    package static func isUnsupported(errno code: Int32) -> Bool {
        [ENOSYS, E2BIG, EINVAL, EOPNOTSUPP].contains(code)
    }

    /// Whether a run that needs only its cgroup may skip `jobd-cgexec`.
    package var isAvailable: Bool { refusal.withLock { $0 == nil } }

    /// Records why runs go through `jobd-cgexec` from now on; true the first time (to log it once).
    package func refuse(_ reason: String) -> Bool {
        refusal.withLock { refusal in
            guard refusal == nil else { return false }
            refusal = reason
            return true
        }
    }
}
