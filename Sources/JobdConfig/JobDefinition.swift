import JobdCalendar

/// One job, as its file defines it. Two definitions are equal when every setting is: a reload
/// keeps the owner (and so the schedule) of a job whose definition did not change.
public struct JobDefinition: Sendable, Hashable {
    /// The file name without `.job`.
    public var name: String
    /// The file it was read from.
    public var path: String
    public var description: String?
    public var triggers: [Trigger]
    public var command: ExecCommand
    public var workingDirectory: WorkingDirectory?
    /// `Environment=` assignments in order; a later one for the same name wins.
    public var environment: [EnvironmentVariable]
    /// `RandomizedDelaySec=`: each elapse is delayed by a random span up to this, drawn anew each time.
    public var randomizedDelay: TimeSpan = .zero
    /// `AccuracySec=`: how late an elapse may fire so that timers coalesce; 1ms by default
    /// (systemd's default is 1min: jobd is precise by default).
    public var accuracy: TimeSpan = TimeSpan(microseconds: 1_000)
    /// `Persistent=`: a calendar trigger missed while jobd was down runs once when it starts.
    public var persistent = false
    /// `User=`: the account a run switches to (a name or a numeric uid); `nil` runs as jobd's own.
    public var user: String?
    /// `Group=`: the group a run switches to; by default the user's primary group.
    public var group: String?
    /// `EnvironmentFile=`: files of `NAME=value` lines read at each run's start, after `Environment=`.
    public var environmentFiles: [EnvironmentFile] = []
    /// `RuntimeMaxSec=`: a run still going after this is stopped (`run.timeout`). Infinite by default.
    public var runtimeMax: TimeSpan = .infinity
    /// `TimeoutStopSec=`: how long a run that jobd stops gets between SIGTERM and SIGKILL.
    public var stopTimeout: TimeSpan = JobDefinition.defaultStopTimeout
    /// `Overlap=`: what a trigger does while a run of the job is still going.
    public var overlap: OverlapPolicy = .skip
    /// `Restart=` and its companions: whether and when a failed run is tried again.
    public var restart = RestartPolicy()
    /// `OnFailure=`: jobs started when a run fails and no retry is left.
    public var onFailure: [String] = []
    /// `OnSuccess=`: jobs started when a run succeeds.
    public var onSuccess: [String] = []
    /// `RunOn=`: whether every node of a fleet runs the job (the default) or one node per elapse.
    public var runOn: RunOn = .everyNode

    /// `TimeoutStopSec=`'s default: 10 s, jobd's grace for a run it stops.
    public static let defaultStopTimeout = TimeSpan.seconds(10)

    public init(
        name: String, path: String, description: String? = nil, triggers: [Trigger],
        command: ExecCommand, workingDirectory: WorkingDirectory? = nil,
        environment: [EnvironmentVariable] = []
    ) {
        self.name = name
        self.path = path
        self.description = description
        self.triggers = triggers
        self.command = command
        self.workingDirectory = workingDirectory
        self.environment = environment
    }
}

/// What makes a job fall due.
public enum Trigger: Sendable, Hashable, CustomStringConvertible {
    /// `OnStartupSec=`: once, this long after jobd started.
    case startup(TimeSpan)
    /// `OnUnitActiveSec=`: this long after the job last started.
    case unitActive(TimeSpan)
    /// `OnUnitInactiveSec=`: this long after the job last finished.
    case unitInactive(TimeSpan)
    /// `OnCalendar=`: at the times of a systemd calendar event.
    case calendar(CalendarSpec)
    /// `Cron=`: at the times of a five-field cron line, as Debian's cron reads it, or `@reboot`.
    case cron(CronSpec)

    public var description: String {
        switch self {
        case .startup(let span): "OnStartupSec=\(span)"
        case .unitActive(let span): "OnUnitActiveSec=\(span)"
        case .unitInactive(let span): "OnUnitInactiveSec=\(span)"
        case .calendar(let spec): "OnCalendar=\(spec.normalized)"
        case .cron(let spec): "Cron=\(spec.normalized)"
        }
    }

    /// Whether the trigger follows the wall clock (and so moves when the clock is set).
    public var isCalendar: Bool {
        switch self {
        case .calendar, .cron: true
        default: false
        }
    }
}

/// `RunOn=`: where a job runs when several jobd nodes share a `[Fleet]` database.
public enum RunOn: String, Sendable, Hashable, CaseIterable {
    /// Every node runs each elapse, as a single machine does (the default).
    case everyNode = "every-node"
    /// One node per elapse: the node that claims the elapse in the fleet's database first.
    case oneNode = "one-node"
}

/// `Overlap=`: what happens when a job falls due while a run of it is still going (a run started
/// under an earlier configuration generation counts).
public enum OverlapPolicy: String, Sendable, Hashable, CaseIterable {
    /// The trigger is skipped and logged as `run.skip` (the default, as a systemd timer does).
    case skip
    /// One run waits for the running one to finish; further triggers meanwhile are skipped.
    case queue
    /// The running run is stopped (SIGTERM, then SIGKILL after `TimeoutStopSec=`); the new run
    /// starts once it has exited.
    case replace
    /// Another run starts beside the running one.
    case parallel
}

/// One `EnvironmentFile=`: an absolute path; with a leading `-`, a missing file is not an error.
public struct EnvironmentFile: Sendable, Hashable {
    public var path: String
    public var optional: Bool

    public init(path: String, optional: Bool) {
        self.path = path
        self.optional = optional
    }
}

/// `WorkingDirectory=`: an absolute path; with a leading `-`, a missing directory is not an error.
public struct WorkingDirectory: Sendable, Hashable {
    public var path: String
    public var optional: Bool
}

/// One `NAME=value` of `Environment=`.
public struct EnvironmentVariable: Sendable, Hashable {
    public var name: String
    public var value: String
}
