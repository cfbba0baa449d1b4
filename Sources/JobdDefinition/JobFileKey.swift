import CJobdExec
package import JobdUnitFile

/// Every key a job file takes, declared once: its name and section, whether it repeats, its reader
/// into the definition being built and what a user's own job may do with it. The job file's reader
/// (``JobFileReader``), the user policy (``UserJobPolicy``), the spelling hints and the manual's
/// tests all read this table; the switches below are exhaustive, so a new key without a reader or
/// a policy does not compile.
package enum JobFileKey: Hashable, Sendable {
    case job(JobKey)
    case resource(ResourceControl.Key)
    case condition(UnitCondition.Kind, isAssertion: Bool)

    /// How more than one line of the key combine.
    package enum Repetition: Sendable {
        /// A later line replaces an earlier one; an empty value is the default.
        case single
        /// Each line adds to a list; an empty value clears it.
        case list
    }

    /// The section every key is in.
    package static let section = JobKey.section

    /// Every key, in the order jobd.job(5) documents the job keys, then the resource keys and the
    /// conditions.
    package static let all: [JobFileKey] = JobKey.allCases.map { .job($0) } + ResourceControl.Key.allCases.map { .resource($0) }
        + UnitCondition.Kind.allCases.flatMap { [.condition($0, isAssertion: false), .condition($0, isAssertion: true)] }

    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The key spelt `name` exactly, as it is written before `=`.
    package init?(name: String) {
        guard let key = Self.byName[name] else { return nil }
        self = key
    }

    package var name: String {
        switch self {
        case .job(let key): key.rawValue
        case .resource(let key): key.rawValue
        case .condition(let kind, let isAssertion): (isAssertion ? "Assert" : "Condition") + kind.rawValue
        }
    }

    /// Reads the key's `value` on `line` into `draft`, or records what is wrong with it there.
    func read(_ value: String, line: Int, into draft: inout JobFileDraft) {
        switch self {
        case .job(let key): key.read(value, line: line, into: &draft)
        case .resource(let key): draft.readResource(key, value, line: line)
        case .condition(let kind, let isAssertion): draft.readCondition(kind, isAssertion: isAssertion, value, line: line)
        }
    }

    package var repetition: Repetition {
        switch self {
        case .job(let key): key.repetition
        case .resource: .single
        case .condition: .list
        }
    }

    /// The checks of `systemd-analyze security` (``SecurityExposure``) whose verdict the key can
    /// change, by id, or by a family's prefix ending in `~` (`CapabilityBoundingSet=~`): a key's
    /// exposure is decided where the key is declared, and JobFileKeyTests holds each declaration
    /// to what the checks do, and every check that names a key to that key's declaration.
    package var exposureChecks: [String] {
        switch self {
        case .job(let key): key.exposureChecks
        // Neither is a sandbox: systemd 252's checks read no resource control or condition.
        case .resource, .condition: []
        }
    }

    /// The fields of the exec plan (plan.h's `EXEC_TAG_*`) that a sandbox or process-attribute key
    /// is encoded in for jobd-cgexec; `[]` for every other key, which jobd applies itself, or
    /// whose value the runner puts in the plan at each start (account, directory, environment,
    /// command). JobFileKeyTests holds each declaration to what the encoder writes.
    package var planTags: [Int] {
        guard case .job(let key) = self else { return [] }
        return key.planTags
    }

    /// The sections of a systemd unit `jobctl import timer` reads keys from as they are.
    package enum UnitSection: Sendable {
        case timer, service
    }

    /// The section of a systemd timer or service whose key of this name means what jobd's does,
    /// so that `jobctl import timer` carries it over as it is (``TimerImporter``); `nil` for a key
    /// systemd has not, or one the importer reads in its own way (`ExecStart=`, `KillMode=`,
    /// `SyslogIdentifier=`, the conditions of `[Unit]`).
    package var importedFrom: UnitSection? {
        switch self {
        case .job(let key): key.importedFrom
        case .resource: .service
        case .condition: nil
        }
    }

    package var userPolicy: UserKeyPolicy {
        switch self {
        case .job(let key): key.userPolicy
        case .resource(.memoryMax), .resource(.memoryHigh), .resource(.memorySwapMax), .resource(.cpuQuota): .free
        case .resource(.cpuWeight), .resource(.ioWeight): .checked(.lowerWeight)
        // jobd checks them as root, before the run switches to the user.
        case .condition: .rootOnly
        }
    }
}

