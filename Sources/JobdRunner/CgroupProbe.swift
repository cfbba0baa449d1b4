/// What jobd found out at start about its cgroup, and whether that lets it give each run a cgroup
/// of its own: pure, so that every reason to fall back to process groups is tested without root.
struct CgroupProbe: Equatable {
    /// Where the cgroup v2 hierarchy is mounted (`/sys/fs/cgroup`, or `/sys/fs/cgroup/unified` on a
    /// hybrid system), if it is.
    var mount: String?
    /// jobd's own cgroup, as `/proc/self/cgroup` names it.
    var ownPath: String?
    /// Whether systemd delegated that cgroup to jobd (the `trusted.delegate` xattr, systemd ≥ 251).
    var delegated = false
    var writable = false
    /// Whether jobd is the only process in its cgroup, as the main process of its unit is.
    var alone = false
    /// The trampoline that puts a run into its cgroup (`jobd-cgexec`), if it was found.
    var trampoline: String?

    /// jobd's cgroup directory (mount point and path), or why runs are tracked by process group.
    func decision() -> Result<String, Refusal> {
        guard let mount else { return .failure(Refusal("no cgroup v2 hierarchy is mounted")) }
        guard let ownPath else { return .failure(Refusal("/proc/self/cgroup names no cgroup v2 path")) }
        guard ownPath != "/" else { return .failure(Refusal("jobd runs in the root cgroup")) }
        guard delegated else {
            return .failure(Refusal("its cgroup \(ownPath) is not delegated to it (jobd.service has Delegate=yes)"))
        }
        guard writable else { return .failure(Refusal("its cgroup \(ownPath) is not writable")) }
        guard alone else { return .failure(Refusal("other processes share its cgroup \(ownPath)")) }
        guard trampoline != nil else { return .failure(Refusal("jobd-cgexec is not installed beside jobd")) }
        return .success(mount + ownPath)
    }

    struct Refusal: Error, Equatable, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
