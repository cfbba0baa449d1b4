import CJobdExec
import Foundation
import JobdTestKit
import Testing

@testable import JobdConfig
@testable import JobdDefinition
@testable import JobdUnitFile

/// The sandboxing keys read as systemd 252 reads them (systemd.exec(5); issue 27), and what
/// jobd-cgexec is told for them.
struct SandboxKeysTests {
    static func read(_ lines: String) -> Result<JobDefinition, ConfigErrors> {
        JobFileReader.read(name: "boxed", path: "/j/boxed.job", text: "[Job]\nExecStart=/bin/true\n" + lines)
    }

    static func sandbox(_ lines: String) throws -> Sandbox {
        try read(lines).get().sandbox
    }

    @Test func aJobWithoutKeysHasNoSandboxAndNoOptions() throws {
        let none = try Self.sandbox("")
        #expect(none.isDefault && none.execSandbox() == ExecPlan.Sandbox())
        // Every key at its default, written out, is still no sandbox.
        #expect(try Self.sandbox("PrivateDevices=no\nPrivateUsers=no\nProtectSystem=no\nProtectHome=false\nRestrictNamespaces=no\n").isDefault)
    }

    @Test(arguments: [
        ("ProtectSystem=yes", "ro:/usr ro:-/boot ro:-/efi"),
        ("ProtectSystem=true", "ro:/usr ro:-/boot ro:-/efi"),
        ("ProtectSystem=full", "ro:/usr ro:-/boot ro:-/efi ro:/etc"),
        ("ProtectSystem=strict", "ro:/ keep:/dev keep:-/home keep:/proc keep:-/root keep:-/run/user keep:/sys"),
        ("ProtectHome=yes", "inaccessible:-/home inaccessible:-/root inaccessible:-/run/user"),
        ("ProtectHome=read-only", "ro:-/home ro:-/root ro:-/run/user"),
        ("ProtectHome=tmpfs", "tmpfs:-/home tmpfs:-/root tmpfs:-/run/user"),
        ("ProtectControlGroups=yes", "ro:/sys/fs/cgroup"),
        ("ProtectKernelModules=yes", "inaccessible:-/lib/modules inaccessible:-/usr/lib/modules"),
        ("ProtectKernelLogs=yes", "inaccessible:-/dev/kmsg inaccessible:-/proc/kmsg"),
        ("PrivateTmp=yes", "keep:/tmp keep:/var/tmp"),
        // One path in several keys: inaccessible wins over read-only, read-only over writable.
        ("ReadWritePaths=/srv\nReadOnlyPaths=/srv", "ro:/srv"),
        ("ReadOnlyPaths=/srv\nInaccessiblePaths=-/srv", "inaccessible:/srv"),
        // Nothing is mounted below an inaccessible path.
        ("InaccessiblePaths=/srv\nReadWritePaths=/srv/data", "inaccessible:/srv"),
        ("ProtectSystem=strict\nReadWritePaths=/var/lib/backup -/var/cache//backup/",
         "ro:/ keep:/dev keep:-/home keep:/proc keep:-/root keep:-/run/user keep:/sys rw:-/var/cache/backup rw:/var/lib/backup"),
        ("ReadOnlyPaths=/a\nReadOnlyPaths=\nReadOnlyPaths=/b", "ro:/b"),
    ])
    func pathKeysBecomeMountEntriesParentsFirst(lines: String, entries: String) throws {
        let sandbox = try Self.sandbox(lines + "\n")
        let words = sandbox.mountEntries.map(\.word)
        // Order between siblings does not matter; parents come before what is below them.
        #expect(words.sorted() == entries.split(separator: " ").map(String.init).sorted(), "\(words)")
        for (index, entry) in sandbox.mountEntries.enumerated() {
            #expect(!sandbox.mountEntries[..<index].contains { Sandbox.isBelow($0.path, entry.path) }, "\(words)")
        }
    }