extension JobKey {
    /// What reads a key's value into the definition being built: one of ``JobFileDraft``'s
    /// readers, or the type that owns a part of the definition (``ProcessAttributes``,
    /// ``Sandbox``), whose keys are then these.
    enum Reader: Sendable, Hashable {
        case description, spanTrigger, calendarTrigger, span, flag, catchUp, expectSuccessWithin, command, workingDirectory
        case environment, environmentFile, account, supplementaryGroups, standardInput, syslogIdentifier, overlap, killMode
        case restart, restartCount, exitStatus, followers, mailTo, mailOn, runOn, tasksMax
        /// Read by ``ProcessAttributes``, as a value of this kind.
        case processAttribute(ProcessAttributes.Value)
        /// Read by ``Sandbox``, as a value of this kind: a new flag is a line here with its plan's
        /// field, its policy and its exposure, and nothing else in Swift.
        case sandbox(Sandbox.Value)
    }

    var reader: Reader {
        switch self {
        case .description: .description
        case .onStartupSec, .onUnitActiveSec, .onUnitInactiveSec: .spanTrigger
        case .onCalendar, .cron: .calendarTrigger
        case .randomizedDelaySec, .randomizedOffsetSec, .catchUpWindowSec, .accuracySec, .runtimeMaxSec, .timeoutStopSec, .timeoutStartSec,
             .restartSec, .restartMaxDelaySec:
            .span
        case .persistent, .fixedRandomDelay, .deferReactivation, .onClockChange, .onTimezoneChange: .flag
        case .catchUp: .catchUp
        case .expectSuccessWithinSec: .expectSuccessWithin
        case .execStart: .command
        case .workingDirectory: .workingDirectory
        case .environment: .environment
        case .environmentFile: .environmentFile
        case .user, .group: .account
        case .supplementaryGroups: .supplementaryGroups
        case .standardInput: .standardInput
        case .syslogIdentifier: .syslogIdentifier
        case .overlap: .overlap
        case .killMode: .killMode
        case .restart: .restart
        case .restartSteps, .restartLimit: .restartCount
        case .successExitStatus, .restartPreventExitStatus: .exitStatus
        case .onFailure, .onSuccess: .followers
        case .mailTo: .mailTo
        case .mailOn: .mailOn
        case .runOn: .runOn
        case .tasksMax: .tasksMax
        case .nice: .processAttribute(.nice)
        case .ioSchedulingClass: .processAttribute(.ioClass)
        case .ioSchedulingPriority: .processAttribute(.ioPriority)
        case .cpuSchedulingPolicy: .processAttribute(.cpuPolicy)
        case .cpuSchedulingPriority: .processAttribute(.cpuPriority)
        case .umask: .processAttribute(.umask)
        case .limitCpu: .processAttribute(.limit(.cpu))
        case .limitFsize: .processAttribute(.limit(.fsize))
        case .limitData: .processAttribute(.limit(.data))
        case .limitStack: .processAttribute(.limit(.stack))
        case .limitCore: .processAttribute(.limit(.core))
        case .limitRss: .processAttribute(.limit(.rss))
        case .limitNproc: .processAttribute(.limit(.nproc))
        case .limitNofile: .processAttribute(.limit(.nofile))
        case .limitMemlock: .processAttribute(.limit(.memlock))
        case .limitAS: .processAttribute(.limit(.as))
        case .limitLocks: .processAttribute(.limit(.locks))
        case .limitSigpending: .processAttribute(.limit(.sigpending))
        case .limitMsgqueue: .processAttribute(.limit(.msgqueue))
        case .limitNice: .processAttribute(.limit(.nice))
        case .limitRtprio: .processAttribute(.limit(.rtprio))
        case .limitRttime: .processAttribute(.limit(.rttime))
        case .oomScoreAdjust: .processAttribute(.number(planTag: EXEC_TAG_OOM_SCORE_ADJUST, range: -1000...1000))
        // Flags whose mounts, filters and capability drops jobd derives as systemd does (Sandbox+Trampoline).
        case .noNewPrivileges, .privateTmp, .privateDevices, .protectKernelTunables, .protectKernelModules, .protectKernelLogs,
             .protectControlGroups, .protectHostname, .protectClock:
            .sandbox(.flag(planTag: nil))
        case .privateNetwork: .sandbox(.flag(planTag: EXEC_TAG_PRIVATE_NETWORK))
        case .lockPersonality: .sandbox(.flag(planTag: EXEC_TAG_LOCK_PERSONALITY))
        case .restrictRealtime: .sandbox(.flag(planTag: EXEC_TAG_RESTRICT_REALTIME))
        case .memoryDenyWriteExecute: .sandbox(.flag(planTag: EXEC_TAG_MEMORY_DENY_WRITE_EXECUTE))
        case .restrictSUIDSGID: .sandbox(.flag(planTag: EXEC_TAG_RESTRICT_SUID_SGID))
        case .privateUsers: .sandbox(.onlyNo)
        case .protectSystem: .sandbox(.protectSystem)
        case .protectHome: .sandbox(.protectHome)
        case .restrictNamespaces: .sandbox(.namespaces)
        case .systemCallFilter: .sandbox(.systemCallFilter)
        case .systemCallErrorNumber: .sandbox(.errorNumber)
        case .readWritePaths: .sandbox(.paths(.readWrite))
        case .readOnlyPaths: .sandbox(.paths(.readOnly))
        case .inaccessiblePaths: .sandbox(.paths(.inaccessible))
        case .capabilityBoundingSet: .sandbox(.capabilities(.bounding))
        case .ambientCapabilities: .sandbox(.capabilities(.ambient))
        }
    }

