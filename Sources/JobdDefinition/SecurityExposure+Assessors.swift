import JobdUnitFile

/// The checks of `systemd-analyze security`, systemd 252's table (src/analyze/analyze-security.c):
/// its ids, descriptions, weights and ranges, each with how it reads a job.
extension SecurityExposure {
    static let assessors: [Assessor] = [
        Assessor(id: "User=/DynamicUser=", bad: "Service runs as root user", weight: 2000, range: 10) { facts in
            if facts.user == "nobody" { return (9, "Service runs under as 'nobody' user, which should not be used for services") }
            if !facts.runsPrivileged { return (0, "Service runs under a static non-root user identity") }
            return (10, nil)
        },
        Assessor(
            id: "SupplementaryGroups=", good: "Service has no supplementary groups", bad: "Service runs with supplementary groups",
            notApplicable: "Service runs as root, option does not matter", weight: 200, range: 1
        ) { facts in
            (facts.runsPrivileged ? nil : facts.supplementaryGroups.isEmpty ? 0 : 1, nil)
        },
        flag("PrivateDevices=", "Service has no access to hardware devices", "Service potentially has access to hardware devices", 1000) {
            $0.sandbox.privateDevices
        },
        // systemd's own reading of a running service: a service whose keys give it a mount
        // namespace of its own cannot install system mounts.
        flag("PrivateMounts=", "Service cannot install system mounts", "Service may install system mounts", 1000) {
            $0.sandbox.needsMountNamespace
        },
        keyFlag("PrivateNetwork=", "Service has no access to the host's network", "Service has access to the host's network", 2500),
        flag(
            "PrivateTmp=", "Service has no access to other software's temporary files",
            "Service has access to other software's temporary files", 1000
        ) { $0.sandbox.privateTmp },
        // jobd refuses PrivateUsers=yes.
        flag("PrivateUsers=", "Service does not have access to other users", "Service has access to other users", 1000) { _ in false },
        flag("ProtectControlGroups=", "Service cannot modify the control group file system", "Service may modify the control group file system", 1000) {
            $0.sandbox.protectControlGroups
        },
        flag("ProtectKernelModules=", "Service cannot load or read kernel modules", "Service may load or read kernel modules", 1000) {
            $0.sandbox.protectKernelModules
        },
        flag("ProtectKernelTunables=", "Service cannot alter kernel tunables (/proc/sys, …)", "Service may alter kernel tunables", 1000) {
            $0.sandbox.protectKernelTunables
        },
        flag(
            "ProtectKernelLogs=", "Service cannot read from or write to the kernel log ring buffer",
            "Service may read from or write to the kernel log ring buffer", 1000
        ) { $0.sandbox.protectKernelLogs },
        flag("ProtectClock=", "Service cannot write to the hardware clock or system clock", "Service may write to the hardware clock or system clock", 1000) {
            $0.sandbox.protectClock
        },
        Assessor(id: "ProtectHome=", weight: 1000, range: 10) { facts in
            switch facts.sandbox.protectHome {
            case .no: (10, "Service has full access to home directories")
            case .readOnly: (5, "Service has read-only access to home directories")
            case .tmpfs: (1, "Service has access to fake empty home directories")
            case .yes: (0, "Service has no access to home directories")
            }
        },
        flag("ProtectHostname=", "Service cannot change system host/domainname", "Service may change system host/domainname", 50) {
            $0.sandbox.protectHostname
        },
        Assessor(id: "ProtectSystem=", weight: 1000, range: 10) { facts in
            switch facts.sandbox.protectSystem {
            case .no: (10, "Service has full access to the OS file hierarchy")
            case .yes: (5, "Service has limited write access to the OS file hierarchy")
            case .full: (3, "Service has very limited write access to the OS file hierarchy")
            case .strict: (0, "Service has strict read-only access to the OS file hierarchy")
            }
        },
        // jobd has no RootDirectory=.
        flag("RootDirectory=/RootImage=", "Service has its own root directory/image", "Service runs within the host's root directory", 200) { _ in false },
        keyFlag("LockPersonality=", "Service cannot change ABI personality", "Service may change ABI personality", 100),
        keyFlag(
            "MemoryDenyWriteExecute=", "Service cannot create writable executable memory mappings",
            "Service may create writable executable memory mappings", 100
        ),
        flag("NoNewPrivileges=", "Service processes cannot acquire new privileges", "Service processes may acquire new privileges", 1000) {
            $0.sandbox.noNewPrivileges
        },
        capability("CAP_SYS_ADMIN", "Service has no administrator privileges", "Service has administrator privileges", 1500, "CAP_SYS_ADMIN"),
        capability(
            "CAP_SET(UID|GID|PCAP)", "Service cannot change UID/GID identities/capabilities", "Service may change UID/GID identities/capabilities",
            1500, "CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"),
        capability("CAP_SYS_PTRACE", "Service has no ptrace() debugging abilities", "Service has ptrace() debugging abilities", 1500, "CAP_SYS_PTRACE"),
        capability("CAP_SYS_TIME", "Service processes cannot change the system clock", "Service processes may change the system clock", 1000, "CAP_SYS_TIME"),
        capability("CAP_NET_ADMIN", "Service has no network configuration privileges", "Service has network configuration privileges", 1000, "CAP_NET_ADMIN"),
        capability("CAP_SYS_RAWIO", "Service has no raw I/O access", "Service has raw I/O access", 1000, "CAP_SYS_RAWIO"),
        capability("CAP_SYS_MODULE", "Service cannot load kernel modules", "Service may load kernel modules", 1000, "CAP_SYS_MODULE"),
        capability(
            "CAP_AUDIT_*", "Service has no audit subsystem access", "Service has audit subsystem access", 500,
            "CAP_AUDIT_CONTROL", "CAP_AUDIT_READ", "CAP_AUDIT_WRITE"),
        capability("CAP_SYSLOG", "Service has no access to kernel logging", "Service has access to kernel logging", 500, "CAP_SYSLOG"),
        capability(
            "CAP_SYS_(NICE|RESOURCE)", "Service has no privileges to change resource use parameters",
            "Service has privileges to change resource use parameters", 500, "CAP_SYS_NICE", "CAP_SYS_RESOURCE"),
        capability("CAP_MKNOD", "Service cannot create device nodes", "Service may create device nodes", 500, "CAP_MKNOD"),
        capability(
            "CAP_(CHOWN|FSETID|SETFCAP)", "Service cannot change file ownership/access mode/capabilities",
            "Service may change file ownership/access mode/capabilities unrestricted", 1000, "CAP_CHOWN", "CAP_FSETID", "CAP_SETFCAP"),
        capability(
            "CAP_(DAC_*|FOWNER|IPC_OWNER)", "Service cannot override UNIX file/IPC permission checks",
            "Service may override UNIX file/IPC permission checks", 1000, "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_IPC_OWNER"),
        capability("CAP_KILL", "Service cannot send UNIX signals to arbitrary processes", "Service may send UNIX signals to arbitrary processes", 500, "CAP_KILL"),
        capability(
            "CAP_NET_(BIND_SERVICE|BROADCAST|RAW)", "Service has no elevated networking privileges", "Service has elevated networking privileges", 500,
            "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_RAW"),
        capability("CAP_SYS_BOOT", "Service cannot issue reboot()", "Service may issue reboot()", 100, "CAP_SYS_BOOT"),
        capability("CAP_MAC_*", "Service cannot adjust SMACK MAC", "Service may adjust SMACK MAC", 100, "CAP_MAC_ADMIN", "CAP_MAC_OVERRIDE"),
        capability("CAP_LINUX_IMMUTABLE", "Service cannot mark files immutable", "Service may mark files immutable", 75, "CAP_LINUX_IMMUTABLE"),
        capability("CAP_IPC_LOCK", "Service cannot lock memory into RAM", "Service may lock memory into RAM", 50, "CAP_IPC_LOCK"),
        capability("CAP_SYS_CHROOT", "Service cannot issue chroot()", "Service may issue chroot()", 50, "CAP_SYS_CHROOT"),
        capability("CAP_BLOCK_SUSPEND", "Service cannot establish wake locks", "Service may establish wake locks", 25, "CAP_BLOCK_SUSPEND"),
        capability("CAP_WAKE_ALARM", "Service cannot program timers that wake up the system", "Service may program timers that wake up the system", 25, "CAP_WAKE_ALARM"),
        capability("CAP_LEASE", "Service cannot create file leases", "Service may create file leases", 25, "CAP_LEASE"),
        capability("CAP_SYS_TTY_CONFIG", "Service cannot issue vhangup()", "Service may issue vhangup()", 25, "CAP_SYS_TTY_CONFIG"),
        capability("CAP_SYS_PACCT", "Service cannot use acct()", "Service may use acct()", 25, "CAP_SYS_PACCT"),
        capability("CAP_BPF", "Service may not load BPF programs", "Service may load BPF programs", 25, "CAP_BPF"),
        Assessor(id: "UMask=", weight: 100, range: 10) { facts in
            let mask = facts.umask
            if mask & 0o002 == 0 { return (10, "Files created by service are world-writable by default") }
            if mask & 0o004 == 0 { return (5, "Files created by service are world-readable by default") }
            if mask & 0o020 == 0 { return (2, "Files created by service are group-writable by default") }
            if mask & 0o040 == 0 { return (1, "Files created by service are group-readable by default") }
            return (0, "Files created by service are accessible only by service's own user by default")
        },
        // Every run joins a session keyring of its own (jobd-cgexec), as KeyringMode=private.
        flag("KeyringMode=", "Service doesn't share key material with other services", "Service shares key material with other service", 1000) { _ in true },
        // jobd has no ProtectProc= or ProcSubset=.
        Assessor(
            id: "ProtectProc=", good: "Service has restricted access to process tree (/proc hidepid=)",
            bad: "Service has full access to process tree (/proc hidepid=)", weight: 1000, range: 3
        ) { _ in (3, nil) },
        flag(
            "ProcSubset=", "Service has no access to non-process /proc files (/proc subset=)",
            "Service has full access to non-process /proc files (/proc subset=)", 10
        ) { _ in false },
        // A run has no notify socket to alter anything with.
        flag("NotifyAccess=", "Service child processes cannot alter service state", "Service child processes may alter service state", 1000) { _ in true },
        // jobd has no RemoveIPC=.
        Assessor(
            id: "RemoveIPC=", good: "Service user cannot leave SysV IPC objects around", bad: "Service user may leave SysV IPC objects around",
            notApplicable: "Service runs as root, option does not apply", weight: 100, range: 1
        ) { facts in (facts.runsPrivileged ? nil : 1, nil) },
        // A run's cgroup is jobd's, never delegated to the run.
        flag(
            "Delegate=", "Service does not maintain its own delegated control group subtree",
            "Service maintains its own delegated control group subtree", 100
        ) { _ in true },
        keyFlag("RestrictRealtime=", "Service realtime scheduling access is restricted", "Service may acquire realtime scheduling", 500),
        keyFlag("RestrictSUIDSGID=", "SUID/SGID file creation by service is restricted", "Service may create SUID/SGID files", 1000),
        namespace("user", "Service cannot create user namespaces", "Service may create user namespaces", 1500),
        namespace("mnt", "Service cannot create file system namespaces", "Service may create file system namespaces", 500),
        namespace("ipc", "Service cannot create IPC namespaces", "Service may create IPC namespaces", 500),
        namespace("pid", "Service cannot create process namespaces", "Service may create process namespaces", 500),
        namespace("cgroup", "Service cannot create cgroup namespaces", "Service may create cgroup namespaces", 500),
        namespace("net", "Service cannot create network namespaces", "Service may create network namespaces", 500),
        namespace("uts", "Service cannot create hostname namespaces", "Service may create hostname namespaces", 100),
        // jobd refuses RestrictAddressFamilies=.
        flag("RestrictAddressFamilies=~AF_(INET|INET6)", "Service cannot allocate Internet sockets", "Service may allocate Internet sockets", 1500) { _ in false },
        flag("RestrictAddressFamilies=~AF_UNIX", "Service cannot allocate local sockets", "Service may allocate local sockets", 25) { _ in false },
        flag("RestrictAddressFamilies=~AF_NETLINK", "Service cannot allocate netlink sockets", "Service may allocate netlink sockets", 200) { _ in false },
        flag("RestrictAddressFamilies=~AF_PACKET", "Service cannot allocate packet sockets", "Service may allocate packet sockets", 1000) { _ in false },
        flag("RestrictAddressFamilies=~…", "Service cannot allocate exotic sockets", "Service may allocate exotic sockets", 1250) { _ in false },
        // jobd has no SystemCallArchitectures=.
        Assessor(id: "SystemCallArchitectures=", weight: 1000, range: 10) { _ in (10, "Service may execute system calls with all ABIs") },
        systemCallFilter("@swap", 1000),
        systemCallFilter("@obsolete", 250),
        systemCallFilter("@clock", 1000),
        systemCallFilter("@cpu-emulation", 250),
        systemCallFilter("@debug", 1000),
        systemCallFilter("@mount", 1000),
        systemCallFilter("@module", 1000),
        systemCallFilter("@raw-io", 1000),
        systemCallFilter("@reboot", 1000),
        systemCallFilter("@privileged", 700),
        systemCallFilter("@resources", 700),
        // jobd has no IPAddressDeny=.
        Assessor(id: "IPAddressDeny=", weight: 1000, range: 10) { _ in (10, "Service does not define an IP address allow list") },
        // As systemd implies them: PrivateDevices= closes the device policy, ProtectClock= then
        // allows reading the real-time clocks.
        Assessor(id: "DeviceAllow=", weight: 1000, range: 10) { facts in
            guard facts.sandbox.privateDevices else { return (10, "Service has no device ACL") }
            guard facts.sandbox.protectClock else { return (0, "Service has a minimal device ACL") }
            return (5, "Service has a device ACL with some special devices: char-rtc:r")
        },
        Assessor(
            id: "AmbientCapabilities=", good: "Service process does not receive ambient capabilities",
            bad: "Service process receives ambient capabilities", weight: 500, range: 1
        ) { facts in (facts.sandbox.ambientCapabilities == 0 ? 0 : 1, nil) },
    ]