    @Test func systemCallFilterExpandsGroupsAndMergesAsSystemd() throws {
        let allow = try #require(try Self.sandbox("SystemCallFilter=@system-service\n").systemCallFilter)
        #expect(allow.allowList && allow.names.contains("read") && allow.names.contains("execve") && !allow.names.contains("swapoff"))
        #expect(allow.names.contains("io_uring_setup"), "@aio, nested in @system-service")
        // An allow list always has @default.
        let small = try #require(try Self.sandbox("SystemCallFilter=read write\n").systemCallFilter)
        #expect(small.names.isSuperset(of: ["read", "write", "execve", "exit_group", "brk"]))
        // A later deny line takes calls out of an allow list; a later allow line out of a deny list.
        let trimmed = try #require(try Self.sandbox("SystemCallFilter=@system-service\nSystemCallFilter=~ioctl\n").systemCallFilter)
        #expect(trimmed.allowList && !trimmed.names.contains("ioctl") && trimmed.names.contains("read"))
        let deny = try #require(try Self.sandbox("SystemCallFilter=~@swap @reboot\nSystemCallFilter=reboot\n").systemCallFilter)
        #expect(!deny.allowList && deny.names == ["swapon", "swapoff", "kexec_load", "kexec_file_load"])
        #expect(try Self.sandbox("SystemCallFilter=~@swap\nSystemCallFilter=\n").systemCallFilter == nil, "an empty value resets")

        let filters = try Self.sandbox("SystemCallFilter=~@swap\nSystemCallErrorNumber=EPERM\n").execSandbox().filters
        #expect(filters == [.init(defaultAction: .allow, action: .error(1), names: ["swapoff", "swapon"])])
        let killing = try Self.sandbox("SystemCallFilter=~@swap\n").execSandbox().filters
        #expect(killing == [.init(defaultAction: .allow, action: .kill, names: ["swapoff", "swapon"])])
        let allowing = try Self.sandbox("SystemCallFilter=read\nSystemCallErrorNumber=ENOSYS\n").execSandbox().filters.last
        #expect(allowing?.defaultAction == .error(38) && allowing?.action == .allow && allowing?.names.contains("read") == true)
    }

    @Test func theGroupsAreSystemd252s() {
        #expect(SystemCallGroups.systemdVersion == 252)
        #expect(Sandbox.expand("@clock") == ["adjtimex", "clock_adjtime", "clock_adjtime64", "clock_settime", "clock_settime64", "settimeofday"])
        #expect(Sandbox.expand("@nonexistent") == nil && Sandbox.expand("not_a_call") == nil && Sandbox.expand("@known") == nil)
    }

    /// The table scripts/syscall-groups wrote is what this machine's systemd 252 lists, group by
    /// group (so SystemCallFilter=@system-service means here what it means to systemd).
    @Test func theGroupTableIsWhatSystemdAnalyzeLists() throws {
        let analyze = "/usr/bin/systemd-analyze"
        guard access(analyze, X_OK) == 0 else { return try Requirement.unmet("needs systemd-analyze (the systemd package)") }
        let version = try CapturedProcess.run(analyze, ["--version"], environment: ["PATH": "/usr/bin:/bin"]).standardOutput
        guard version.hasPrefix("systemd \(SystemCallGroups.systemdVersion) ") else {
            return try Requirement.unmet("needs systemd \(SystemCallGroups.systemdVersion)'s systemd-analyze, found \(version.prefix(20))")
        }
        let listed = try CapturedProcess.run(analyze, ["syscall-filter"], environment: ["PATH": "/usr/bin:/bin", "SYSTEMD_COLORS": "0"])
        var groups: [String: [String]] = [:]
        var current = ""
        for line in listed.standardOutput.split(separator: "\n") {
            let word = line.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("@") { current = word; groups[current] = [] } else if !word.isEmpty, !word.hasPrefix("#") { groups[current]?.append(word) }
        }
        #expect(groups.count == SystemCallGroups.members.count && groups.count > 25)
        for (group, members) in groups {
            #expect(SystemCallGroups.members[group] == members, "\(group) differs: run scripts/syscall-groups")
        }
    }

    @Test func keysImplyWhatSystemdImplies() throws {
        // man-db.service's keys: the calls they forbid, the capabilities they drop, the device policy.
        let manDB = try Self.sandbox(DebianUnitKeys.manDBSandbox)
        #expect(manDB.needsDeviceCgroup && manDB.needsMountNamespace)
        #expect(manDB.protectedCalls.isSuperset(of: ["settimeofday", "init_module", "syslog", "ioperm", "sethostname", "setdomainname", "_sysctl"]))
        let dropped = Sandbox.capabilityMask("CAP_MKNOD", "CAP_SYS_RAWIO", "CAP_SYS_MODULE", "CAP_SYSLOG", "CAP_SYS_TIME", "CAP_WAKE_ALARM")
        #expect(manDB.boundingSet == Sandbox.allCapabilities & ~dropped)
        let planned = manDB.execSandbox(privateTmp: ("/tmp/a/tmp", "/var/tmp/b/tmp"))
        #expect(planned.devicePolicy == .clock && planned.newUTS && planned.privateDevices, "\(planned)")
        #expect(planned.privateTmp == .init(tmp: "/tmp/a/tmp", varTmp: "/var/tmp/b/tmp"))
        #expect(planned.flags == [EXEC_TAG_LOCK_PERSONALITY, EXEC_TAG_RESTRICT_REALTIME] && !planned.noNewPrivileges)
        #expect(try Self.sandbox("PrivateDevices=yes\n").execSandbox().devicePolicy == .closed)
        // NoNewPrivileges= with a mount namespace: every mount nosuid, as systemd mounts them.
        #expect(try Self.sandbox("NoNewPrivileges=yes\nPrivateTmp=yes\n").execSandbox(privateTmp: ("/a", "/b")).nosuidMounts)
        #expect(try !Self.sandbox("NoNewPrivileges=yes\n").execSandbox().nosuidMounts)
    }

