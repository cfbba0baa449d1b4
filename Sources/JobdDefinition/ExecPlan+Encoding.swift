import JobdUnitFile
import CJobdExec

/// The one encoder of an ``ExecPlan``: the format of Sources/CJobdExec/include/plan.h, whose tags
/// and version it takes from that header, so that the two sides cannot name a field differently.
extension ExecPlan {
    /// The plan as `jobd-cgexec` reads it on its stdin.
    package func encoded() -> [UInt8] {
        var fields = FieldWriter()
        switch mode {
        case .run:
            fields.u32(EXEC_TAG_MODE, UInt32(EXEC_MODE_RUN))
        case .readFiles(let limit):
            fields.u32(EXEC_TAG_MODE, UInt32(EXEC_MODE_READ))
            fields.u64(EXEC_TAG_READ_LIMIT, limit)
            for file in readFiles { fields.string(EXEC_TAG_READ_FILE, file) }
        }
        for cgroup in cgroups { fields.string(EXEC_TAG_CGROUP, cgroup) }
        if let fence { fields.field(EXEC_TAG_FENCE, FieldWriter.u64(fence.stopMicroseconds ?? UInt64.max) + FieldWriter.text(fence.path)) }
        encode(attributes, into: &fields)
        encode(sandbox, into: &fields)
        fields.flag(EXEC_TAG_KEYRING, keyring)
        if let groups = credentials.groups { fields.field(EXEC_TAG_GROUPS, groups.flatMap(FieldWriter.u32)) }
        if let gid = credentials.gid { fields.u32(EXEC_TAG_GID, gid) }
        if let uid = credentials.uid { fields.u32(EXEC_TAG_UID, uid) }
        if let directory { fields.field(EXEC_TAG_DIRECTORY, [directory.optional ? 1 : 0] + FieldWriter.text(directory.path)) }
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) { fields.string(EXEC_TAG_ENVIRONMENT, name + "=" + value) }
        for argument in argv { fields.string(EXEC_TAG_ARGUMENT, argument) }
        fields.flag(EXEC_TAG_KEEP_STDIN, keepsStandardInput)
        return Array(EXEC_PLAN_MAGIC.utf8) + FieldWriter.u16(UInt16(EXEC_PLAN_VERSION)) + [0, 0]
            + FieldWriter.u32(UInt32(fields.bytes.count)) + fields.bytes
    }

    private func encode(_ attributes: Attributes, into fields: inout FieldWriter) {
        for entry in attributes.limits {
            let value = FieldWriter.u32(UInt32(entry.resource.number)) + FieldWriter.u64(entry.limit.soft ?? UInt64.max)
                + FieldWriter.u64(entry.limit.hard ?? UInt64.max)
            fields.field(EXEC_TAG_RLIMIT, value)
        }
        if let nice = attributes.nice { fields.u32(EXEC_TAG_NICE, UInt32(bitPattern: nice)) }
        if let ioPriority = attributes.ioPriority { fields.u32(EXEC_TAG_IOPRIO, ioPriority) }
        if let scheduling = attributes.scheduling {
            fields.field(EXEC_TAG_SCHED, FieldWriter.u32(scheduling.policy) + FieldWriter.u32(scheduling.priority))
        }
        if let umask = attributes.umask { fields.u32(EXEC_TAG_UMASK, umask) }
        for (tag, number) in attributes.numbers.sorted(by: { $0.key < $1.key }) { fields.u64(tag, UInt64(bitPattern: number)) }
    }

    private func encode(_ sandbox: Sandbox, into fields: inout FieldWriter) {
        for mount in sandbox.mounts {
            fields.field(EXEC_TAG_MOUNT, [UInt8(mount.mode.planValue), mount.optional ? 1 : 0] + FieldWriter.text(mount.path))
        }
        fields.flag(EXEC_TAG_USER_PATHS, sandbox.userPaths)
        fields.flag(EXEC_TAG_PRIVATE_DEV, sandbox.privateDevices)
        if let privateTmp = sandbox.privateTmp {
            fields.field(EXEC_TAG_PRIVATE_TMP, FieldWriter.text(privateTmp.tmp) + FieldWriter.text(privateTmp.varTmp))
        }
        fields.flag(EXEC_TAG_NOSUID_MOUNTS, sandbox.nosuidMounts)
        fields.flag(EXEC_TAG_NEW_UTS, sandbox.newUTS)
        switch sandbox.devicePolicy {
        case nil: break
        case .closed: fields.u32(EXEC_TAG_DEVICE_POLICY, UInt32(EXEC_DEVICES_CLOSED))
        case .clock: fields.u32(EXEC_TAG_DEVICE_POLICY, UInt32(EXEC_DEVICES_CLOCK))
        }
        if let boundingSet = sandbox.boundingSet { fields.u64(EXEC_TAG_BOUNDING, boundingSet) }
        if sandbox.ambientCapabilities != 0 { fields.u64(EXEC_TAG_AMBIENT, sandbox.ambientCapabilities) }
        fields.flag(EXEC_TAG_NO_NEW_PRIVILEGES, sandbox.noNewPrivileges)
        for filter in sandbox.filters {
            let actions = FieldWriter.u32(filter.defaultAction.planValue) + FieldWriter.u32(filter.action.planValue)
            fields.field(EXEC_TAG_SECCOMP, actions + filter.names.flatMap(FieldWriter.text))
        }
        if let allowed = sandbox.allowedNamespaces { fields.u64(EXEC_TAG_RESTRICT_NAMESPACES, allowed) }
        for tag in sandbox.flags { fields.flag(tag, true) }
    }
}

extension ExecPlan.Sandbox.Action {
    /// The plan's i32: `EXEC_SECCOMP_ALLOW`, `EXEC_SECCOMP_KILL` or the errno, as its bits.
    var planValue: UInt32 {
        switch self {
        case .allow: UInt32(bitPattern: Int32(EXEC_SECCOMP_ALLOW))
        case .kill: UInt32(bitPattern: Int32(EXEC_SECCOMP_KILL))
        case .error(let number): UInt32(bitPattern: number)
        }
    }
}

extension Sandbox.MountEntry.Mode {
    /// The plan's `EXEC_MOUNT_*`.
    var planValue: Int {
        switch self {
        case .readOnly: EXEC_MOUNT_RO
        case .readWrite: EXEC_MOUNT_RW
        case .inaccessible: EXEC_MOUNT_INACCESSIBLE
        case .tmpfs: EXEC_MOUNT_TMPFS
        case .keep: EXEC_MOUNT_KEEP
        }
    }
}

/// Tagged, length-prefixed fields, little-endian (plan.h).
private struct FieldWriter {
    var bytes: [UInt8] = []

    mutating func field(_ tag: Int, _ value: [UInt8]) {
        bytes += Self.u16(UInt16(tag)) + Self.u32(UInt32(value.count)) + value
    }

    mutating func flag(_ tag: Int, _ set: Bool) {
        if set { field(tag, []) }
    }

    mutating func u32(_ tag: Int, _ value: UInt32) { field(tag, Self.u32(value)) }
    mutating func u64(_ tag: Int, _ value: UInt64) { field(tag, Self.u64(value)) }
    mutating func string(_ tag: Int, _ value: String) { field(tag, Self.text(value)) }

    static func u16(_ value: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
    static func u32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    static func u64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    /// A string with its NUL (a NUL inside it makes the plan one that jobd-cgexec refuses).
    static func text(_ value: String) -> [UInt8] { Array(value.utf8) + [0] }
}
