package import JobdUnitFile

/// What a run's process is given before its command runs, read as systemd 252 reads the same keys
/// of a service (systemd.exec(5)): `Nice=`, `IOSchedulingClass=`, `IOSchedulingPriority=`,
/// `UMask=` and the `Limit…=` keys. `jobd-cgexec` applies them as root, before it switches to the
/// job's `User=`, as systemd does (a negative `Nice=` or a raised hard limit needs root).
package struct ProcessAttributes: Sendable, Hashable {
    /// `Nice=`: -20 (most favourable) to 19; `nil` keeps jobd's.
    package var nice: Int32?
    /// `IOSchedulingClass=`, as the kernel numbers it (1 realtime, 2 best-effort, 3 idle; 0 none).
    package var ioClass: Int32?
    /// `IOSchedulingPriority=`: 0 (highest) to 7.
    package var ioPriority: Int32?
    /// `CPUSchedulingPolicy=`, as the kernel numbers it (0 other, 1 fifo, 2 rr, 3 batch, 5 idle).
    package var cpuPolicy: Int32?
    /// `CPUSchedulingPriority=`: 1 to 99 for fifo and rr.
    package var cpuPriority: Int32?
    /// `UMask=`; `nil` keeps jobd's (0022 under its unit, systemd's default for a service).
    package var umask: UInt32?
    /// The `Limit…=` keys, by resource.
    package var limits: [ResourceLimit.Resource: ResourceLimit] = [:]
    /// The line of each of ``limits``' keys in the job file.
    package var limitLines: [ResourceLimit.Resource: Int] = [:]
    /// The numbers jobd-cgexec takes as the job file gives them (the key table's ``Value/number``:
    /// `OOMScoreAdjust=`), by key. Such a key has no field here, nor a reader or an encoder of its own.
    package var numbers: [JobKey: Int64] = [:]

    package init() {}

    /// Whether every attribute keeps its default (then a run needs no trampoline for them).
    package var isDefault: Bool { self == ProcessAttributes() }

    /// The I/O priority to set, as systemd sets it: a class without a priority gets 4, also idle (the
    /// kernel keeps idle's data and reports it, as the differential test compares), a priority
    /// without a class is best-effort; the kernel's `IOPRIO_PRIO_VALUE(class, data)`.
    package var ioPriorityValue: Int32? {
        guard ioClass != nil || ioPriority != nil else { return nil }
        let ioClass = ioClass ?? 2
        return ioClass << 13 | (ioClass == 0 ? 0 : ioPriority ?? 4)
    }

    /// The I/O scheduling classes by their systemd names.
    static let ioClasses: [String: Int32] = ["none": 0, "realtime": 1, "best-effort": 2, "idle": 3]
    /// The CPU scheduling policies by their systemd names (`SCHED_*`).
    static let cpuPolicies: [String: Int32] = ["other": 0, "fifo": 1, "rr": 2, "batch": 3, "idle": 5]

    /// The policy and priority to give `sched_setscheduler(2)`, as systemd gives them: a policy
    /// without a priority gets 1 where it takes one (fifo, rr) and 0 elsewhere; a priority without a
    /// policy keeps the policy jobd has (other), where only 0 is valid.
    package var cpuScheduling: (policy: Int32, priority: Int32)? {
        guard cpuPolicy != nil || cpuPriority != nil else { return nil }
        let policy = cpuPolicy ?? 0
        let realtime = policy == 1 || policy == 2
        return (policy, realtime ? cpuPriority ?? 1 : 0)
    }

    /// The keys read here, as the key table says (``JobKey/reader``).
    package static let keys = JobKey.names { if case .processAttribute = $0 { true } else { false } }

    /// How a process attribute's value is read: what the key table declares of it (``JobKey/reader``).
    package enum Value: Sendable, Hashable {
        case nice, ioClass, ioPriority, cpuPolicy, cpuPriority, umask
        /// A `Limit…=` key.
        case limit(ResourceLimit.Resource)
        /// A number jobd-cgexec takes as the job file gives it, in the exec plan's field `planTag`
        /// (an i64), one of `range`: held in ``numbers``.
        case number(planTag: Int, range: ClosedRange<Int64>)
    }

    /// Reads `key`'s `value` into `self`, if the key table gives the key to the process
    /// attributes; an empty value resets the key. Returns the error's message and hint when the
    /// value is wrong.
    package mutating func read(_ key: JobKey, value: String) -> (message: String, hint: String)? {
        guard case .processAttribute(let kind) = key.reader else { return nil }
        return read(key, as: kind, value: value)
    }

    mutating func read(_ key: JobKey, as kind: Value, value: String) -> (message: String, hint: String)? {
        let name = key.rawValue
        switch kind {
        case .nice:
            guard !value.isEmpty else { nice = nil; return nil }
            guard let number = Int32(value), (-20...19).contains(number) else {
                return ("\(name)=: '\(value)' is not a nice value", "write a number from -20 (most favourable) to 19 (least), such as 10")
            }
            nice = number
        case .ioClass:
            guard !value.isEmpty else { ioClass = nil; return nil }
            guard let found = Self.ioClasses[value] ?? Int32(value).flatMap({ (0...3).contains($0) ? $0 : nil }) else {
                return ("\(name)=: '\(value)' is not an I/O scheduling class", "write idle, best-effort, realtime or none")
            }
            ioClass = found
        case .ioPriority:
            guard !value.isEmpty else { ioPriority = nil; return nil }
            guard let number = Int32(value), (0...7).contains(number) else {
                return ("\(name)=: '\(value)' is not an I/O priority", "write a number from 0 (highest) to 7 (lowest)")
            }
            ioPriority = number
        case .cpuPolicy:
            guard !value.isEmpty else { cpuPolicy = nil; return nil }
            guard let found = Self.cpuPolicies[value] else {
                return ("\(name)=: '\(value)' is not a CPU scheduling policy", "write other, batch, idle, fifo or rr")
            }
            cpuPolicy = found
        case .cpuPriority:
            guard !value.isEmpty else { cpuPriority = nil; return nil }
            guard let number = Int32(value), (1...99).contains(number) else {
                return ("\(name)=: '\(value)' is not a real-time priority", "write a number from 1 to 99 (for CPUSchedulingPolicy=fifo or rr)")
            }
            cpuPriority = number
        case .umask:
            guard !value.isEmpty else { umask = nil; return nil }
            guard value.utf8.count <= 4, let mask = UInt32(value, radix: 8), mask <= 0o777 else {
                return ("\(name)=: '\(value)' is not a file mode mask", "write an octal mask such as 0027 (systemd's default is 0022)")
            }
            umask = mask
        case .limit(let resource):
            guard !value.isEmpty else { limits[resource] = nil; return nil }
            switch ResourceLimit.parse(value, resource: resource) {
            case .success(let limit): limits[resource] = limit
            case .failure(let failure): return ("\(name)=: '\(value)' \(failure.message)", failure.hint)
            }
        case .number(_, let range):
            guard !value.isEmpty else { numbers[key] = nil; return nil }
            guard let number = Int64(value), range.contains(number) else {
                return ("\(name)=: '\(value)' is not a number from \(range.lowerBound) to \(range.upperBound)",
                        "write a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            numbers[key] = number
        }
        return nil
    }

    /// Why a `Limit…=` cannot be given to a run of jobd's, whose hard limits (`nil`: infinity) are
    /// `ownHard`'s, and which may raise a hard limit only with `mayRaise` (`CAP_SYS_RESOURCE`):
    /// jobd-cgexec sets them with jobd's credentials. One error for each key that asks for a hard
    /// limit above jobd's, at its line, in `path`. systemd sets the closest limit it can and runs the
    /// service; jobd never runs a job with less than its file says.
    package func limitRefusals(path: String, ownHard: (ResourceLimit.Resource) -> UInt64?, mayRaise: Bool) -> [ConfigError] {
        guard !mayRaise else { return [] }
        return ResourceLimit.Resource.allCases.compactMap { resource in
            guard let limit = limits[resource], let own = ownHard(resource), limit.hard.map({ $0 > own }) ?? true else { return nil }
            let asked = ResourceLimit.text(limit.hard), key = resource.key
            return ConfigError(
                file: path, line: limitLines[resource],
                message: "\(key)=: a hard limit of \(asked) cannot be set: jobd's own is \(own), and raising it needs CAP_SYS_RESOURCE, which jobd does not have",
                hint: "write a hard limit of at most \(own), or raise jobd's own (\(key)= of jobd.service)")
        }
    }

    /// The exec plan's attributes that give a process these.
    package var execAttributes: ExecPlan.Attributes {
        var plan = ExecPlan.Attributes()
        plan.limits = ResourceLimit.Resource.allCases.compactMap { resource in limits[resource].map { .init(resource: resource, limit: $0) } }
        plan.nice = nice
        plan.ioPriority = ioPriorityValue.map { UInt32(bitPattern: $0) }
        plan.scheduling = cpuScheduling.map { .init(policy: UInt32(bitPattern: $0.policy), priority: UInt32(bitPattern: $0.priority)) }
        plan.umask = umask
        plan.numbers = Dictionary(uniqueKeysWithValues: numbers.compactMap { key, value in key.planNumber.map { ($0.tag, value) } })
        return plan
    }
}