    /// The names of the keys whose reader is one `isReader` takes.
    static func names(readBy isReader: (Reader) -> Bool) -> Set<String> {
        Set(allCases.filter { isReader($0.reader) }.map(\.rawValue))
    }

    fileprivate func read(_ value: String, line: Int, into draft: inout JobFileDraft) {
        switch reader {
        case .description: draft.description = value.isEmpty ? nil : value
        case .spanTrigger: draft.readSpanTrigger(self, value, line: line)
        case .calendarTrigger: draft.readCalendarTrigger(self, value, line: line)
        case .span: draft.readSpan(self, value, line: line)
        case .flag: draft.readFlag(self, value, line: line)
        case .catchUp: draft.readCatchUp(value, line: line)
        case .expectSuccessWithin: draft.readExpectSuccessWithin(value, line: line)
        case .command: draft.readCommand(value, line: line)
        case .workingDirectory: draft.readWorkingDirectory(value, line: line)
        case .environment: draft.readEnvironment(value, line: line)
        case .environmentFile: draft.readEnvironmentFile(value, line: line)
        case .account: draft.readAccount(self, value, line: line)
        case .supplementaryGroups: draft.readSupplementaryGroups(value, line: line)
        case .standardInput: draft.readStandardInput(value, line: line)
        case .syslogIdentifier: draft.readSyslogIdentifier(value, line: line)
        case .overlap: draft.readOverlap(value, line: line)
        case .killMode: draft.readKillMode(value, line: line)
        case .restart: draft.readRestart(value, line: line)
        case .restartCount: draft.readRestartCount(self, value, line: line)
        case .exitStatus: draft.readExitStatus(self, value, line: line)
        case .followers: draft.readFollowers(self, value, line: line)
        case .mailTo: draft.readMailTo(value, line: line)
        case .mailOn: draft.readMailOn(value, line: line)
        case .runOn: draft.readRunOn(value, line: line)
        case .tasksMax: draft.readTasksMax(value, line: line)
        case .processAttribute(let kind): draft.readProcessAttribute(self, kind, value, line: line)
        case .sandbox(let kind): draft.readSandbox(self, kind, value, line: line)
        }
    }

    fileprivate var repetition: JobFileKey.Repetition {
        switch self {
        case .onStartupSec, .onUnitActiveSec, .onUnitInactiveSec, .onCalendar, .cron, .execStart, .environment, .environmentFile,
             .supplementaryGroups, .onFailure, .onSuccess, .mailTo, .successExitStatus, .restartPreventExitStatus, .readWritePaths,
             .readOnlyPaths, .inaccessiblePaths:
            .list
        default: .single
        }
    }

    /// A key that is a flag jobd-cgexec takes as the job file gives it, with nothing of jobd's
    /// between: the exec plan's field (plan.h's `EXEC_TAG_*`) it sets when yes, as ``reader``
    /// declares it. ``Sandbox/flags`` holds it, the encoder writes its tag, and its
    /// `systemd-analyze security` check, where systemd has one by the key's name, reads it.
    package var planFlag: Int? {
        guard case .sandbox(.flag(let tag)) = reader else { return nil }
        return tag
    }

    /// A key that is a number jobd-cgexec takes as the job file gives it: the exec plan's field it
    /// is written to (an i64) and the values the key takes, as ``reader`` declares them.
    /// ``ProcessAttributes/numbers`` holds it, and the encoder writes it.
    package var planNumber: (tag: Int, range: ClosedRange<Int64>)? {
        guard case .processAttribute(.number(let tag, let range)) = reader else { return nil }
        return (tag, range)
    }

