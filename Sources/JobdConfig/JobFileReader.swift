import JobdCalendar

/// Reads one job file's `[Job]` section into a ``JobDefinition``, collecting every error with the
/// line it is on. Sections and keys starting with `X-` are ignored, as systemd ignores them.
package enum JobFileReader {
    /// Reads the job `name` from the contents `text` of the file at `path`; with `interner`, a
    /// trigger another file of the same read wrote alike is shared with it rather than made again.
    package static func read(name: String, path: String, text: String) -> Result<JobDefinition, ConfigErrors> {
        read(name: name, path: path, text: text, interner: nil)
    }

    static func read(name: String, path: String, text: String, interner: TriggerInterner?) -> Result<JobDefinition, ConfigErrors> {
        var errors: [ConfigError] = []
        let (file, syntaxErrors) = UnitFile.parse(text, path: path)
        errors += syntaxErrors

        func error(_ line: Int?, _ message: String, hint: String? = nil) {
            errors.append(ConfigError(file: path, line: line, message: message, hint: hint))
        }

        /// An absolute path that may start with `-` (a missing file is then not an error).
        func optionalPath(_ key: JobKey, _ value: String, line: Int, example: String) -> (String, optional: Bool)? {
            let optional = value.hasPrefix("-")
            let file = optional ? String(value.dropFirst()) : value
            guard file.hasPrefix("/") else {
                error(line, "\(key.rawValue)= must be an absolute path, found '\(value)'",
                      hint: "write the full path, such as \(example); prefix it with '-' if it may be missing")
                return nil
            }
            return (file, optional)
        }

        if !isValidJobName(name) {
            error(nil, "'\(name)' is not a valid job name",
                  hint: "name job files with letters, digits and '_.@-' only, ending in .job")
        }
        for section in file.sections where section.name != JobKey.section && !section.name.hasPrefix("X-") {
            let hint = section.name.lowercased() == JobKey.section.lowercased() || KeySpelling.editDistance(section.name, JobKey.section) <= 1
                ? "did you mean [Job]?"
                : ForeignSyntax.sectionHint(section.name) ?? "a job file has one section, [Job]; sections starting with X- are ignored"
            error(section.line, "unknown section [\(section.name)]", hint: hint)
        }
        let jobSection = file.sections.first { $0.name == JobKey.section }

        var description: String?
        // `list`: the interner's list of this one trigger, for a job that has no other.
        var triggers: [(trigger: Trigger, line: Int, list: [Trigger]?)] = []
        var commands: [(command: ExecCommand, line: Int)] = []
        var workingDirectory: WorkingDirectory?
        var environment: [EnvironmentVariable] = []
        var randomizedDelay = TimeSpan.zero
        var accuracy = TimeSpan(microseconds: 1_000)
        var persistent = false
        var timing = TimerOptions()
        var catchUpLine: Int?
        var user: (name: String, line: Int)?
        var group: (name: String, line: Int)?
        var environmentFiles: [EnvironmentFile] = []
        var runtimeMax = TimeSpan.infinity
        var stopTimeout = JobDefinition.defaultStopTimeout
        var overlap = OverlapPolicy.skip
        var restart = RestartPolicy()
        var killMode = KillMode.controlGroup
        var onFailure: [String] = []
        var referenceLines = JobDefinition.ReferenceLines()
        var mailTo: [String] = []
        var mailOn = MailPolicy.output
        var expectSuccessWithin: TimeSpan?
        var tasksMax: (limit: TasksMax, line: Int)?
        var attributes = ProcessAttributes()
        var resources = ResourceControl()
        var sandbox = Sandbox()
        var conditions: [UnitCondition] = []
        var sandboxDeviceLine: Int?
        var successExitStatus = SuccessExitStatus()
        var supplementaryGroups: [(name: String, line: Int)] = []
        var syslogIdentifier: String?
        var startTimeout = TimeSpan.infinity
        var onSuccess: [String] = []
        var runOn: (policy: RunOn, line: Int) = (.everyNode, 0)
        // A command whose value was wrong is not also reported as missing.
        var commandValueFailed = false

        for assignment in file.assignments where assignment.section == JobKey.section {
            let line = assignment.line
            let value = assignment.value
            if assignment.key.hasPrefix("X-") { continue }
            if let resource = ResourceControl.Key(rawValue: assignment.key) {
                if let wrong = resources.read(key: resource, value: value, line: line) { error(line, wrong.message, hint: wrong.hint) }
                continue
            }
            if let (kind, isAssertion) = UnitCondition.kind(ofKey: assignment.key) {
                // systemd: an empty value resets every condition and assertion before it.
                guard !value.isEmpty else {
                    conditions = []
                    continue
                }
                switch UnitCondition.read(kind, isAssertion: isAssertion, value: value) {
                case .success(let condition): conditions.append(condition)
                case .failure(let wrong): error(line, wrong.message, hint: wrong.hint)
                }
                continue
            }
            guard let key = JobKey(rawValue: assignment.key) else {
                let hint: String = ForeignSyntax.hint(forKey: assignment.key, value: value)
                    ?? JobKey.suggestion(for: assignment.key).map { "did you mean '\($0)='?" }
                    ?? "jobd.job(5) lists every key a job file takes"
                error(line, "unknown key '\(assignment.key)=' in [Job]", hint: hint)
                continue
            }
            switch key {
            case .description:
                description = value.isEmpty ? nil : value
            case .onStartupSec, .onUnitActiveSec, .onUnitInactiveSec:
                if value.isEmpty {
                    triggers.removeAll { $0.trigger.key == key }
                    continue
                }
                do {
                    let span = try TimeSpan.parse(value)
                    let least = key == .onUnitActiveSec ? JobDefinition.minimumUnitActive
                        : key == .onUnitInactiveSec ? JobDefinition.minimumUnitInactive : .zero
                    guard span >= least else {
                        error(line, "\(key.rawValue)=\(value) is shorter than \(least), the least jobd accepts: it would start runs continuously",
                              hint: "write \(key.rawValue)=\(least) or more; for a command that must run continuously, loop inside it")
                        continue
                    }
                    let trigger: Trigger = switch key {
                    case .onStartupSec: .startup(span)
                    case .onUnitActiveSec: .unitActive(span)
                    default: .unitInactive(span)
                    }
                    triggers.append((trigger, line, nil))
                } catch {
                    errors.append(ConfigError(
                        file: path, line: line, message: "\(key.rawValue)=: \(error)",
                        hint: "write a time span such as 90s, 5min 30s, 1h or 250ms"))
                }
            case .onCalendar, .cron:
                if value.isEmpty {
                    triggers.removeAll { $0.trigger.key == key }
                    continue
                }
                do {
                    let make = { () throws(CalendarError) -> Trigger in
                        key == .onCalendar ? .calendar(try CalendarSpec.parse(value)) : .cron(try CronSpec.parse(value))
                    }
                    let list = try interner?.list(key, value, make: make) ?? [make()]
                    triggers.append((list[0], line, list))
                } catch {
                    errors.append(ConfigError(
                        file: path, line: line, message: "\(key.rawValue)=: \(error)",
                        hint: key == .cron && ForeignSyntax.looksLikeCronLine(Substring(value)) ? "Cron= takes the schedule only; " + ForeignSyntax.cronHint
                            : key == .onCalendar
                            ? "write a calendar event as systemd.time(7) does, such as daily, Mon..Fri 09:00 or *-*-* 02:30:00; check it with jobctl calendar"
                            : "write five fields (minute hour day-of-month month day-of-week) or @daily, @hourly, @reboot…; check it with jobctl calendar --cron"))
                }
            case .successExitStatus:
                guard !value.isEmpty else {
                    successExitStatus = SuccessExitStatus()
                    continue
                }
                if let wrong = successExitStatus.add(value) {
                    error(line, "SuccessExitStatus=: '\(wrong)' is neither an exit status nor a signal",
                          hint: "write exit statuses from 0 to 255 or their names (systemd-analyze exit-status) and signal names such as SIGHUP, separated by spaces")
                }
            case .restartPreventExitStatus:
                guard !value.isEmpty else {
                    restart.preventExitStatus = SuccessExitStatus()
                    continue
                }
                if let wrong = restart.preventExitStatus.add(value) {
                    error(line, "RestartPreventExitStatus=: '\(wrong)' is neither an exit status nor a signal",
                          hint: "write exit statuses from 0 to 255 or their names (systemd-analyze exit-status) and signal names such as SIGTERM, separated by spaces")
                }
            case .standardInput:
                // A run's stdin is /dev/null, as a service's by default; nothing else is offered.
                guard value.isEmpty || value == "null" else {
                    error(line, "StandardInput=: jobd gives every run /dev/null as its standard input, not '\(value)'",
                          hint: "write StandardInput=null, or feed the command yourself: ExecStart=/bin/sh -c 'command < FILE'")
                    continue
                }
            case .catchUp:
                guard !value.isEmpty else {
                    timing.catchUp = nil
                    continue
                }
                guard let policy = CatchUpPolicy(rawValue: value) else {
                    error(line, "CatchUp=: '\(value)' is not a catch-up policy", hint: "write none, latest or all")
                    continue
                }
                timing.catchUp = policy
                catchUpLine = line
            case .randomizedDelaySec, .randomizedOffsetSec, .catchUpWindowSec, .accuracySec, .runtimeMaxSec, .timeoutStopSec, .timeoutStartSec:
                do {
                    let span = try value.isEmpty ? Self.defaultSpan(of: key) : TimeSpan.parse(value)
                    switch key {
                    case .accuracySec: accuracy = span
                    case .randomizedDelaySec: randomizedDelay = span
                    case .randomizedOffsetSec: timing.randomizedOffset = span
                    case .catchUpWindowSec: timing.catchUpWindow = value.isEmpty ? TimerOptions.defaultCatchUpWindow : span
                    case .runtimeMaxSec: runtimeMax = span == .zero ? .infinity : span  // 0 means no limit, as systemd
                    // A oneshot service's start is its whole run: systemd stops it after this.
                    case .timeoutStartSec: startTimeout = span == .zero ? .infinity : span
                    default: stopTimeout = span == .zero ? .infinity : span
                    }
                } catch {
                    errors.append(ConfigError(
                        file: path, line: line, message: "\(key.rawValue)=: \(error)",
                        hint: "write a time span such as 90s, 5min 30s, 1h or 250ms"))
                }
            case .expectSuccessWithinSec:
                do {
                    // Empty, 0 or infinity: no expectation, as RuntimeMaxSec='s 0 is no limit.
                    let span = try value.isEmpty ? TimeSpan.zero : TimeSpan.parse(value)
                    expectSuccessWithin = span == .zero || span.isInfinite ? nil : span
                } catch {
                    errors.append(ConfigError(
                        file: path, line: line, message: "\(key.rawValue)=: \(error)",
                        hint: "write a time span such as 25h, 1d 2h or 90min: how long the job may go without a successful run"))
                }
            case .persistent, .fixedRandomDelay, .deferReactivation, .onClockChange, .onTimezoneChange:
                guard let flag = value.isEmpty ? false : Self.boolean(value) else {
                    error(line, "\(key.rawValue)=: '\(value)' is not a boolean", hint: "write yes or no")
                    continue
                }
                switch key {
                case .fixedRandomDelay: timing.fixedRandomDelay = flag
                case .deferReactivation: timing.deferReactivation = flag
                case .onClockChange: timing.onClockChange = flag
                case .onTimezoneChange: timing.onTimezoneChange = flag
                default: persistent = flag
                }
            case .user, .group:
                let account = value.isEmpty ? nil : (name: value, line: line)
                if key == .user { user = account } else { group = account }
            case .syslogIdentifier:
                guard value.isEmpty || SyslogIdentifier.isValid(value) else {
                    error(line, "SyslogIdentifier=: '\(value)' is not an identifier jobd takes", hint: SyslogIdentifier.hint(for: value))
                    continue
                }
                syslogIdentifier = value.isEmpty ? nil : value
            case .supplementaryGroups:
                // A list; more lines add to it, an empty one clears it, as systemd's.
                if value.isEmpty { supplementaryGroups.removeAll() }
                supplementaryGroups += value.split(separator: " ").map { (String($0), line) }
            case .environmentFile:
                if value.isEmpty {
                    environmentFiles.removeAll()
                    continue
                }
                guard let (file, optional) = optionalPath(key, value, line: line, example: "/etc/jobd/backup.env") else { continue }
                environmentFiles.append(EnvironmentFile(path: file, optional: optional))
            case .overlap:
                guard let policy = value.isEmpty ? .skip : OverlapPolicy(rawValue: value) else {
                    error(line, "Overlap=: '\(value)' is not an overlap policy",
                          hint: "write one of " + OverlapPolicy.allCases.map(\.rawValue).joined(separator: ", "))
                    continue
                }
                overlap = policy
            case .killMode:
                guard let mode = value.isEmpty ? .controlGroup : KillMode(rawValue: value) else {
                    error(line, "KillMode=: '\(value)' is not a kill mode",
                          hint: "write control-group (the default: a run's leftovers are stopped) or process (they are left running)")
                    continue
                }
                killMode = mode
            case .restart:
                guard let condition = value.isEmpty ? RestartPolicy.Condition.no : RestartPolicy.Condition(rawValue: value) else {
                    let hint = value == "always" || value == "on-success" || value == "on-watchdog"
                        ? "a job runs again by its triggers; Restart= only retries a failed run: write on-failure, on-abnormal, on-abort or no"
                        : "write one of " + RestartPolicy.Condition.allCases.map(\.rawValue).joined(separator: ", ")
                    error(line, "Restart=: '\(value)' is not a restart condition", hint: hint)
                    continue
                }
                restart.condition = condition
            case .restartSec, .restartMaxDelaySec:
                do {
                    if key == .restartSec {
                        restart.delay = try value.isEmpty ? RestartPolicy().delay : TimeSpan.parse(value)
                    } else {
                        restart.maxDelay = try value.isEmpty ? .infinity : TimeSpan.parse(value)
                    }
                } catch {
                    errors.append(ConfigError(
                        file: path, line: line, message: "\(key.rawValue)=: \(error)",
                        hint: "write a time span such as 30s, 5min or 1h"))
                }
            case .restartSteps, .restartLimit:
                let defaultValue = key == .restartSteps ? 0 : RestartPolicy.defaultLimit
                guard let number = value.isEmpty ? defaultValue : UInt64(value), number <= 10_000 else {
                    error(line, "\(key.rawValue)=: '\(value)' is not a number from 0 to 10000",
                          hint: key == .restartLimit ? "write how many times a failed run is retried, such as 3" : "write a number of steps, such as 5")
                    continue
                }
                if key == .restartSteps { restart.steps = number } else { restart.limit = number }
            case .onFailure, .onSuccess:
                var names = key == .onFailure ? onFailure : onSuccess
                if value.isEmpty { names.removeAll() }
                for word in value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) {
                    let job = word.hasSuffix(".job") ? String(word.dropLast(4)) : word
                    guard isValidJobName(job) else {
                        error(line, "\(key.rawValue)=: '\(word)' is not a job name",
                              hint: "name jobs by their file name without .job, such as notify-failure")
                        continue
                    }
                    if !names.contains(job) { names.append(job) }
                    referenceLines.lines[JobReference(key: key, job: job)] = line
                }
                if key == .onFailure { onFailure = names } else { onSuccess = names }
            case .mailTo:
                if value.isEmpty { mailTo.removeAll() }
                for word in value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }).map(String.init) {
                    guard MailPolicy.isSafeRecipient(word) else {
                        error(line, "MailTo=: '\(word)' is not an address jobd hands to sendmail",
                              hint: "a letter or digit first, then letters, digits and @!:%-._+=/ as cron's MAILTO= takes them; "
                                + "separate several with spaces or commas")
                        continue
                    }
                    if !mailTo.contains(word) { mailTo.append(word) }
                }
            case .mailOn:
                guard let policy = value.isEmpty ? .output : MailPolicy(rawValue: value) else {
                    error(line, "MailOn=: '\(value)' is not when to mail",
                          hint: "write output (the default: whenever a run writes anything, as cron) or failure (only failed runs)")
                    continue
                }
                mailOn = policy
            case .tasksMax:
                if value.isEmpty {
                    tasksMax = nil
                    continue
                }
                guard let limit = TasksMax.parse(value) else {
                    error(line, "TasksMax=: '\(value)' is not a task limit", hint: TasksMax.hint)
                    continue
                }
                tasksMax = (limit, line)
            case .nice, .ioSchedulingClass, .ioSchedulingPriority, .cpuSchedulingPolicy, .cpuSchedulingPriority, .umask, .limitCpu, .limitFsize, .limitData, .limitStack, .limitCore, .limitRss, .limitNproc, .limitNofile, .limitMemlock, .limitAS, .limitLocks, .limitSigpending, .limitMsgqueue, .limitNice, .limitRtprio, .limitRttime:
                if let wrong = attributes.read(key: key.rawValue, value: value) { error(line, wrong.message, hint: wrong.hint) }
                if let resource = ResourceLimit.Resource(key: key.rawValue) { attributes.limitLines[resource] = attributes.limits[resource] == nil ? nil : line }
            case .noNewPrivileges, .privateTmp, .privateDevices, .privateNetwork, .privateUsers, .protectSystem, .protectHome, .protectKernelTunables, .protectKernelModules, .protectKernelLogs, .protectControlGroups, .protectHostname, .protectClock, .lockPersonality, .restrictRealtime, .restrictNamespaces, .memoryDenyWriteExecute, .systemCallFilter, .systemCallErrorNumber, .readWritePaths, .readOnlyPaths, .inaccessiblePaths, .capabilityBoundingSet, .ambientCapabilities:
                if let wrong = sandbox.read(key: key.rawValue, value: value) { error(line, wrong.message, hint: wrong.hint) }
                if (key == .privateDevices || key == .protectClock) && sandbox.needsDeviceCgroup { sandboxDeviceLine = sandboxDeviceLine ?? line }
            case .runOn:
                guard let policy = value.isEmpty ? .everyNode : RunOn(rawValue: value) else {
                    error(line, "RunOn=: '\(value)' is not a place to run",
                          hint: "write every-node (each node runs it) or one-node (one node of the fleet per elapse)")
                    continue
                }
                runOn = (policy, line)
            case .execStart:
                if value.isEmpty {
                    commands.removeAll()
                    continue
                }
                do {
                    commands.append((try ExecCommand.parse(value), line))
                } catch {
                    commandValueFailed = true
                    errors.append(ConfigError(file: path, line: line, message: "ExecStart=: \(error.message)", hint: error.hint))
                }
            case .workingDirectory:
                if value.isEmpty {
                    workingDirectory = nil
                    continue
                }
                // `~`, as systemd: the home directory of User= (of jobd's own user without one).
                if value == "~" || value == "-~" {
                    workingDirectory = WorkingDirectory(path: WorkingDirectory.home, optional: value.hasPrefix("-"))
                    continue
                }
                guard let (directory, optional) = optionalPath(key, value, line: line, example: "/var/lib/backup or ~") else { continue }
                workingDirectory = WorkingDirectory(path: directory, optional: optional)
            case .environment:
                if value.isEmpty {
                    environment.removeAll()
                    continue
                }
                do {
                    for word in try WordSplitter.split(value) {
                        let assignmentText = word.map { if case .literal(let text) = $0 { text } else { "" } }.joined()
                        guard let equals = assignmentText.firstIndex(of: "="),
                              WordSplitter.isVariableName(String(assignmentText[..<equals])) else {
                            error(line, "Environment=: '\(assignmentText)' is not an assignment NAME=value",
                                  hint: "names are letters, digits and '_', not starting with a digit; quote values with spaces: \"NAME=a b\"")
                            continue
                        }
                        environment.append(EnvironmentVariable(
                            name: String(assignmentText[..<equals]),
                            value: String(assignmentText[assignmentText.index(after: equals)...])))
                    }
                } catch {
                    errors.append(ConfigError(file: path, line: line, message: "Environment=: \(error.message)"))
                }
            }
        }

        let sectionLine = jobSection?.line ?? 1
        if jobSection == nil {
            error(1, "no [Job] section", hint: "a job file starts with [Job], then ExecStart= and a trigger such as OnUnitActiveSec=")
        } else {
            if commands.isEmpty, !commandValueFailed {
                error(sectionLine, "the job has no ExecStart=",
                      hint: "add the command to run, such as ExecStart=/usr/bin/backup --all")
            }
            if commands.count > 1 {
                error(commands[1].line, "ExecStart= is given \(commands.count) times; jobd runs one command per job",
                      hint: "run a script, or an empty 'ExecStart=' first to reset the list")
            }
            // A job without a trigger is valid: it runs when another job's OnFailure= or OnSuccess=
            // starts it, or on `jobctl run`.
        }
        // A fleet elapse is a calendar time all nodes agree on; a span counted from one node's own
        // start or runs is not, nor is one node's boot.
        if runOn.policy == .oneNode {
            for (trigger, line, _) in triggers where !trigger.isCalendar || trigger == .cron(.reboot) {
                error(line, "\(trigger.key.rawValue)= cannot trigger a RunOn=one-node job (RunOn= is on line \(runOn.line))",
                      hint: "a fleet job's elapses are calendar times every node computes alike: use OnCalendar= or Cron= with a schedule")
            }
        }
        // CatchUp=latest and all make up what jobd's downtime missed, as Persistent=yes does: the
        // last trigger is kept. Persistent=yes is CatchUp=latest, so none contradicts it.
        if let policy = timing.catchUp {
            if policy == .none, persistent {
                error(catchUpLine ?? 1, "CatchUp=none contradicts Persistent=yes, which is CatchUp=latest", hint: "keep one of the two")
            }
            persistent = persistent || policy != .none
        }
        // As systemd, but at load rather than at the first start: a job whose account does not
        // exist is a configuration error, never a run that fails every time.
        for (key, account) in [("User", user), ("Group", group)] + supplementaryGroups.map({ ("SupplementaryGroups", $0) }) {
            guard let account else { continue }
            do {
                _ = try key == "User" ? Account.resolve(user: account.name, group: nil) : Account.resolve(user: nil, group: account.name)
                    as Account?
            } catch let failure {
                error(account.line, "\(key)=: \(failure)",
                      hint: "create the account (for example with adduser --system), or name an existing one")
            }
        }
        guard errors.isEmpty, let command = commands.first else {
            return .failure(ConfigErrors(errors.sorted { ($0.line ?? 0) < ($1.line ?? 0) }))
        }
        var fields = JobDefinition.Fields(
            name: name, path: path, description: description,
            triggers: triggers.count == 1 ? triggers[0].list ?? [triggers[0].trigger] : triggers.map(\.trigger),
            command: command.command, environment: environment)
        fields.accuracy = accuracy
        fields.persistent = persistent
        fields.overlap = overlap
        fields.killMode = killMode
        fields.runOn = runOn.policy
        fields.uncommon = JobDefinition.Uncommon(
            randomizedDelay: randomizedDelay, workingDirectory: workingDirectory, user: user?.name, group: group?.name, environmentFiles: environmentFiles,
            runtimeMax: min(runtimeMax, startTimeout), stopTimeout: stopTimeout, restart: restart, onFailure: onFailure, onSuccess: onSuccess,
            referenceLines: onFailure.isEmpty && onSuccess.isEmpty ? .init() : referenceLines, mailTo: mailTo, mailOn: mailOn,
            expectSuccessWithin: expectSuccessWithin, tasksMax: tasksMax?.limit, tasksMaxLine: JobDefinition.LineNumber(tasksMax?.line), processAttributes: attributes, resourceControl: resources, successExitStatus: successExitStatus,
            supplementaryGroups: supplementaryGroups.map(\.name), sandbox: sandbox,
            sandboxDeviceLine: JobDefinition.LineNumber(sandbox.needsDeviceCgroup ? sandboxDeviceLine : nil), conditions: conditions,
            syslogIdentifier: syslogIdentifier, timing: timing)
        var definition = JobDefinition(fields)
        // Once per read, not per `jobctl list`: a sandboxed job's checks cost tens of microseconds.
        definition.cachedExposureTenths = SecurityExposure.exposureTenths(of: definition)
        return .success(definition)
    }

    private static func defaultSpan(of key: JobKey) -> TimeSpan {
        switch key {
        case .accuracySec: TimeSpan(microseconds: 1_000)
        case .runtimeMaxSec, .timeoutStartSec: .infinity
        case .timeoutStopSec: JobDefinition.defaultStopTimeout
        default: .zero
        }
    }

    /// systemd's booleans: 1/yes/y/true/t/on and 0/no/n/false/f/off.
    package static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "1", "yes", "y", "true", "t", "on": true
        case "0", "no", "n", "false", "f", "off": false
        default: nil
        }
    }

    /// Job names become journal field values and command arguments: keep them plain (ASCII
    /// letters, digits and `_.@:-`, so that bytes are characters).
    package static func isValidJobName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 200 && name.utf8.allSatisfy {
            $0.isASCIILetter || $0.isASCIIDigit || $0 == .underscore || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "@")
                || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "-")
        }
    }
}

extension Trigger {
    var key: JobKey {
        switch self {
        case .startup: .onStartupSec
        case .unitActive: .onUnitActiveSec
        case .unitInactive: .onUnitInactiveSec
        case .calendar: .onCalendar
        case .cron: .cron
        }
    }
}
