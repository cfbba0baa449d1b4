import Glibc

/// What `jobd-cgexec` is told to do for a sandbox (Sources/CJobdExec/sandbox.c): systemd 252's
/// tables of what each key mounts, filters and drops (its namespace.c, seccomp-util.c and
/// unit_patch_contexts()), expressed as the exec plan's sandbox.
extension Sandbox {
    /// One entry of the run's mount namespace. `mode` in the order systemd prefers one mode to
    /// another for the same path (inaccessible wins over read-only, read-only over read-write…).
    package struct MountEntry: Sendable, Hashable {
        package enum Mode: Int, Sendable { case inaccessible, readOnly, readWrite, tmpfs, keep }
        package var path: String
        package var mode: Mode
        /// A missing path is left out (a leading `-` in the job file).
        package var optional: Bool
    }

    /// The mount entries, parents first, one per path, none under an inaccessible one.
    package var mountEntries: [MountEntry] {
        var entries: [MountEntry] = []
        func add(_ mode: MountEntry.Mode, _ paths: String...) {
            for path in paths {
                let optional = path.hasPrefix("-")
                entries.append(MountEntry(path: optional ? String(path.dropFirst()) : path, mode: mode, optional: optional))
            }
        }
        switch protectSystem {
        case .no: break
        case .yes: add(.readOnly, "/usr", "-/boot", "-/efi")
        case .full: add(.readOnly, "/usr", "-/boot", "-/efi", "/etc")
        case .strict:
            add(.readOnly, "/")
            add(.keep, "/proc", "/sys", "/dev", "-/home", "-/run/user", "-/root")
        }
        switch protectHome {
        case .no: break
        case .yes: add(.inaccessible, "-/home", "-/run/user", "-/root")
        case .readOnly: add(.readOnly, "-/home", "-/run/user", "-/root")
        case .tmpfs: add(.tmpfs, "-/home", "-/run/user", "-/root")
        }
        if protectKernelTunables {
            add(.readOnly, "-/proc/acpi", "-/proc/apm", "-/proc/asound", "-/proc/bus", "-/proc/fs", "-/proc/irq", "-/proc/latency_stats",
                "-/proc/mtrr", "-/proc/scsi", "-/proc/sys", "-/proc/sysrq-trigger", "-/proc/timer_stats", "/sys", "-/sys/fs/bpf",
                "-/sys/kernel/debug", "-/sys/kernel/tracing")
            add(.inaccessible, "-/proc/kallsyms", "-/proc/kcore")
            add(.keep, "/sys/fs/cgroup", "-/sys/fs/selinux")
        }
        if protectKernelModules { add(.inaccessible, "-/lib/modules", "-/usr/lib/modules") }
        if protectKernelLogs { add(.inaccessible, "-/proc/kmsg", "-/dev/kmsg") }
        if protectControlGroups { add(.readOnly, "/sys/fs/cgroup") }
        if privateTmp { add(.keep, "/tmp", "/var/tmp") }
        for (mode, paths) in [(MountEntry.Mode.readWrite, readWritePaths), (.readOnly, readOnlyPaths), (.inaccessible, inaccessiblePaths)] {
            entries += paths.map { MountEntry(path: $0.path, mode: mode, optional: $0.optional) }
        }
        // Parents first; for one path, the mode systemd prefers (a path it must have is not optional).
        let sorted = entries.sorted {
            let (left, right) = ($0.path.split(separator: "/"), $1.path.split(separator: "/"))
            return left != right ? left.lexicographicallyPrecedes(right) : $0.mode.rawValue < $1.mode.rawValue
        }
        var kept: [MountEntry] = []
        for entry in sorted {
            if let last = kept.last, last.path == entry.path {
                kept[kept.count - 1].optional = last.optional && entry.optional
                continue
            }
            if kept.contains(where: { $0.mode == .inaccessible && Self.isBelow(entry.path, $0.path) }) { continue }
            kept.append(entry)
        }
        return kept
    }

    /// Whether `path` is strictly below `top`.
    package static func isBelow(_ path: String, _ top: String) -> Bool {
        top == "/" ? path != "/" : path.hasPrefix(top + "/")
    }

    /// The calls the `Protect…=` and `PrivateDevices=` keys make fail with EPERM, as systemd's
    /// filters for them do.
    package var protectedCalls: Set<String> {
        var names: Set<String> = []
        if protectClock { names.formUnion(Self.expand("@clock") ?? []) }
        if protectKernelModules { names.formUnion(Self.expand("@module") ?? []) }
        if protectKernelLogs { names.insert("syslog") }
        if protectKernelTunables { names.insert("_sysctl") }
        if privateDevices { names.formUnion(Self.expand("@raw-io") ?? []) }
        if protectHostname { names.formUnion(["sethostname", "setdomainname"]) }
        return names
    }

    /// The capability bounding set, with what the keys drop from it as systemd drops it; `nil`: all.
    package var boundingSet: UInt64? {
        var set = capabilityBoundingSet ?? Self.allCapabilities
        if privateDevices { set &= ~Self.capabilityMask("CAP_MKNOD", "CAP_SYS_RAWIO") }
        if protectKernelModules { set &= ~Self.capabilityMask("CAP_SYS_MODULE") }
        if protectKernelLogs { set &= ~Self.capabilityMask("CAP_SYSLOG") }
        if protectClock { set &= ~Self.capabilityMask("CAP_SYS_TIME", "CAP_WAKE_ALARM") }
        return set == Self.allCapabilities ? nil : set
    }

    /// The exec plan's sandbox; `privateTmp`: the directories jobd made for `PrivateTmp=`
    /// (`/tmp`'s, `/var/tmp`'s). `userPaths`: a user's own job, whose paths are looked up as the
    /// user, so that one the user cannot reach fails (or is left out) as a missing one does: root's
    /// lookup would tell the user whether a path under a directory of root's exists.
    package func execSandbox(privateTmp: (String, String)? = nil, userPaths: Bool = false) -> ExecPlan.Sandbox {
        var plan = ExecPlan.Sandbox()
        guard !isDefault else { return plan }
        if needsDeviceCgroup { plan.devicePolicy = protectClock ? .clock : .closed }
        plan.newUTS = protectHostname
        plan.privateDevices = privateDevices
        plan.privateTmp = privateTmp.map { ExecPlan.Sandbox.PrivateTmp(tmp: $0.0, varTmp: $0.1) }
        plan.mounts = mountEntries
        plan.userPaths = userPaths && !plan.mounts.isEmpty
        plan.nosuidMounts = noNewPrivileges && needsMountNamespace
        plan.boundingSet = boundingSet
        plan.ambientCapabilities = ambientCapabilities
        plan.noNewPrivileges = noNewPrivileges
        if let allowedNamespaces, allowedNamespaces != Self.namespaceFlags.values.reduce(0, |) { plan.allowedNamespaces = allowedNamespaces }
        plan.flags = flags.compactMap(\.planFlag).sorted()
        let protected = protectedCalls
        if !protected.isEmpty { plan.filters.append(.init(defaultAction: .allow, action: .error(EPERM), names: protected.sorted())) }
        if let filter = systemCallFilter, !(filter.names.isEmpty && !filter.allowList) {
            let failing = systemCallErrorNumber.map(ExecPlan.Sandbox.Action.error) ?? .kill
            let names = filter.names.sorted()
            plan.filters.append(filter.allowList ? .init(defaultAction: failing, action: .allow, names: names)
                                                 : .init(defaultAction: .allow, action: failing, names: names))
        }
        return plan
    }
}
