/// Why jobd stops a run before it ends by itself: the `JOBD_REASON=` of its `run.timeout`,
/// `run.stop`, `run.kill` and `run.exit` entries.
package enum StopReason: String, Sendable, Hashable {
    /// It ran longer than its `RuntimeMaxSec=`.
    case runtimeExceeded = "runtime-max"
    /// A trigger of its job, with `Overlap=replace`, asked for a new run in its place.
    case replaced
    /// An operator asked for it (`jobctl stop`).
    case requested
    /// jobd is stopping.
    case shutdown
    /// The kernel's OOM killer killed a process in its cgroup: the rest is stopped, as systemd's
    /// `OOMPolicy=stop` stops a service.
    case oomKill = "oom-kill"
    /// A fleet run (`RunOn=one-node`) whose node no longer holds its lease: another node recorded
    /// it lost, or the lease's deadline passed before jobd renewed it. Its supervisor in
    /// `jobd-cgexec` stopped it; it ends with result `lost`.
    case leaseLost = "lease-lost"
    /// A reload found that its job's user may no longer have jobs (`users.deny`, `users.allow`,
    /// the account is gone, or the file is another uid's): the job is gone, and so are its runs.
    case revoked
}