    fileprivate var planTags: [Int] {
        if let planFlag { return [planFlag] }
        if let planNumber { return [planNumber.tag] }
        if case .processAttribute(.limit) = reader { return [EXEC_TAG_RLIMIT] }
        return switch self {
        case .nice: [EXEC_TAG_NICE]
        case .ioSchedulingClass, .ioSchedulingPriority: [EXEC_TAG_IOPRIO]
        case .cpuSchedulingPolicy, .cpuSchedulingPriority: [EXEC_TAG_SCHED]
        case .umask: [EXEC_TAG_UMASK]
        case .noNewPrivileges: [EXEC_TAG_NO_NEW_PRIVILEGES]
        case .privateTmp: [EXEC_TAG_PRIVATE_TMP, EXEC_TAG_MOUNT]
        // As systemd's, these imply capability drops and system call filters besides their own field.
        case .privateDevices: [EXEC_TAG_PRIVATE_DEV, EXEC_TAG_DEVICE_POLICY, EXEC_TAG_BOUNDING, EXEC_TAG_SECCOMP]
        case .protectSystem, .protectHome, .protectControlGroups, .readWritePaths, .readOnlyPaths, .inaccessiblePaths: [EXEC_TAG_MOUNT]
        case .protectKernelTunables: [EXEC_TAG_MOUNT, EXEC_TAG_SECCOMP]
        case .protectKernelModules, .protectKernelLogs: [EXEC_TAG_MOUNT, EXEC_TAG_BOUNDING, EXEC_TAG_SECCOMP]
        case .protectHostname: [EXEC_TAG_NEW_UTS, EXEC_TAG_SECCOMP]
        case .protectClock: [EXEC_TAG_BOUNDING, EXEC_TAG_SECCOMP, EXEC_TAG_DEVICE_POLICY]
        case .restrictNamespaces: [EXEC_TAG_RESTRICT_NAMESPACES]
        case .systemCallFilter, .systemCallErrorNumber: [EXEC_TAG_SECCOMP]
        case .capabilityBoundingSet: [EXEC_TAG_BOUNDING]
        case .ambientCapabilities: [EXEC_TAG_AMBIENT]
        // PrivateUsers= is only ever no; every other key is applied by jobd or put in the plan by the runner.
        default: []
        }
    }

    /// By the reader, which reads a kind of value as systemd does or not; key by key for the spans.
    fileprivate var importedFrom: JobFileKey.UnitSection? {
        switch reader {
        case .spanTrigger, .flag: .timer
        case .calendarTrigger: self == .onCalendar ? .timer : nil
        case .span:
            switch self {
            case .randomizedDelaySec, .accuracySec, .randomizedOffsetSec: .timer
            case .runtimeMaxSec, .timeoutStopSec, .timeoutStartSec: .service
            default: nil
            }
        case .workingDirectory, .environment, .environmentFile, .account, .supplementaryGroups, .exitStatus, .tasksMax, .processAttribute,
             .sandbox:
            .service
        // jobd's own keys, and those the importer reads in its own way.
        case .description, .catchUp, .expectSuccessWithin, .command, .standardInput, .syslogIdentifier, .overlap, .killMode, .restart,
             .restartCount, .followers, .mailTo, .mailOn, .runOn:
            nil
        }
    }

