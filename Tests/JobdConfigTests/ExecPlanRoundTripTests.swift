import CJobdExec
import Glibc
@testable import JobdConfig
@testable import JobdDefinition
@testable import JobdUnitFile
import Testing

/// The exec plan from Swift's encoder to jobd-cgexec's parser (issue 39): every field Swift writes
/// is the field C reads, compared by reading the C struct back into an ``ExecPlan``.
struct ExecPlanRoundTripTests {
    /// A plan with every field set to a value other than its default.
    static var everything: ExecPlan {
        var plan = ExecPlan()
        plan.cgroups = ["/sys/fs/cgroup/jobd/runs/run-1", "/sys/fs/cgroup/pids/jobd/runs/run-1"]
        plan.attributes.limits = [
            .init(resource: .core, limit: ResourceLimit(soft: 0, hard: nil)), .init(resource: .nofile, limit: ResourceLimit(soft: 1_024, hard: 4_096)),
        ]
        plan.attributes.nice = -5
        plan.attributes.ioPriority = 3 << 13 | 7
        plan.attributes.scheduling = .init(policy: 3, priority: 0)
        plan.attributes.umask = 0o027
        plan.attributes.numbers = Dictionary(uniqueKeysWithValues: Self.keyNumbers.map { ($0.tag, $0.range.lowerBound) })
        plan.sandbox.mounts = [
            Sandbox.MountEntry(path: "/", mode: .readOnly, optional: false), Sandbox.MountEntry(path: "/home", mode: .inaccessible, optional: true),
            Sandbox.MountEntry(path: "/var/lib/x", mode: .readWrite, optional: false), Sandbox.MountEntry(path: "/root", mode: .tmpfs, optional: true),
            Sandbox.MountEntry(path: "/proc", mode: .keep, optional: false),
        ]
        plan.sandbox.userPaths = true
        plan.sandbox.privateDevices = true
        plan.sandbox.privateTmp = .init(tmp: "/tmp/jobd-a/tmp", varTmp: "/var/tmp/jobd-b/tmp")
        plan.sandbox.nosuidMounts = true
        plan.sandbox.newUTS = true
        plan.sandbox.devicePolicy = .clock
        plan.sandbox.boundingSet = 0x3f
        plan.sandbox.ambientCapabilities = 1 << 10
        plan.sandbox.noNewPrivileges = true
        plan.sandbox.filters = [
            .init(defaultAction: .allow, action: .error(EPERM), names: ["settimeofday", "syslog"]),
            .init(defaultAction: .kill, action: .allow, names: ["read", "write", "exit_group"]),
        ]
        plan.sandbox.allowedNamespaces = 0x4000_0000  // CLONE_NEWNET
        plan.sandbox.flags = Self.keyFlags
        plan.keyring = true
        plan.fence = .init(path: "/run/jobd/fence/abc", stopMicroseconds: 90_000_000)
        plan.credentials = .init(groups: [100, 27, 4], gid: 100, uid: 1_000)
        plan.directory = WorkingDirectory(path: "/home/alice", optional: true)
        plan.environment = ["PATH": "/usr/bin:/bin", "EMPTY": "", "WITH_EQUALS": "a=b c", "UTF8": "é ✓"]
        plan.argv = ["/bin/sh", "-c", "echo \"$1\"", "", "ünïcode"]
        plan.keepsStandardInput = true
        return plan
    }

    @Test func everyFieldSwiftWritesIsTheOneCReads() throws {
        let original = Self.everything
        #expect(try Self.parsed(original.encoded()) == original)
    }

    /// The plan flags of the key table (``JobKey/planFlag``), ascending.
    static let keyFlags = JobKey.allCases.compactMap(\.planFlag).sorted()

    /// The plan numbers of the key table (``JobKey/planNumber``).
    static let keyNumbers = JobKey.allCases.compactMap(\.planNumber)

