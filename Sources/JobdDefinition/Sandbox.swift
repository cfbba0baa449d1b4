import Glibc
import JobdUnitFile

/// What a run's process may see and do, read as systemd 252 reads the same keys of a service
/// (systemd.exec(5), "Sandboxing" and "Security"): a private mount namespace (`ProtectSystem=`,
/// `PrivateTmp=`, `ReadWritePaths=`…), seccomp filters (`SystemCallFilter=`, `LockPersonality=`…),
/// the capability sets and the device cgroup. `jobd-cgexec` applies all of it as root, just before
/// the command (docs/internals.md, "Sandboxing"). A job without any of these keys keeps `Sandbox()`
/// and runs exactly as before.
package struct Sandbox: Sendable, Hashable {
    package enum ProtectSystem: String, Sendable, Hashable { case no, yes, full, strict }
    package enum ProtectHome: String, Sendable, Hashable { case no, yes, readOnly = "read-only", tmpfs }

    /// A path of `ReadWritePaths=`, `ReadOnlyPaths=` or `InaccessiblePaths=`; `optional` (a leading
    /// `-`): a missing one is skipped rather than failing the start.
    package struct PathEntry: Sendable, Hashable {
        package var path: String
        package var optional: Bool
        var word: String { (optional ? "-" : "") + path }
    }

    /// `SystemCallFilter=`: an allow list (everything else fails) or a deny list (`~`).
    package struct SystemCallFilter: Sendable, Hashable {
        package var allowList: Bool
        /// The calls, groups expanded.
        package var names: Set<String>
    }

    /// The boolean keys set to yes (the key table's ``Value/flag``: `PrivateTmp=`, `LockPersonality=`…).
    /// A flag has no field of its own: the accessors below name those whose effect jobd derives
    /// (mounts, filters, capabilities), and the plan takes a flag with a field of its own from
    /// the table (``JobKey/planFlag``).
    package var flags: Set<JobKey> = []
    package var noNewPrivileges: Bool { get { flags.contains(.noNewPrivileges) } set { set(.noNewPrivileges, newValue) } }
    package var privateTmp: Bool { get { flags.contains(.privateTmp) } set { set(.privateTmp, newValue) } }
    package var privateDevices: Bool { get { flags.contains(.privateDevices) } set { set(.privateDevices, newValue) } }
    package var protectKernelTunables: Bool { get { flags.contains(.protectKernelTunables) } set { set(.protectKernelTunables, newValue) } }
    package var protectKernelModules: Bool { get { flags.contains(.protectKernelModules) } set { set(.protectKernelModules, newValue) } }
    package var protectKernelLogs: Bool { get { flags.contains(.protectKernelLogs) } set { set(.protectKernelLogs, newValue) } }
    package var protectControlGroups: Bool { get { flags.contains(.protectControlGroups) } set { set(.protectControlGroups, newValue) } }
    package var protectHostname: Bool { get { flags.contains(.protectHostname) } set { set(.protectHostname, newValue) } }
    package var protectClock: Bool { get { flags.contains(.protectClock) } set { set(.protectClock, newValue) } }
    package var protectSystem = ProtectSystem.no
    package var protectHome = ProtectHome.no
    /// `RestrictNamespaces=`: the namespace types still allowed (`CLONE_NEW*` bits); `nil`: no restriction.
    package var allowedNamespaces: UInt64?
    package var systemCallFilter: SystemCallFilter?
    /// `SystemCallErrorNumber=`: the errno a filtered call returns; `nil`: the process is killed (SIGSYS).
    package var systemCallErrorNumber: Int32?
    package var readWritePaths: [PathEntry] = []
    package var readOnlyPaths: [PathEntry] = []
    package var inaccessiblePaths: [PathEntry] = []
    /// `CapabilityBoundingSet=`, as a mask of `CAP_*` bits; `nil`: every capability.
    package var capabilityBoundingSet: UInt64?
    package var ambientCapabilities: UInt64 = 0

    package init() {}

    /// Whether no key is set (then a run needs nothing of this, and costs nothing more).
    package var isDefault: Bool { self == Sandbox() }

    /// The keys read here, as the key table says (``JobKey/reader``).
    package static let keys = JobKey.names { if case .sandbox = $0 { true } else { false } }

    /// Whether the run needs its own mount namespace.
    package var needsMountNamespace: Bool {
        privateTmp || privateDevices || protectSystem != .no || protectHome != .no || protectKernelTunables || protectKernelModules
            || protectKernelLogs || protectControlGroups || !readWritePaths.isEmpty || !readOnlyPaths.isEmpty || !inaccessiblePaths.isEmpty
    }

    /// Whether the run's cgroup gets a device policy, as systemd implies one: `PrivateDevices=`
    /// (`DevicePolicy=closed`) and `ProtectClock=` (`DeviceAllow=char-rtc r`). jobd applies it with
    /// a BPF program on the run's cgroup v2, so these keys need one.
    package var needsDeviceCgroup: Bool { privateDevices || protectClock }

    /// How a sandbox key's value is read: what the key table declares of it (``JobKey/reader``).
    package enum Value: Sendable, Hashable {
        /// A boolean, held in ``flags``; `planTag`: the exec plan's field (plan.h's `EXEC_TAG_*`)
        /// jobd-cgexec takes it in as the job file gives it, `nil` where jobd derives what it does.
        case flag(planTag: Int?)
        /// `PrivateUsers=`: jobd takes no but refuses yes.
        case onlyNo
        case protectSystem, protectHome, namespaces, systemCallFilter, errorNumber
        case paths(PathList)
        case capabilities(CapabilitySet)
    }

    package enum PathList: Sendable, Hashable { case readWrite, readOnly, inaccessible }
    package enum CapabilitySet: Sendable, Hashable { case bounding, ambient }

    private mutating func set(_ flag: JobKey, _ on: Bool) {
        if on { flags.insert(flag) } else { flags.remove(flag) }
    }

    /// Reads `key`'s `value` into `self`, if the key table gives the key to the sandbox; an empty
    /// value resets the key. Returns the error's message and hint when the value is wrong, or when
    /// jobd cannot do what it says.
    package mutating func read(_ key: JobKey, value: String) -> (message: String, hint: String)? {
        guard case .sandbox(let kind) = key.reader else { return nil }
        return read(key, as: kind, value: value)
    }

    mutating func read(_ key: JobKey, as kind: Value, value: String) -> (message: String, hint: String)? {
        let name = key.rawValue
        switch kind {
        case .flag:
            guard let on = value.isEmpty ? false : JobFileReader.boolean(value) else {
                return ("\(name)=: '\(value)' is not a boolean", "write yes or no")
            }
            set(key, on)
        case .onlyNo:
            guard value.isEmpty || JobFileReader.boolean(value) == false else {
                return ("\(name)=: jobd cannot run a job in a user namespace of its own",
                        "remove \(name)= (or write \(name)=no); the job then sees the host's users")
            }
        case .protectSystem:
            let mode: ProtectSystem? = value.isEmpty ? .no : JobFileReader.boolean(value).map { $0 ? .yes : .no } ?? ProtectSystem(rawValue: value)
            guard let found = mode else {
                return ("\(name)=: '\(value)' is not a ProtectSystem= mode", "write yes (/usr and /boot read-only), full (and /etc) or strict (the whole file system), or no")
            }
            protectSystem = found
        case .protectHome:
            let mode: ProtectHome? = value.isEmpty ? .no : JobFileReader.boolean(value).map { $0 ? .yes : .no } ?? ProtectHome(rawValue: value)
            guard let found = mode else {
                return ("\(name)=: '\(value)' is not a ProtectHome= mode", "write yes (/home, /root and /run/user inaccessible), read-only, tmpfs, or no")
            }
            protectHome = found
        case .namespaces:
            return readNamespaces(value)
        case .systemCallFilter:
            return readSystemCallFilter(value)
        case .errorNumber:
            guard !value.isEmpty, value != "kill" else { systemCallErrorNumber = nil; return nil }
            guard let number = Self.errnoNumber(value) else {
                return ("\(name)=: '\(value)' is not an error number", "write an errno name such as EPERM or ENOSYS, a number from 1 to 4095, or kill")
            }
            systemCallErrorNumber = number
        case .paths(let list):
            return readPaths(value, into: list, key: name)
        case .capabilities(let set):
            return readCapabilities(value, into: set, key: name)
        }
        return nil
    }

    private mutating func readPaths(_ value: String, into list: PathList, key: String) -> (message: String, hint: String)? {
        var paths: [PathEntry] = []
        for word in value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) {
            let optional = word.hasPrefix("-")
            let path = optional ? String(word.dropFirst()) : word
            guard path.hasPrefix("/"), !path.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) else {
                return ("\(key)=: '\(word)' is not an absolute path", "write absolute paths such as /var/lib/backup, separated by spaces; prefix one with '-' if it may be missing")
            }
            paths.append(PathEntry(path: Self.normalized(path), optional: optional))
        }
        switch list {
        case .readWrite: readWritePaths = value.isEmpty ? [] : readWritePaths + paths
        case .readOnly: readOnlyPaths = value.isEmpty ? [] : readOnlyPaths + paths
        case .inaccessible: inaccessiblePaths = value.isEmpty ? [] : inaccessiblePaths + paths
        }
        return nil
    }

    private mutating func readCapabilities(_ value: String, into set: CapabilitySet, key: String) -> (message: String, hint: String)? {
        guard !value.isEmpty else {
            switch set {
            case .bounding: capabilityBoundingSet = 0
            case .ambient: ambientCapabilities = 0
            }
            return nil
        }
        let inverted = value.hasPrefix("~")
        var mask: UInt64 = 0
        for word in (inverted ? String(value.dropFirst()) : value).split(separator: " ") {
            guard let number = Self.capabilities.firstIndex(of: word.uppercased()) else {
                return ("\(key)=: '\(word)' is not a capability", "write capability names such as CAP_NET_BIND_SERVICE, separated by spaces; '~' first for all but those")
            }
            mask |= 1 << UInt64(number)
        }
        // As systemd: lines are merged by OR, or by AND with the complement for a "~" line; "~"
        // alone is every capability.
        switch set {
        case _ where mask == 0:
            if set == .bounding { capabilityBoundingSet = Self.allCapabilities } else { ambientCapabilities = Self.allCapabilities }
        case .bounding:
            capabilityBoundingSet = inverted ? (capabilityBoundingSet ?? Self.allCapabilities) & ~mask : (capabilityBoundingSet ?? 0) | mask
        case .ambient:
            let start = ambientCapabilities == 0 && inverted ? Self.allCapabilities : ambientCapabilities
            ambientCapabilities = inverted ? start & ~mask : start | mask
        }
        return nil
    }

    private mutating func readNamespaces(_ value: String) -> (message: String, hint: String)? {
        guard !value.isEmpty else { allowedNamespaces = nil; return nil }
        if let on = JobFileReader.boolean(value) {
            allowedNamespaces = on ? 0 : nil
            return nil
        }
        let inverted = value.hasPrefix("~")
        var mask: UInt64 = 0
        for word in (inverted ? String(value.dropFirst()) : value).split(separator: " ") {
            guard let flag = Self.namespaceFlags[String(word)] else {
                return ("RestrictNamespaces=: '\(word)' is not a namespace type", "write yes, no, or types from cgroup, ipc, net, mnt, pid, user and uts ('~' first: all but those)")
            }
            mask |= flag
        }
        let all = Self.namespaceFlags.values.reduce(0, |)
        allowedNamespaces = inverted ? (allowedNamespaces ?? all) & ~mask : (allowedNamespaces ?? 0) | mask
        return nil
    }

    private mutating func readSystemCallFilter(_ value: String) -> (message: String, hint: String)? {
        guard !value.isEmpty else { systemCallFilter = nil; return nil }
        let inverted = value.hasPrefix("~")
        var names: Set<String> = []
        for word in (inverted ? String(value.dropFirst()) : value).split(separator: " ").map(String.init) {
            if word.contains(":") {
                return ("SystemCallFilter=: jobd does not take an error number per call ('\(word)')",
                        "write the calls alone and one SystemCallErrorNumber= for the whole filter")
            }
            guard let expanded = Self.expand(word) else {
                return ("SystemCallFilter=: '\(word)' is neither a system call nor a group systemd \(SystemCallGroups.systemdVersion) knows",
                        "write call names such as ptrace, or groups such as @system-service; systemd-analyze syscall-filter lists them")
            }
            names.formUnion(expanded)
        }
        // As systemd: the first line decides allow or deny list (an allow list always has
        // @default); a later line of the other kind takes its calls out again.
        if var filter = systemCallFilter {
            if filter.allowList == !inverted { filter.names.formUnion(names) } else { filter.names.subtract(names) }
            systemCallFilter = filter
        } else {
            systemCallFilter = inverted ? SystemCallFilter(allowList: false, names: names)
                : SystemCallFilter(allowList: true, names: names.union(Self.expand("@default") ?? []))
        }
        return nil
    }

    /// A call's name as a one-element set, or a group's calls with its nested groups expanded;
    /// `nil` for a name systemd does not know.
    package static func expand(_ word: String) -> Set<String>? {
        if word.hasPrefix("@") {
            guard let members = SystemCallGroups.members[word], word != "@known" else { return nil }
            var names: Set<String> = []
            // A group's own members are systemd's, some for other architectures (cacheflush):
            // taken as they are; jobd-cgexec leaves out what this architecture lacks, as systemd does.
            for member in members {
                if member.hasPrefix("@") { names.formUnion(expand(member) ?? []) } else { names.insert(member) }
            }
            return names
        }
        return known.contains(word) ? [word] : nil
    }

    private static let known = Set(SystemCallGroups.members["@known"] ?? [])

    /// The capability names, by number (`CAP_CHOWN` is 0), as linux/capability.h numbers them.
    static let capabilities = [
        "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL", "CAP_SETGID",
        "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN",
        "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER", "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE",
        "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE", "CAP_SYS_TIME",
        "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP",
        "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ",
        "CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE",
    ]
    package static let allCapabilities: UInt64 = (1 << UInt64(capabilities.count)) - 1

    package static func capabilityMask(_ names: String...) -> UInt64 {
        names.reduce(0) { $0 | 1 << UInt64(capabilities.firstIndex(of: $1)!) }
    }

    /// The namespace types of `RestrictNamespaces=`, as their `CLONE_NEW*` flags.
    static let namespaceFlags: [String: UInt64] = [
        "cgroup": 0x0200_0000, "ipc": 0x0800_0000, "net": 0x4000_0000, "mnt": 0x0002_0000, "pid": 0x2000_0000,
        "user": 0x1000_0000, "uts": 0x0400_0000,
    ]

    /// An errno by its name (`EPERM`) or number: the names a filter is given in practice.
    static func errnoNumber(_ text: String) -> Int32? {
        if let number = Int32(text) { return (1...4095).contains(number) ? number : nil }
        return errnoNames[text]
    }

    static let errnoNames: [String: Int32] = [
        "EPERM": EPERM, "ENOENT": ENOENT, "ESRCH": ESRCH, "EINTR": EINTR, "EIO": EIO, "ENXIO": ENXIO, "E2BIG": E2BIG,
        "EBADF": EBADF, "EAGAIN": EAGAIN, "ENOMEM": ENOMEM, "EACCES": EACCES, "EFAULT": EFAULT, "EBUSY": EBUSY,
        "EEXIST": EEXIST, "EXDEV": EXDEV, "ENODEV": ENODEV, "ENOTDIR": ENOTDIR, "EISDIR": EISDIR, "EINVAL": EINVAL,
        "EMFILE": EMFILE, "ENOTTY": ENOTTY, "ENOSPC": ENOSPC, "EROFS": EROFS, "ENOSYS": ENOSYS, "EOPNOTSUPP": EOPNOTSUPP,
        "ENOTSUP": ENOTSUP, "EAFNOSUPPORT": EAFNOSUPPORT, "EPROTONOSUPPORT": EPROTONOSUPPORT, "ECONNREFUSED": ECONNREFUSED,
        "ENETUNREACH": ENETUNREACH, "ENOTSOCK": ENOTSOCK,
    ]

    /// `path` without repeated or trailing slashes.
    static func normalized(_ path: String) -> String {
        "/" + path.split(separator: "/").joined(separator: "/")
    }
}
