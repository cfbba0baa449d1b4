package import JobdSystem
package import JobdUnitFile
package import JobdDefinition
package import JobdConfig

/// What an unprivileged user's own job file (`jobctl --user edit`) may say. jobd (root) starts its
/// runs, so the file is a boundary: an allow-list of keys, each of which either only describes the
/// run or only restricts it; anything else needs root. The run always switches to the user and
/// always runs with `NoNewPrivileges=yes` (``UserJobStore`` sets both), so `EnvironmentFile=` and
/// `WorkingDirectory=` are read as the user, by the trampoline, and no restriction of the run
/// (a bounding set, a filter, a changed file system) ever meets a set-user-ID program.
package enum UserJobPolicy {
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

    /// Every key a user's file may set, for jobd.job(5) and the tests: as the key table says.
    package static var allowedKeys: Set<String> { Set(JobFileKey.all.filter(\.userPolicy.isAllowed).map(\.name)) }

    /// What a user's file may do with the key written `name`: the key table's policy; a key that
    /// is not in it needs root (the job file's reader reports it as unknown too).
    static func policy(ofKey name: String) -> UserKeyPolicy {
        JobFileKey(name: name)?.userPolicy ?? .rootOnly
    }

    /// The errors of `text` (the file at `path`) as `owner`'s own job: keys that need root, and
    /// values that would raise the run above `owner` or above `bounds`, each key as the key table's
    /// ``JobFileKey/userPolicy`` says. A file that passes is then read as any job file is
    /// (``UserJobStore/definition(of:job:path:text:names:bounds:)``), and its read value checked by
    /// ``errors(of:text:path:bounds:)``.
    package static func errors(in text: String, path: String, owner: Account, bounds: Bounds) -> [ConfigError] {
        let (file, _) = UnitFile.parse(text, path: path)
        var errors: [ConfigError] = []
        // An empty value is a value too (for CapabilityBoundingSet=, no capabilities): each key's
        // rule decides it.
        for assignment in file.assignments where assignment.section == JobFileKey.section && !assignment.key.hasPrefix("X-") {
            let (key, value, line) = (assignment.key, assignment.value, assignment.line)
            let found: [(message: String, hint: String)]
            switch policy(ofKey: key) {
            case .free, .sandbox, .bounded(.stopTimeout): continue
            case .rootOnly:
                found = [("\(key)= needs root: a user's job may not set it",
                          "a user's job may set only the keys jobd.job(5) lists under \"A user's own jobs\"; ask the administrator for a system job")]
            case .checked(let check): found = Self.check(check, key: key, value: value, line: line, owner: owner)
            case .bounded(.tasks): found = Self.checkTasks(value, bounds: bounds).map { [$0] } ?? []
            }
            errors += found.map { ConfigError(file: path, line: line, message: $0.message, hint: $0.hint) }
        }
        return errors
    }

    /// The errors of `definition`, read from `text` (the file at `path`), as a user's job: the keys
    /// bounded on the value the read arrives at (``UserKeyPolicy/Bound/stopTimeout``).
    package static func errors(of definition: JobDefinition, text: String, path: String, bounds: Bounds) -> [ConfigError] {
        guard definition.stopTimeout > bounds.stopTimeoutMax else { return [] }
        let line = UnitFile.parse(text, path: path).0.assignments.last { $0.key == JobKey.timeoutStopSec.rawValue }?.line
        return [ConfigError(
            file: path, line: line, message: "TimeoutStopSec=\(definition.stopTimeout): a user's job may take at most "
                + "\(bounds.stopTimeoutMax) to stop (StopTimeoutMaxSec= in jobd.conf)",
            hint: "write a time span up to \(bounds.stopTimeoutMax)")]
    }

    /// What is wrong with `key=value` as `owner`'s, by `check`.
    private static func check(
        _ check: UserKeyPolicy.Check, key: String, value: String, line: Int, owner: Account
    ) -> [(message: String, hint: String)] {
        let userName = owner.userName ?? String(owner.uid)
        switch check {
        case .owner:  // empty: the default, which is the owner too
            guard !value.isEmpty && value != userName && value != String(owner.uid) else { return [] }
            return [("User=\(value): a user's job runs as its owner, \(userName)", "remove User=, or write User=\(userName)")]
        case .noNewPrivileges:  // empty: the default, which is yes for a user's job
            guard JobFileReader.boolean(value) == false else { return [] }
            return [("NoNewPrivileges=\(value): a user's job always runs with NoNewPrivileges=yes",
                     "remove the line: set-user-ID programs (sudo) gain no privileges in a user's job")]
        case .memberGroups:
            return checkGroups(key: key, value: value, owner: owner)
        case .ownJobs:
            return value.split(separator: " ").filter { $0.contains(":") }.map { name in
                ("\(key)=\(name): a user's job names only its owner's jobs, by their own names",
                 "write the job's name without a user, such as \(name.split(separator: ":").last ?? name)")
            }
        case .lowerScheduling:
            return checkScheduling(key: key, value: value).map { [$0] } ?? []
        case .lowerWeight:  // CPUWeight=, IOWeight=: at most the kernel's default of 100
            var resources = ResourceControl()
            guard let resource = ResourceControl.Key(rawValue: key), resources.read(key: resource, value: value, line: line) == nil,
                  let weight = resources.cpuWeight ?? resources.ioWeight, weight > ResourceControl.defaultWeight
            else { return [] }
            return [("\(key)=\(value) needs root: a user's job may only lower its weight", "write a value from 1 to 100")]
        }
    }

    /// `Group=`, `SupplementaryGroups=`: only groups `owner` is in. Fails closed: a word that names no
    /// group (or one holding a tab the reader would split at) is refused here, never left to mean
    /// something else later.
    private static func checkGroups(key: String, value: String, owner: Account) -> [(message: String, hint: String)] {
        let userName = owner.userName ?? String(owner.uid)
        let groups = Set([owner.gid] + (owner.supplementaryGroups ?? []))
        var errors: [(message: String, hint: String)] = []
        for name in value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) {
            guard let gid = (try? Account.resolve(user: nil, group: name))?.gid else {
                errors.append(("\(key)=\(name): no such group", "name only groups your account is in (id -Gn lists them)"))
                continue
            }
            if !groups.contains(gid) {
                errors.append(("\(key)=\(name): \(userName) is not a member of group \(name)",
                               "name only groups your account is in (id -Gn lists them)"))
            }
        }
        return errors
    }

    /// The values are read by the job file's own readers, so no other spelling of a value
    /// (IOSchedulingClass=01, +1…) can mean more than the check saw; a value they refuse is left to
    /// the job file's read, which reports it.
    private static func checkScheduling(key: String, value: String) -> (message: String, hint: String)? {
        var attributes = ProcessAttributes()
        guard let jobKey = JobKey(rawValue: key), attributes.read(jobKey, value: value) == nil else { return nil }
        if let nice = attributes.nice, nice < 0 {
            return ("Nice=\(value) needs root: a user's job may only lower its priority", "write a value from 0 to 19")
        } else if attributes.ioClass == 1 {
            return ("IOSchedulingClass=\(value) needs root: real-time I/O", "write best-effort or idle")
        } else if let priority = attributes.ioPriority, priority < 4 {
            return ("IOSchedulingPriority=\(value) needs root: a user's job may only lower its priority", "write a value from 4 (the default) to 7")
        } else if let policy = attributes.cpuPolicy, policy == 1 || policy == 2 {
            return ("CPUSchedulingPolicy=\(value) needs root: real-time scheduling", "write other, batch or idle")
        }
        return nil
    }

    /// `TasksMax=` at most `DefaultTasksMax=`: a user's run must not take root's tasks.
    private static func checkTasks(_ value: String, bounds: Bounds) -> (message: String, hint: String)? {
        guard let asked = TasksMax.parse(value), !asked.isAtMost(bounds.defaultTasksMax, systemMaximum: bounds.systemMaximum)
        else { return nil }
        let bound = bounds.defaultTasksMax.resolved(systemMaximum: bounds.systemMaximum).map(String.init) ?? "infinity"
        return ("TasksMax=\(value) needs root: a user's run may have at most DefaultTasksMax=\(bounds.defaultTasksMax) "
                + "(\(bound) tasks here) of jobd.conf", "write at most \(bound), or leave TasksMax= out for the default")
    }
}
