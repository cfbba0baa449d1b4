/// What an unprivileged user's own job file (`jobctl --user edit`) may say. jobd (root) starts its
/// runs, so the file is a boundary: an allow-list of keys, each of which either only describes the
/// run or only restricts it; anything else needs root. The run always switches to the user and
/// always runs with `NoNewPrivileges=yes` (``UserJobStore`` sets both), so `EnvironmentFile=` and
/// `WorkingDirectory=` are read as the user, by the trampoline, and no restriction of the run
/// (a bounding set, a filter, a changed file system) ever meets a set-user-ID program.
package enum UserJobPolicy {
    /// The keys a user's file may set as it likes.
    static let freeKeys: Set<String> = [
        "Description", "OnStartupSec", "OnUnitActiveSec", "OnUnitInactiveSec", "OnCalendar", "Cron", "RandomizedDelaySec",
        "AccuracySec", "Persistent", "ExecStart", "WorkingDirectory", "Environment", "EnvironmentFile", "RuntimeMaxSec",
        "TimeoutStopSec", "TimeoutStartSec", "Overlap", "Restart", "RestartSec", "RestartSteps", "RestartMaxDelaySec",
        "RestartLimit", "KillMode", "MailTo", "MailOn", "ExpectSuccessWithinSec", "SuccessExitStatus", "RestartPreventExitStatus",
        "StandardInput", "UMask", "MemoryMax", "MemoryHigh", "MemorySwapMax", "CPUQuota",
        "FixedRandomDelay", "RandomizedOffsetSec", "DeferReactivation", "OnClockChange", "OnTimezoneChange",
        "CatchUp", "CatchUpWindowSec",
    ]
    /// Keys whose value is checked: they may restrict the run, never raise it above the user.
    static let checkedKeys: Set<String> = [
        "User", "NoNewPrivileges", "Group", "SupplementaryGroups", "OnFailure", "OnSuccess", "Nice", "IOSchedulingClass",
        "IOSchedulingPriority", "CPUSchedulingPolicy", "CPUWeight", "IOWeight", "TasksMax",
    ]
    /// Sandbox keys a user's file may set as it likes, because its run always has
    /// `NoNewPrivileges=yes`: a changed file system, system call filter or bounding set (an empty
    /// `CapabilityBoundingSet=` is the empty set) must never meet a set-user-ID program the user
    /// runs, the classic way to turn a restriction into root.
    static let sandboxKeys: Set<String> = [
        "PrivateTmp", "PrivateDevices", "PrivateUsers", "ProtectSystem", "ProtectHome", "ProtectKernelTunables",
        "ProtectKernelModules", "ProtectKernelLogs", "ProtectControlGroups", "ProtectHostname", "ProtectClock", "LockPersonality",
        "RestrictRealtime", "RestrictNamespaces", "MemoryDenyWriteExecute", "SystemCallFilter", "SystemCallErrorNumber",
        "ReadOnlyPaths", "InaccessiblePaths", "CapabilityBoundingSet",
    ]

    /// What jobd.conf bounds a user's job by: its `TasksMax=` at most `DefaultTasksMax=` (on a
    /// system of `systemMaximum` tasks, what percentages are shares of), its `TimeoutStopSec=` at
    /// most `StopTimeoutMaxSec=`.
    package struct Bounds: Sendable {
        package var defaultTasksMax: TasksMax
        package var systemMaximum: UInt64
        /// A user's job's `TimeoutStopSec=` at most `StopTimeoutMaxSec=` (checked on the file's read value).
        package var stopTimeoutMax: TimeSpan

        package init(settings: DaemonSettings, systemMaximum: UInt64) {
            defaultTasksMax = settings.defaultTasksMax
            self.systemMaximum = systemMaximum
            stopTimeoutMax = settings.stopTimeoutMax
        }
    }

    /// Every key a user's file may set, for jobd.job(5) and the tests.
    package static var allowedKeys: Set<String> { freeKeys.union(checkedKeys).union(sandboxKeys) }

    /// The errors of `text` (the file at `path`) as `owner`'s own job: keys that need root, and
    /// values that would raise the run above `owner` or above `bounds`. A file that passes is then
    /// read as any job file is (``UserJobStore/definition(of:job:path:text:names:bounds:)``).
    package static func errors(in text: String, path: String, owner: Account, bounds: Bounds) -> [ConfigError] {
        let (file, _) = UnitFile.parse(text, path: path)
        let userName = owner.userName ?? String(owner.uid)
        var errors: [ConfigError] = []
        func error(_ line: Int, _ message: String, _ hint: String) {
            errors.append(ConfigError(file: path, line: line, message: message, hint: hint))
        }
        let assignments = file.assignments.filter { $0.section == JobKey.section && !$0.key.hasPrefix("X-") }
        let groups = Set([owner.gid] + (owner.supplementaryGroups ?? []))
        // An empty value is a value too (for CapabilityBoundingSet=, no capabilities): each key's
        // rule below decides it.
        for assignment in assignments {
            let (key, value, line) = (assignment.key, assignment.value, assignment.line)
            if freeKeys.contains(key) || sandboxKeys.contains(key) { continue }
            guard checkedKeys.contains(key) else {
                error(line, "\(key)= needs root: a user's job may not set it",
                      "a user's job may set only the keys jobd.job(5) lists under \"A user's own jobs\"; ask the administrator for a system job")
                continue
            }
            switch key {
            case "User":  // empty: the default, which is the owner too
                if !value.isEmpty && value != userName && value != String(owner.uid) {
                    error(line, "User=\(value): a user's job runs as its owner, \(userName)", "remove User=, or write User=\(userName)")
                }
            case "NoNewPrivileges":  // empty: the default, which is yes for a user's job
                if JobFileReader.boolean(value) == false {
                    error(line, "NoNewPrivileges=\(value): a user's job always runs with NoNewPrivileges=yes",
                          "remove the line: set-user-ID programs (sudo) gain no privileges in a user's job")
                }
            case "Group", "SupplementaryGroups":
                // Fails closed: a word that names no group (or one holding a tab the reader would
                // split at) is refused here, never left to mean something else later.
                for name in value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) {
                    guard let gid = (try? Account.resolve(user: nil, group: name))?.gid else {
                        error(line, "\(key)=\(name): no such group", "name only groups your account is in (id -Gn lists them)")
                        continue
                    }
                    if !groups.contains(gid) {
                        error(line, "\(key)=\(name): \(userName) is not a member of group \(name)",
                              "name only groups your account is in (id -Gn lists them)")
                    }
                }
            case "OnFailure", "OnSuccess":
                for name in value.split(separator: " ") where name.contains(":") {
                    error(line, "\(key)=\(name): a user's job names only its owner's jobs, by their own names",
                          "write the job's name without a user, such as \(name.split(separator: ":").last ?? name)")
                }
            // The values are read by the job file's own readers, so no other spelling of a value
            // (IOSchedulingClass=01, +1…) can mean more than the check saw; a value they refuse is
            // left to the job file's read, which reports it.
            case "Nice", "IOSchedulingClass", "IOSchedulingPriority", "CPUSchedulingPolicy":
                var attributes = ProcessAttributes()
                guard attributes.read(key: key, value: value) == nil else { continue }
                if let nice = attributes.nice, nice < 0 {
                    error(line, "Nice=\(value) needs root: a user's job may only lower its priority", "write a value from 0 to 19")
                } else if attributes.ioClass == 1 {
                    error(line, "IOSchedulingClass=\(value) needs root: real-time I/O", "write best-effort or idle")
                } else if let priority = attributes.ioPriority, priority < 4 {
                    error(line, "IOSchedulingPriority=\(value) needs root: a user's job may only lower its priority",
                          "write a value from 4 (the default) to 7")
                } else if let policy = attributes.cpuPolicy, policy == 1 || policy == 2 {
                    error(line, "CPUSchedulingPolicy=\(value) needs root: real-time scheduling", "write other, batch or idle")
                }
            case "TasksMax":  // at most DefaultTasksMax=: a user's run must not take root's tasks
                guard let asked = TasksMax.parse(value), !asked.isAtMost(bounds.defaultTasksMax, systemMaximum: bounds.systemMaximum)
                else { continue }
                let bound = bounds.defaultTasksMax.resolved(systemMaximum: bounds.systemMaximum).map(String.init) ?? "infinity"
                error(line, "TasksMax=\(value) needs root: a user's run may have at most DefaultTasksMax=\(bounds.defaultTasksMax) "
                      + "(\(bound) tasks here) of jobd.conf", "write at most \(bound), or leave TasksMax= out for the default")
            default:  // CPUWeight=, IOWeight=: at most the kernel's default of 100
                var resources = ResourceControl()
                guard let resource = ResourceControl.Key(rawValue: key), resources.read(key: resource, value: value, line: line) == nil
                else { continue }
                if let weight = resources.cpuWeight ?? resources.ioWeight, weight > ResourceControl.defaultWeight {
                    error(line, "\(key)=\(value) needs root: a user's job may only lower its weight", "write a value from 1 to 100")
                }
            }
        }
        return errors
    }
}