    /// The check of a flag key jobd-cgexec takes as it is (the key table's ``JobKey/planFlag``),
    /// read by the check's name: safe when the job sets the key to yes. A key jobd has not reads
    /// as no, so that adding such a key to the table is what makes its check read it.
    private static func keyFlag(_ id: String, _ good: String, _ bad: String, _ weight: Int) -> Assessor {
        let key = JobKey(rawValue: String(id.dropLast())).flatMap { $0.planFlag == nil ? nil : $0 }
        return flag(id, good, bad, weight) { facts in key.map(facts.sandbox.flags.contains) ?? false }
    }

    /// A yes-or-no check: `safe` says whether the job has what the check asks for.
    private static func flag(
        _ id: String, _ good: String, _ bad: String, _ weight: Int, _ safe: @escaping @Sendable (Facts) -> Bool
    ) -> Assessor {
        Assessor(id: id, good: good, bad: bad, weight: weight, range: 1) { (safe($0) ? 0 : 1, nil) }
    }

    /// Whether the bounding set still holds any of `names`.
    private static func capability(_ id: String, _ good: String, _ bad: String, _ weight: Int, _ names: String...) -> Assessor {
        let mask = names.reduce(UInt64(0)) { $0 | 1 << UInt64(Sandbox.capabilities.firstIndex(of: $1)!) }
        return Assessor(id: "CapabilityBoundingSet=~" + id, good: good, bad: bad, weight: weight, range: 1) { facts in
            (facts.boundingSet & mask == 0 ? 0 : 1, nil)
        }
    }