    /// Each number the key table declares is one the C parser reads, at both ends of its range and
    /// no further.
    @Test func everyNumberOfTheKeyTableIsOneTheCKnowsWithinItsRange() throws {
        #expect(!Self.keyNumbers.isEmpty)
        for (tag, range) in Self.keyNumbers {
            for number in [range.lowerBound, range.upperBound, range.lowerBound - 1, range.upperBound + 1] {
                var plan = ExecPlan()
                plan.argv = ["true"]
                plan.attributes.numbers = [tag: number]
                let parsed = Result { try Self.parsed(plan.encoded()) }
                if range.contains(number) {
                    #expect(try parsed.get().attributes.numbers == [tag: number], "jobd-cgexec does not read the key table's number \(tag)")
                } else {
                    #expect(throws: Refusal.self, "\(number) is outside \(range)") { try parsed.get() }
                }
            }
        }
    }

    /// Each flag the key table declares is one the C parser reads and jobd-cgexec applies: a key
    /// added to the table without its C is caught here.
    @Test func everyFlagOfTheKeyTableIsOneTheCKnows() throws {
        #expect(!Self.keyFlags.isEmpty)
        for tag in Self.keyFlags {
            var plan = ExecPlan()
            plan.argv = ["true"]
            plan.sandbox.flags = [tag]
            let parsed = try Self.parsed(plan.encoded())
            #expect(parsed.sandbox.flags == [tag], "jobd-cgexec does not read the key table's flag \(tag)")
        }
    }

    @Test func aPlanWithNothingButItsCommandReadsBackAsDefaults() throws {
        var plan = ExecPlan()
        plan.argv = ["true"]
        plan.fence = .init(path: "/run/jobd/fence/x", stopMicroseconds: nil)
        #expect(try Self.parsed(plan.encoded()) == plan, "a fence without a stop timeout is never SIGKILLed")
    }

    @Test func theReadModeCarriesItsFilesAndLimit() throws {
        var plan = ExecPlan(mode: .readFiles(limit: 1 << 20))
        plan.credentials = .init(groups: [], gid: 65_534, uid: 65_534)
        plan.readFiles = ["/etc/a.env", "relative/b.env"]
        #expect(try Self.parsed(plan.encoded()) == plan)
    }