    @Test(arguments: [
        ("RestrictNamespaces=yes", UInt64?(0)),
        ("RestrictNamespaces=no", nil),
        ("RestrictNamespaces=net ipc", 0x4800_0000),
        ("RestrictNamespaces=~user", 0x6e02_0000),
        ("RestrictNamespaces=net\nRestrictNamespaces=uts", 0x4400_0000),
    ])
    func restrictNamespacesKeepsTheAllowedTypes(line: String, allowed: UInt64?) throws {
        #expect(try Self.sandbox(line + "\n").allowedNamespaces == allowed)
    }

    static let all = Sandbox.allCapabilities
    static let chownAndKill: UInt64 = 0b10_0001
    static let capabilityLines: [(String, UInt64)] = [
        ("CapabilityBoundingSet=CAP_CHOWN CAP_KILL", chownAndKill),
        ("CapabilityBoundingSet=CAP_CHOWN\nCapabilityBoundingSet=cap_kill", chownAndKill),
        ("CapabilityBoundingSet=~CAP_SYS_ADMIN", all & ~(UInt64(1) << 21)),
        ("CapabilityBoundingSet=CAP_CHOWN CAP_KILL\nCapabilityBoundingSet=~CAP_KILL", 1),
        ("CapabilityBoundingSet=", 0),
        ("CapabilityBoundingSet=~", all),
    ]

    @Test(arguments: capabilityLines)
    func capabilityLinesMergeAsSystemds(line: String, set: UInt64) throws {
        #expect(try Self.sandbox(line + "\n").capabilityBoundingSet == set)
    }

    @Test(arguments: [
        ("PrivateTmp=maybe", 3, "PrivateTmp=: 'maybe' is not a boolean"),
        ("ProtectSystem=partial", 3, "ProtectSystem=: 'partial' is not a ProtectSystem= mode"),
        ("ProtectHome=hidden", 3, "ProtectHome=: 'hidden' is not a ProtectHome= mode"),
        ("PrivateUsers=yes", 3, "PrivateUsers=: jobd cannot run a job in a user namespace of its own"),
        ("RestrictNamespaces=net time", 3, "RestrictNamespaces=: 'time' is not a namespace type"),
        ("SystemCallFilter=@system-service @nonsense", 3, "SystemCallFilter=: '@nonsense' is neither a system call nor a group systemd 252 knows"),
        ("SystemCallFilter=~mount:EPERM", 3, "SystemCallFilter=: jobd does not take an error number per call ('mount:EPERM')"),
        ("SystemCallErrorNumber=EWHATEVER", 3, "SystemCallErrorNumber=: 'EWHATEVER' is not an error number"),
        ("ReadWritePaths=/srv relative", 3, "ReadWritePaths=: 'relative' is not an absolute path"),
        ("InaccessiblePaths=/srv/../etc", 3, "InaccessiblePaths=: '/srv/../etc' is not an absolute path"),
        ("CapabilityBoundingSet=CAP_FLY", 3, "CapabilityBoundingSet=: 'CAP_FLY' is not a capability"),
        ("Nice=1\nAmbientCapabilities=NET_ADMIN", 4, "AmbientCapabilities=: 'NET_ADMIN' is not a capability"),
    ])
    func aWrongValueIsAnErrorAtItsLineSayingWhatIsExpected(line: String, number: Int, message: String) {
        guard case .failure(let failure) = Self.read(line + "\n") else {
            Issue.record("\(line) was accepted")
            return
        }
        let error = failure.errors.first
        #expect(error?.file == "/j/boxed.job" && error?.line == number && error?.message == message, "\(failure.errors)")
        #expect(error?.hint?.isEmpty == false, "a hint says what to write")
    }

    @Test func theDevicePolicyLineIsKeptForTheLoadError() throws {
        let definition = try Self.read("Nice=1\nProtectClock=yes\nPrivateDevices=yes\n").get()
        #expect(definition.sandboxDeviceLine == 4)
        #expect(try Self.read("PrivateTmp=yes\n").get().sandboxDeviceLine == nil)
    }
}

extension Sandbox.MountEntry {
    /// `MODE:PATH` (`ro:-/boot`), for the tables above.
    var word: String {
        let mode = switch mode {
        case .inaccessible: "inaccessible"
        case .readOnly: "ro"
        case .readWrite: "rw"
        case .tmpfs: "tmpfs"
        case .keep: "keep"
        }
        return mode + ":" + (optional ? "-" : "") + path
    }
}