    fileprivate var exposureChecks: [String] {
        let (mounts, cap) = ("PrivateMounts=", "CapabilityBoundingSet=~CAP_")
        switch self {
        // Not the user alone: a root run's supplementary groups and SysV IPC are not assessed.
        case .user: return ["User=/DynamicUser=", "SupplementaryGroups=", "RemoveIPC="]
        case .supplementaryGroups: return ["SupplementaryGroups="]
        case .umask: return ["UMask="]
        // systemd implies a closed device policy for PrivateDevices=, and char-rtc with ProtectClock=;
        // these keys drop capabilities too, as systemd's do.
        case .privateDevices: return ["PrivateDevices=", mounts, "DeviceAllow=", cap + "SYS_RAWIO", cap + "MKNOD"]
        case .protectClock: return ["ProtectClock=", "DeviceAllow=", cap + "SYS_TIME", cap + "WAKE_ALARM"]
        case .protectKernelLogs: return ["ProtectKernelLogs=", mounts, cap + "SYSLOG"]
        case .protectKernelModules: return ["ProtectKernelModules=", mounts, cap + "SYS_MODULE"]
        case .privateNetwork, .protectHostname, .lockPersonality, .memoryDenyWriteExecute, .noNewPrivileges, .restrictRealtime,
             .restrictSUIDSGID, .ambientCapabilities:
            return [rawValue + "="]
        // Each of these gives the run a mount namespace of its own (``Sandbox/needsMountNamespace``).
        case .privateTmp, .protectSystem, .protectHome, .protectKernelTunables, .protectControlGroups:
            return [rawValue + "=", mounts]
        case .readWritePaths, .readOnlyPaths, .inaccessiblePaths: return [mounts]
        case .restrictNamespaces, .systemCallFilter, .capabilityBoundingSet: return [rawValue + "=~"]
        // PrivateUsers=yes is refused, so its check reads no key; the error number is not assessed.
        case .privateUsers, .systemCallErrorNumber: return []
        case .description, .onStartupSec, .onUnitActiveSec, .onUnitInactiveSec, .onCalendar, .cron, .randomizedDelaySec, .accuracySec,
             .persistent, .fixedRandomDelay, .randomizedOffsetSec, .deferReactivation, .onClockChange, .onTimezoneChange, .catchUp,
             .catchUpWindowSec, .execStart, .workingDirectory, .environment, .environmentFile, .group, .runtimeMaxSec, .timeoutStopSec,
             .overlap, .restart, .restartSec, .restartSteps, .restartMaxDelaySec, .restartLimit, .onFailure, .onSuccess, .killMode, .runOn,
             .mailTo, .mailOn, .expectSuccessWithinSec, .tasksMax, .successExitStatus, .restartPreventExitStatus, .timeoutStartSec,
             .standardInput, .syslogIdentifier, .nice, .ioSchedulingClass, .ioSchedulingPriority, .cpuSchedulingPolicy,
             .cpuSchedulingPriority, .limitCpu, .limitFsize, .limitData, .limitStack, .limitCore, .limitRss, .limitNproc, .limitNofile,
             .limitMemlock, .limitAS, .limitLocks, .limitSigpending, .limitMsgqueue, .limitNice, .limitRtprio, .limitRttime, .oomScoreAdjust:
            return []
        }
    }

    fileprivate var userPolicy: UserKeyPolicy {
        switch self {
        case .description, .onStartupSec, .onUnitActiveSec, .onUnitInactiveSec, .onCalendar, .cron, .randomizedDelaySec, .accuracySec,
             .persistent, .fixedRandomDelay, .randomizedOffsetSec, .deferReactivation, .onClockChange, .onTimezoneChange, .catchUp,
             .catchUpWindowSec, .runtimeMaxSec, .timeoutStartSec, .overlap, .restart, .restartSec, .restartSteps, .restartMaxDelaySec,
             .restartLimit, .killMode, .mailTo, .mailOn, .expectSuccessWithinSec, .successExitStatus, .restartPreventExitStatus,
             .standardInput, .umask:
            .free
        // Entered and read as the user, by the trampoline.
        case .execStart, .workingDirectory, .environment, .environmentFile: .free
        case .user: .checked(.owner)
        case .noNewPrivileges: .checked(.noNewPrivileges)
        case .group, .supplementaryGroups: .checked(.memberGroups)
        case .onFailure, .onSuccess: .checked(.ownJobs)
        case .nice, .ioSchedulingClass, .ioSchedulingPriority, .cpuSchedulingPolicy: .checked(.lowerScheduling)
        case .tasksMax: .bounded(.tasks)
        case .timeoutStopSec: .bounded(.stopTimeout)
        case .privateTmp, .privateDevices, .privateUsers, .protectSystem, .protectHome, .protectKernelTunables, .protectKernelModules,
             .protectKernelLogs, .protectControlGroups, .protectHostname, .protectClock, .lockPersonality, .restrictRealtime,
             .restrictNamespaces, .memoryDenyWriteExecute, .restrictSUIDSGID, .systemCallFilter, .systemCallErrorNumber, .readOnlyPaths,
             .inaccessiblePaths, .capabilityBoundingSet:
            .sandbox
        // jobd writes a run's lines to the journal as root: a user's must not pass for another program's.
        case .syslogIdentifier: .rootOnly
        case .runOn, .cpuSchedulingPriority, .privateNetwork, .readWritePaths, .ambientCapabilities: .rootOnly
        // jobd-cgexec sets it as root: a user's job could make itself the last the OOM killer picks.
        case .oomScoreAdjust: .rootOnly
        case .limitCpu, .limitFsize, .limitData, .limitStack, .limitCore, .limitRss, .limitNproc, .limitNofile, .limitMemlock, .limitAS,
             .limitLocks, .limitSigpending, .limitMsgqueue, .limitNice, .limitRtprio, .limitRttime:
            .rootOnly
        }
    }
}
