import JobdCalendar
package import Glibc
package import JobdUnitFile

/// One job, as its file defines it. Two definitions are equal when every setting is: a reload
/// keeps the owner (and so the schedule) of a job whose definition did not change.
package struct JobDefinition: Sendable, Hashable {
    /// The settings, behind one reference: a definition is copied at every reload (the cache of
    /// job files, the scheduler's generations, run admission), and a copy is then one retain
    /// instead of one per string and array (issue 19). Copied on the first write to a shared one.
    private var storage: Storage

    /// Every setting, each documented at its property below.
    struct Fields: Hashable {
        var name: String
        var path: String
        var description: String?
        var triggers: [Trigger]
        var environment: [EnvironmentVariable]
        var accuracy: TimeSpan = TimeSpan(microseconds: 1_000)
        /// `nil` while every uncommon setting has its default.
        private var uncommonBox: UncommonBox?
        // The command's flag and the one-byte settings after it share its last word.
        var command: ExecCommand
        var persistent = false
        var overlap: OverlapPolicy = .skip
        var killMode: KillMode = .controlGroup
        var runOn: RunOn = .everyNode

        init(
            name: String, path: String, description: String?, triggers: [Trigger], command: ExecCommand,
            environment: [EnvironmentVariable]
        ) {
            self.name = name
            self.path = path
            self.description = description
            self.triggers = triggers
            self.command = command
            self.environment = environment
        }

        /// The settings most jobs leave at their defaults: boxed, and only when one is set, so that
        /// a job of defaults does not carry them (issue 19: 136 bytes a job, and the settings of 100,000 jobs
        /// are then 128 bytes each, with the object's header).
        var hasOnlyCommonSettings: Bool { uncommonBox == nil }

        var uncommon: Uncommon {
            get { if case .value(let uncommon) = uncommonBox { uncommon } else { Uncommon.defaults } }
            set { uncommonBox = newValue == Uncommon.defaults ? nil : .value(newValue) }
        }
    }

    struct Uncommon: Hashable {
        /// Every setting at its default: made once, not at each read of a job of defaults (a run
        /// reads a dozen of its settings, and each default built its dictionaries anew).
        static let defaults = Uncommon()

        var randomizedDelay: TimeSpan = .zero
        var workingDirectory: WorkingDirectory?
        var user: String?
        var group: String?
        var environmentFiles: [EnvironmentFile] = []
        var runtimeMax: TimeSpan = .infinity
        var stopTimeout: TimeSpan = JobDefinition.defaultStopTimeout
        var restart = RestartPolicy()
        var onFailure: [String] = []
        var onSuccess: [String] = []
        /// The line of each name in `OnFailure=` and `OnSuccess=`, for an error about it.
        var referenceLines = ReferenceLines()
        var mailTo: [String] = []
        var mailOn = MailPolicy.output
        var expectSuccessWithin: TimeSpan?
        var tasksMax: TasksMax?
        /// The line of `TasksMax=`, for an error about it (jobd without a pids controller).
        var tasksMaxLine = LineNumber()
        var processAttributes = ProcessAttributes()
        var resourceControl = ResourceControl()
        var successExitStatus = SuccessExitStatus()
        var supplementaryGroups: [String] = []
        var sandbox = Sandbox()
        var sandboxDeviceLine = LineNumber()
        var conditions: [UnitCondition] = []
        /// The user whose own job this is (``UserJobStore``); `nil` for a system job.
        var owningUser: String?
        /// The uid of that user, recorded at load: whose the job is, for every decision about it.
        var owningUID: uid_t?
        /// A user's own run's tasks where no cgroup limits them (``JobDefinition/userTasksLimit``).
        var userTasksLimit: UInt64?
        var syslogIdentifier: String?
        var timing = TimerOptions()
        /// The exposure the read computed, for `jobctl list` (``SecurityExposure``).
        var exposure = ExposureCache()
        /// The cron line the job was read from, in cron mode (``CronOrigin``).
        var cron: CronOrigin?
    }

    /// A definition's exposure in tenths, computed once by the read: `nil` once a setting it
    /// depends on is set since. Derived, so two definitions never differ by it.
    struct ExposureCache: Hashable {
        var tenths: Int?
        static func == (lhs: ExposureCache, rhs: ExposureCache) -> Bool { true }
        func hash(into hasher: inout Hasher) {}
    }

    /// A line of the file, for error messages only: two definitions that differ only here are the
    /// same job (as ``ReferenceLines``).
    struct LineNumber: Hashable {
        var line: Int?
        init(_ line: Int? = nil) { self.line = line }
        static func == (lhs: LineNumber, rhs: LineNumber) -> Bool { true }
        func hash(into hasher: inout Hasher) {}
    }

    /// Where each job a definition names stood in its file: for error messages only, so two
    /// definitions that differ only here are the same job (a line added above `OnFailure=` does
    /// not make a reload replace the job's owner).
    struct ReferenceLines: Hashable {
        var lines: [JobReference: Int] = [:]
        static func == (lhs: ReferenceLines, rhs: ReferenceLines) -> Bool { true }
        func hash(into hasher: inout Hasher) {}
    }

    private indirect enum UncommonBox: Hashable {
        case value(Uncommon)
    }

    private final class Storage: @unchecked Sendable {
        // Written only while uniquely referenced (`fields`'s `_modify`), so never while shared.
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    /// Whether every uncommon setting has its default (then the exposure is an unconfined job's).
    var hasOnlyCommonSettings: Bool { storage.fields.hasOnlyCommonSettings }

    /// The exposure the read computed, if no setting it depends on changed since.
    var cachedExposureTenths: Int? {
        get { storage.fields.uncommon.exposure.tenths }
        set { if !hasOnlyCommonSettings { fields.uncommon.exposure.tenths = newValue } }
    }

    /// The settings, for writing: copied first when another definition shares them.
    private var fields: Fields {
        get { storage.fields }
        _modify {
            if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
            yield &storage.fields
        }
    }

    /// The file name without `.job`.
    package var name: String {
        get { storage.fields.name }
        set { fields.name = newValue }
    }
    /// The file it was read from.
    package var path: String {
        get { storage.fields.path }
        set { fields.path = newValue }
    }
    package var description: String? {
        get { storage.fields.description }
        set { fields.description = newValue }
    }
    package var triggers: [Trigger] {
        get { storage.fields.triggers }
        set { fields.triggers = newValue }
    }
    package var command: ExecCommand {
        get { storage.fields.command }
        set { fields.command = newValue }
    }
    package var workingDirectory: WorkingDirectory? {
        get { storage.fields.uncommon.workingDirectory }
        set { fields.uncommon.workingDirectory = newValue }
    }
    /// `Environment=` assignments in order; a later one for the same name wins.
    package var environment: [EnvironmentVariable] {
        get { storage.fields.environment }
        set { fields.environment = newValue }
    }
    /// `FixedRandomDelay=`, `RandomizedOffsetSec=`, `DeferReactivation=`, `OnClockChange=`, `OnTimezoneChange=`.
    package var timing: TimerOptions {
        get { storage.fields.uncommon.timing }
        set { fields.uncommon.timing = newValue }
    }

    /// `RandomizedDelaySec=`: each elapse is delayed by a random span up to this, drawn anew each time.
    package var randomizedDelay: TimeSpan {
        get { storage.fields.uncommon.randomizedDelay }
        set { fields.uncommon.randomizedDelay = newValue }
    }
    /// `AccuracySec=`: how late an elapse may fire so that timers coalesce; 1ms by default
    /// (systemd's default is 1min: jobd is precise by default).
    package var accuracy: TimeSpan {
        get { storage.fields.accuracy }
        set { fields.accuracy = newValue }
    }
    /// `Persistent=`: a calendar trigger missed while jobd was down runs once when it starts.
    package var persistent: Bool {
        get { storage.fields.persistent }
        set { fields.persistent = newValue }
    }
    /// `User=`: the account a run switches to (a name or a numeric uid); `nil` runs as jobd's own.
    package var user: String? {
        get { storage.fields.uncommon.user }
        set {
            fields.uncommon.user = newValue
            fields.uncommon.exposure = ExposureCache()
        }
    }
    /// `Group=`: the group a run switches to; by default the user's primary group.
    package var group: String? {
        get { storage.fields.uncommon.group }
        set { fields.uncommon.group = newValue }
    }
    /// `EnvironmentFile=`: files of `NAME=value` lines read at each run's start, after `Environment=`.
    package var environmentFiles: [EnvironmentFile] {
        get { storage.fields.uncommon.environmentFiles }
        set { fields.uncommon.environmentFiles = newValue }
    }
    /// `RuntimeMaxSec=`: a run still going after this is stopped (`run.timeout`). Infinite by default.
    package var runtimeMax: TimeSpan {
        get { storage.fields.uncommon.runtimeMax }
        set { fields.uncommon.runtimeMax = newValue }
    }
    /// `TimeoutStopSec=`: how long a run that jobd stops gets between SIGTERM and SIGKILL.
    package var stopTimeout: TimeSpan {
        get { storage.fields.uncommon.stopTimeout }
        set { fields.uncommon.stopTimeout = newValue }
    }
    /// `Overlap=`: what a trigger does while a run of the job is still going.
    package var overlap: OverlapPolicy {
        get { storage.fields.overlap }
        set { fields.overlap = newValue }
    }
    /// `Restart=` and its companions: whether and when a failed run is tried again.
    package var restart: RestartPolicy {
        get { storage.fields.uncommon.restart }
        set { fields.uncommon.restart = newValue }
    }
    /// `KillMode=`: whether what a run leaves behind when its main process ends is stopped.
    package var killMode: KillMode {
        get { storage.fields.killMode }
        set { fields.killMode = newValue }
    }
    /// `OnFailure=`: jobs started when a run fails and no retry is left.
    package var onFailure: [String] {
        get { storage.fields.uncommon.onFailure }
        set { fields.uncommon.onFailure = newValue }
    }
    /// `OnSuccess=`: jobs started when a run succeeds.
    package var onSuccess: [String] {
        get { storage.fields.uncommon.onSuccess }
        set { fields.uncommon.onSuccess = newValue }
    }
    /// Every job this one names (`OnFailure=`, then `OnSuccess=`), with the line it is named on.
    var references: [(reference: JobReference, line: Int?)] {
        let uncommon = storage.fields.uncommon
        return (uncommon.onFailure.map { JobReference(key: .onFailure, job: $0) } + uncommon.onSuccess.map { JobReference(key: .onSuccess, job: $0) })
            .map { ($0, uncommon.referenceLines.lines[$0]) }
    }
    /// `MailTo=`: who gets a run's output by mail, as cron's `MAILTO=`; empty: nobody.
    package var mailTo: [String] {
        get { storage.fields.uncommon.mailTo }
        set { fields.uncommon.mailTo = newValue }
    }
    /// `MailOn=`: whether output is mailed whenever there is any (`output`, cron's way) or only
    /// when the run failed (`failure`).
    package var mailOn: MailPolicy {
        get { storage.fields.uncommon.mailOn }
        set { fields.uncommon.mailOn = newValue }
    }
    /// `ExpectSuccessWithinSec=`: a dead man's switch. When no run has succeeded for this long
    /// (from the last success, else from when the job entered the configuration), jobd raises the
    /// job's alarm (`job.overdue`); `nil`: no expectation (the default).
    package var expectSuccessWithin: TimeSpan? {
        get { storage.fields.uncommon.expectSuccessWithin }
        set { fields.uncommon.expectSuccessWithin = newValue }
    }
    /// `TasksMax=`: how many tasks the run's cgroup may hold (its `pids.max`); `nil`: jobd.conf's
    /// `DefaultTasksMax=`.
    package var tasksMax: TasksMax? {
        get { storage.fields.uncommon.tasksMax }
        set { fields.uncommon.tasksMax = newValue }
    }
    /// `ProtectSystem=`, `PrivateTmp=`, `SystemCallFilter=`… (``Sandbox``).
    package var sandbox: Sandbox {
        get { storage.fields.uncommon.sandbox }
        set {
            fields.uncommon.sandbox = newValue
            fields.uncommon.exposure = ExposureCache()
        }
    }
    /// The line of the `PrivateDevices=` or `ProtectClock=` that asks for a device policy, for an
    /// error about it (jobd without a cgroup v2 for its runs).
    package var sandboxDeviceLine: Int? { storage.fields.uncommon.sandboxDeviceLine.line }
    /// `Condition…=` and `Assert…=`, checked at each start (``UnitCondition``).
    package var conditions: [UnitCondition] {
        get { storage.fields.uncommon.conditions }
        set { fields.uncommon.conditions = newValue }
    }
    /// `Nice=`, `IOSchedulingClass=`, `IOSchedulingPriority=`, `UMask=` and the `Limit…=` keys.
    package var processAttributes: ProcessAttributes {
        get { storage.fields.uncommon.processAttributes }
        set {
            fields.uncommon.processAttributes = newValue
            fields.uncommon.exposure = ExposureCache()
        }
    }
    /// `MemoryMax=`, `MemoryHigh=`, `MemorySwapMax=`, `CPUWeight=`, `CPUQuota=` and `IOWeight=`: what
    /// the run's cgroup is limited to.
    package var resourceControl: ResourceControl {
        get { storage.fields.uncommon.resourceControl }
        set { fields.uncommon.resourceControl = newValue }
    }
    /// `SyslogIdentifier=`: the `SYSLOG_IDENTIFIER=` of the run's output lines in the journal
    /// (what `journalctl -t` selects); `nil`: the job's name.
    package var syslogIdentifier: String? {
        get { storage.fields.uncommon.syslogIdentifier }
        set { fields.uncommon.syslogIdentifier = newValue }
    }
    /// `SupplementaryGroups=`: groups a run has besides its user's (or jobd's own).
    package var supplementaryGroups: [String] {
        get { storage.fields.uncommon.supplementaryGroups }
        set {
            fields.uncommon.supplementaryGroups = newValue
            fields.uncommon.exposure = ExposureCache()
        }
    }
    /// `SuccessExitStatus=`: what else counts as a successful run, besides exit status 0.
    package var successExitStatus: SuccessExitStatus {
        get { storage.fields.uncommon.successExitStatus }
        set { fields.uncommon.successExitStatus = newValue }
    }
    /// The line `TasksMax=` is on, if the file has it.
    package var tasksMaxLine: Int? { storage.fields.uncommon.tasksMaxLine.line }
    /// The user whose own job this is (`jobctl --user edit`, ``UserJobStore``), whose runs count
    /// against `UserRunsMax=`; `nil` for a system job.
    package var owningUser: String? {
        get { storage.fields.uncommon.owningUser }
        set { fields.uncommon.owningUser = newValue }
    }
    /// The uid of the user whose own job this is, recorded when the file was read as that
    /// account's (``UserJobStore``): who may act on the job is decided by it, never by the name;
    /// `nil` for a system job.
    package var owningUID: uid_t? {
        get { storage.fields.uncommon.owningUID }
        set { fields.uncommon.owningUID = newValue }
    }
    /// How many tasks a run of a user's own job may have where no cgroup's `pids.max` limits it
    /// (no delegated cgroup, no pids controller): its `TasksMax=`, else `DefaultTasksMax=` of
    /// jobd.conf, given as `RLIMIT_NPROC` (which counts every task of the user's uid); `nil` for
    /// a system job, or where both are `infinity`.
    package var userTasksLimit: UInt64? {
        get { storage.fields.uncommon.userTasksLimit }
        set { fields.uncommon.userTasksLimit = newValue }
    }
    /// The cron line the job was read from (``CronSettings``); `nil` for a job file's job. Its
    /// runs' mail is cron's (``CronOrigin``).
    package var cron: CronOrigin? {
        get { storage.fields.uncommon.cron }
        set { fields.uncommon.cron = newValue }
    }
    /// `RunOn=`: whether every node of a fleet runs the job (the default) or one node per elapse.
    package var runOn: RunOn {
        get { storage.fields.runOn }
        set { fields.runOn = newValue }
    }

    /// `TimeoutStopSec=`'s default: 10 s, jobd's grace for a run it stops.
    package static let defaultStopTimeout = TimeSpan.seconds(10)
    /// The shortest `OnUnitActiveSec=`: it counts from the last start, so a shorter span would
    /// start runs (or log skipped triggers) continuously. 100 ms is systemd's default `RestartSec=`.
    package static let minimumUnitActive = TimeSpan(microseconds: 100_000)
    /// The shortest `OnUnitInactiveSec=`: it counts from the end of the last run, which paces it,
    /// so only 0 (a restart the instant a run ends, however fast it fails) is refused below jobd's
    /// default accuracy of 1 ms.
    package static let minimumUnitInactive = TimeSpan(microseconds: 1_000)

    package init(
        name: String, path: String, description: String? = nil, triggers: [Trigger],
        command: ExecCommand, workingDirectory: WorkingDirectory? = nil,
        environment: [EnvironmentVariable] = []
    ) {
        storage = Storage(Fields(
            name: name, path: path, description: description, triggers: triggers, command: command,
            environment: environment))
        if let workingDirectory { self.workingDirectory = workingDirectory }
    }

    /// A definition of `fields`, as the job file reader makes it: all at once.
    init(_ fields: Fields) {
        storage = Storage(fields)
    }

    package static func == (a: JobDefinition, b: JobDefinition) -> Bool {
        a.storage === b.storage || a.storage.fields == b.storage.fields
    }

    package func hash(into hasher: inout Hasher) {
        storage.fields.hash(into: &hasher)
    }
}