    /// Whether the job may still create namespaces of `type`.
    private static func namespace(_ type: String, _ good: String, _ bad: String, _ weight: Int) -> Assessor {
        let flag = Sandbox.namespaceFlags[type]!
        return Assessor(id: "RestrictNamespaces=~" + type, good: good, bad: bad, weight: weight, range: 1) { facts in
            ((facts.sandbox.allowedNamespaces ?? .max) & flag == 0 ? 0 : 1, nil)
        }
    }

    /// Whether the system call filter keeps out every call of `group`.
    private static func systemCallFilter(_ group: String, _ weight: Int) -> Assessor {
        let calls = flattened(group)
        return Assessor(id: "SystemCallFilter=~" + group, weight: weight, range: 10) { facts in
            guard let filter = facts.sandbox.systemCallFilter else { return (10, "Service does not filter system calls") }
            // The first call of the group that the filter lets through, in systemd's order.
            let offender = calls.first { filter.names.contains($0) == filter.allowList }
            switch (filter.allowList, offender) {
            case (true, let call?): return (9, "System call allow list defined for service, and \(group) is included (e.g. \(call) is allowed)")
            case (true, nil): return (0, "System call allow list defined for service, and \(group) is not included")
            case (false, let call?): return (10, "System call deny list defined for service, and \(group) is not included (e.g. \(call) is allowed)")
            case (false, nil): return (0, "System call deny list defined for service, and \(group) is included")
            }
        }
    }

    /// `group`'s calls with its nested groups in place, in systemd's order.
    private static func flattened(_ group: String) -> [String] {
        (SystemCallGroups.members[group] ?? []).flatMap { $0.hasPrefix("@") ? flattened($0) : [$0] }
    }
}
