/// Which keys of a job file a change touched, as `jobctl reload --dry-run` names them.
extension JobDefinition {
    /// A key (or a group of keys read into one value), and whether two definitions differ in it.
    private typealias Comparison = (key: String, differs: @Sendable (JobDefinition, JobDefinition) -> Bool)

    /// The triggers of one key, in the order the file has them.
    private static func triggers(_ key: JobKey) -> Comparison {
        (key.rawValue, { old, new in old.triggers.filter { $0.key == key } != new.triggers.filter { $0.key == key } })
    }

    /// One entry per key, in the order jobd.job(5) lists them. The keys read into one value (the
    /// sandbox, the resource controls, the process attributes, the conditions) are named as a group:
    /// the definition keeps no record of which of its keys wrote which part.
    private static let comparisons: [Comparison] = [
        (JobKey.description.rawValue, { $0.description != $1.description }),
        triggers(.onStartupSec), triggers(.onUnitActiveSec), triggers(.onUnitInactiveSec), triggers(.onCalendar), triggers(.cron),
        (JobKey.randomizedDelaySec.rawValue, { $0.randomizedDelay != $1.randomizedDelay }),
        (JobKey.accuracySec.rawValue, { $0.accuracy != $1.accuracy }),
        (JobKey.persistent.rawValue, { $0.persistent != $1.persistent }),
        (JobKey.execStart.rawValue, { $0.command != $1.command }),
        (JobKey.workingDirectory.rawValue, { $0.workingDirectory != $1.workingDirectory }),
        (JobKey.environment.rawValue, { $0.environment != $1.environment }),
        (JobKey.environmentFile.rawValue, { $0.environmentFiles != $1.environmentFiles }),
        (JobKey.user.rawValue, { $0.user != $1.user }),
        (JobKey.group.rawValue, { $0.group != $1.group }),
        (JobKey.supplementaryGroups.rawValue, { $0.supplementaryGroups != $1.supplementaryGroups }),
        (JobKey.runtimeMaxSec.rawValue, { $0.runtimeMax != $1.runtimeMax }),
        (JobKey.timeoutStopSec.rawValue, { $0.stopTimeout != $1.stopTimeout }),
        (JobKey.overlap.rawValue, { $0.overlap != $1.overlap }),
        (JobKey.restart.rawValue, { $0.restart.condition != $1.restart.condition }),
        (JobKey.restartSec.rawValue, { $0.restart.delay != $1.restart.delay }),
        (JobKey.restartSteps.rawValue, { $0.restart.steps != $1.restart.steps }),
        (JobKey.restartMaxDelaySec.rawValue, { $0.restart.maxDelay != $1.restart.maxDelay }),
        (JobKey.restartLimit.rawValue, { $0.restart.limit != $1.restart.limit }),
        (JobKey.restartPreventExitStatus.rawValue, { $0.restart.preventExitStatus != $1.restart.preventExitStatus }),
        (JobKey.onFailure.rawValue, { $0.onFailure != $1.onFailure }),
        (JobKey.onSuccess.rawValue, { $0.onSuccess != $1.onSuccess }),
        (JobKey.killMode.rawValue, { $0.killMode != $1.killMode }),
        (JobKey.runOn.rawValue, { $0.runOn != $1.runOn }),
        (JobKey.mailTo.rawValue, { $0.mailTo != $1.mailTo }),
        (JobKey.mailOn.rawValue, { $0.mailOn != $1.mailOn }),
        (JobKey.tasksMax.rawValue, { $0.tasksMax != $1.tasksMax }),
        (JobKey.successExitStatus.rawValue, { $0.successExitStatus != $1.successExitStatus }),
        (JobKey.syslogIdentifier.rawValue, { $0.syslogIdentifier != $1.syslogIdentifier }),
        ("Condition*/Assert*", { $0.conditions != $1.conditions }),
        ("process attributes (Nice, scheduling, UMask, Limit*)", { $0.processAttributes != $1.processAttributes }),
        ("resource control", { $0.resourceControl != $1.resourceControl }),
        ("sandboxing", { $0.sandbox != $1.sandbox }),
        ("file", { $0.path != $1.path || $0.owningUser != $1.owningUser || $0.owningUID != $1.owningUID }),
    ]

    /// The keys in which `self` differs from `old`, in jobd.job(5)'s order; `["other"]` for two
    /// definitions that differ in what no key names, so that a change is never shown as none.
    package func changedKeys(from old: JobDefinition) -> [String] {
        guard self != old else { return [] }
        let keys = Self.comparisons.filter { $0.differs(self, old) }.map(\.key)
        return keys.isEmpty ? ["other"] : keys
    }
}
