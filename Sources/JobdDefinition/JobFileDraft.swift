import JobdCalendar
import JobdSystem
import JobdUnitFile

/// The definition a job file's `[Job]` section builds, key by key, while it is read: each key of
/// ``JobFileKey`` reads its value into it, then ``definition(name:section:)`` checks what needs
/// more than one key and makes the ``JobDefinition``. Every error is collected with its line.
struct JobFileDraft {
    let path: String
    /// Shares a trigger another file of the same read wrote alike (``TriggerInterner``).
    let interner: TriggerInterner?
    var errors: [ConfigError] = []

    var description: String?
    // `list`: the interner's list of this one trigger, for a job that has no other.
    var triggers: [(trigger: Trigger, line: Int, list: [Trigger]?)] = []
    var commands: [(command: ExecCommand, line: Int)] = []
    // A command whose value was wrong is not also reported as missing.
    var commandValueFailed = false
    var workingDirectory: WorkingDirectory?
    var environment: [EnvironmentVariable] = []
    var environmentFiles: [EnvironmentFile] = []
    var randomizedDelay = TimeSpan.zero
    var accuracy = TimeSpan(microseconds: 1_000)
    var persistent = false
    var timing = TimerOptions()
    var catchUpLine: Int?
    var user: (name: String, line: Int)?
    var group: (name: String, line: Int)?
    var supplementaryGroups: [(name: String, line: Int)] = []
    var runtimeMax = TimeSpan.infinity
    var startTimeout = TimeSpan.infinity
    var stopTimeout = JobDefinition.defaultStopTimeout
    var overlap = OverlapPolicy.skip
    var restart = RestartPolicy()
    var killMode = KillMode.controlGroup
    var onFailure: [String] = []
    var onSuccess: [String] = []
    var referenceLines = JobDefinition.ReferenceLines()
    var mailTo: [String] = []
    var mailOn = MailPolicy.output
    var expectSuccessWithin: TimeSpan?
    var tasksMax: (limit: TasksMax, line: Int)?
    var attributes = ProcessAttributes()
    var resources = ResourceControl()
    var sandbox = Sandbox()
    var sandboxDeviceLine: Int?
    var conditions: [UnitCondition] = []
    var successExitStatus = SuccessExitStatus()
    var syslogIdentifier: String?
    var runOn: (policy: RunOn, line: Int) = (.everyNode, 0)

    init(path: String, interner: TriggerInterner?) {
        self.path = path
        self.interner = interner
    }

    mutating func error(_ line: Int?, _ message: String, hint: String? = nil) {
        errors.append(ConfigError(file: path, line: line, message: message, hint: hint))
    }

    /// The job `name`, or every error of the file; `section` is its `[Job]` section, if it has one.
    func definition(name: String, section: UnitFile.Section?) -> Result<JobDefinition, ConfigErrors> {
        var draft = self
        draft.checkAcrossKeys(section: section)
        guard draft.errors.isEmpty, let command = draft.commands.first else {
            return .failure(ConfigErrors(draft.errors.sorted { ($0.line ?? 0) < ($1.line ?? 0) }))
        }
        return .success(draft.definition(name: name, command: command.command))
    }

    /// What no single key decides: the command, triggers a fleet job cannot have, CatchUp= against
    /// Persistent=, and the accounts named.
    private mutating func checkAcrossKeys(section: UnitFile.Section?) {
        if let section {
            if commands.isEmpty, !commandValueFailed {
                error(section.line, "the job has no ExecStart=",
                      hint: "add the command to run, such as ExecStart=/usr/bin/backup --all")
            }
            if commands.count > 1 {
                error(commands[1].line, "ExecStart= is given \(commands.count) times; jobd runs one command per job",
                      hint: "run a script, or an empty 'ExecStart=' first to reset the list")
            }
            // A job without a trigger is valid: it runs when another job's OnFailure= or OnSuccess=
            // starts it, or on `jobctl run`.
        } else {
            error(1, "no [Job] section", hint: "a job file starts with [Job], then ExecStart= and a trigger such as OnUnitActiveSec=")
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
        checkAccounts()
    }

    /// As systemd, but at load rather than at the first start: a job whose account does not exist
    /// is a configuration error, never a run that fails every time.
    private mutating func checkAccounts() {
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
    }

    private func definition(name: String, command: ExecCommand) -> JobDefinition {
        var fields = JobDefinition.Fields(
            name: name, path: path, description: description,
            triggers: triggers.count == 1 ? triggers[0].list ?? [triggers[0].trigger] : triggers.map(\.trigger),
            command: command, environment: environment)
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
        return definition
    }
}