    /// The parsed C plan as Swift's; throws the parser's refusal.
    static func parsed(_ bytes: [UInt8]) throws -> ExecPlan {
        var plan = exec_plan()
        var error = [CChar](repeating: 0, count: 512)
        let status = exec_plan_parse(bytes, bytes.count, &plan, &error, error.count)
        defer { exec_plan_release(&plan) }
        guard status == 0 else { throw Refusal(status: status, message: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        return ExecPlan(plan)
    }

    struct Refusal: Error, Equatable {
        var status: Int32
        var message: String
    }
}

extension ExecPlan {
    /// What the C parser read, field by field.
    init(_ plan: exec_plan) {
        self.init(mode: plan.mode == Int32(EXEC_MODE_READ) ? .readFiles(limit: plan.read_limit) : .run)
        cgroups = (0..<plan.cgroup_count).map { String(cString: plan.cgroups[$0]!) }
        attributes = Attributes(plan.attributes)
        sandbox = Sandbox(plan.sandbox)
        keyring = plan.keyring != 0
        fence = plan.fence.map { Fence(path: String(cString: $0), stopMicroseconds: plan.fence_stop == UInt64.max ? nil : plan.fence_stop) }
        attributes.numbers = withUnsafePointer(to: plan) { plan in
            Dictionary(uniqueKeysWithValues: ExecPlanRoundTripTests.keyNumbers.compactMap { field in
                var number: Int64 = 0
                return exec_plan_key_number(plan, Int32(field.tag), &number) == 1 ? (field.tag, number) : nil
            })
        }
        sandbox.flags = withUnsafePointer(to: plan) { plan in ExecPlanRoundTripTests.keyFlags.filter { exec_plan_key_flag(plan, Int32($0)) == 1 } }
        let owned = plan.credentials
        credentials = Credentials(groups: owned.has_groups != 0 ? (0..<owned.group_count).map { owned.groups[$0] } : nil,
                                  gid: owned.has_gid != 0 ? owned.gid : nil, uid: owned.has_uid != 0 ? owned.uid : nil)
        directory = plan.directory.map { WorkingDirectory(path: String(cString: $0), optional: plan.directory_optional != 0) }
        environment = Dictionary(uniqueKeysWithValues: (0..<plan.environment_count).map {
            let entry = String(cString: plan.environment[$0]!)
            let equals = entry.firstIndex(of: "=")!
            return (String(entry[..<equals]), String(entry[entry.index(after: equals)...]))
        })
        #expect(plan.environment[plan.environment_count] == nil && plan.argv[plan.argc] == nil, "execve's lists end with NULL")
        argv = (0..<plan.argc).map { String(cString: plan.argv[$0]!) }
        readFiles = (0..<plan.read_file_count).map { String(cString: plan.read_files[$0]!) }
        keepsStandardInput = plan.keep_stdin != 0
    }
}

extension ExecPlan.Attributes {
    init(_ attributes: exec_attributes) {
        self.init()
        limits = (0..<attributes.rlimit_count).map {
            let limit = attributes.rlimits[$0]
            return .init(resource: ResourceLimit.Resource(rawValue: Int32(limit.resource))!,
                         limit: ResourceLimit(soft: limit.soft == UInt64.max ? nil : limit.soft, hard: limit.hard == UInt64.max ? nil : limit.hard))
        }
        nice = attributes.has_nice != 0 ? attributes.nice : nil
        ioPriority = attributes.has_ioprio != 0 ? attributes.ioprio : nil
        scheduling = attributes.has_sched != 0 ? .init(policy: attributes.sched_policy, priority: attributes.sched_priority) : nil
        umask = attributes.has_umask != 0 ? attributes.umask : nil
    }
}

extension ExecPlan.Sandbox {
    init(_ sandbox: exec_sandbox) {
        self.init()
        let modes: [Int32: Sandbox.MountEntry.Mode] = [
            Int32(EXEC_MOUNT_RO): .readOnly, Int32(EXEC_MOUNT_RW): .readWrite, Int32(EXEC_MOUNT_INACCESSIBLE): .inaccessible,
            Int32(EXEC_MOUNT_TMPFS): .tmpfs, Int32(EXEC_MOUNT_KEEP): .keep,
        ]
        mounts = (0..<sandbox.mount_count).map {
            let mount = sandbox.mounts[$0]
            return Sandbox.MountEntry(path: String(cString: mount.path), mode: modes[mount.mode]!, optional: mount.optional != 0)
        }
        userPaths = sandbox.user_paths != 0
        privateDevices = sandbox.private_dev != 0
        privateTmp = sandbox.private_tmp.map { PrivateTmp(tmp: String(cString: $0), varTmp: String(cString: sandbox.private_var_tmp)) }
        nosuidMounts = sandbox.nosuid != 0
        newUTS = sandbox.new_uts != 0
        devicePolicy = [Int32(EXEC_DEVICES_CLOSED): DevicePolicy.closed, Int32(EXEC_DEVICES_CLOCK): .clock][sandbox.device_policy]
        boundingSet = sandbox.has_bounding != 0 ? sandbox.bounding : nil
        ambientCapabilities = sandbox.ambient
        noNewPrivileges = sandbox.no_new_privileges != 0
        filters = (0..<sandbox.filter_count).map {
            let filter = sandbox.filters[$0]
            return Filter(defaultAction: Action(filter.default_action), action: Action(filter.action),
                          names: (0..<filter.name_count).map { String(cString: filter.names[$0]!) })
        }
        allowedNamespaces = sandbox.has_restrict_namespaces != 0 ? sandbox.allowed_namespaces : nil
    }
}

extension ExecPlan.Sandbox.Action {
    init(_ value: Int32) {
        self = value == Int32(EXEC_SECCOMP_ALLOW) ? .allow : value == Int32(EXEC_SECCOMP_KILL) ? .kill : .error(value)
    }
}
