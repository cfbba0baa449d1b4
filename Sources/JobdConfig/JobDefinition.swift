import JobdCalendar

/// One job, as its file defines it. Two definitions are equal when every setting is: a reload
/// keeps the owner (and so the schedule) of a job whose definition did not change.
package struct JobDefinition: Sendable, Hashable {
    /// The file name without `.job`.
    package var name: String
    /// The file it was read from.
    package var path: String
    package var description: String?
    package var triggers: [Trigger]
    package var command: ExecCommand
    package var workingDirectory: WorkingDirectory?
    /// `Environment=` assignments in order; a later one for the same name wins.
    package var environment: [EnvironmentVariable]
    /// `RandomizedDelaySec=`: each elapse is delayed by a random span up to this, drawn anew each time.
    package var randomizedDelay: TimeSpan = .zero
    /// `AccuracySec=`: how late an elapse may fire so that timers coalesce; 1ms by default
    /// (systemd's default is 1min: jobd is precise by default).
    package var accuracy: TimeSpan = TimeSpan(microseconds: 1_000)
    /// `Persistent=`: a calendar trigger missed while jobd was down runs once when it starts.
    package var persistent = false
    /// `User=`: the account a run switches to (a name or a numeric uid); `nil` runs as jobd's own.
    package var user: String?
    /// `Group=`: the group a run switches to; by default the user's primary group.
    package var group: String?
    /// `EnvironmentFile=`: files of `NAME=value` lines read at each run's start, after `Environment=`.
    package var environmentFiles: [EnvironmentFile] = []
    /// `RuntimeMaxSec=`: a run still going after this is stopped (`run.timeout`). Infinite by default.
    package var runtimeMax: TimeSpan = .infinity
    /// `TimeoutStopSec=`: how long a run that jobd stops gets between SIGTERM and SIGKILL.
    package var stopTimeout: TimeSpan = JobDefinition.defaultStopTimeout
    /// `Overlap=`: what a trigger does while a run of the job is still going.
    package var overlap: OverlapPolicy = .skip
    /// `Restart=` and its companions: whether and when a failed run is tried again.
    package var restart = RestartPolicy()
    /// `KillMode=`: whether what a run leaves behind when its main process ends is stopped.
    package var killMode: KillMode = .controlGroup
    /// `OnFailure=`: jobs started when a run fails and no retry is left.
    package var onFailure: [String] = []
    /// `OnSuccess=`: jobs started when a run succeeds.
    package var onSuccess: [String] = []
    /// `RunOn=`: whether every node of a fleet runs the job (the default) or one node per elapse.
    package var runOn: RunOn = .everyNode

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
package enum Trigger: Sendable, Hashable, CustomStringConvertible {
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

    package var description: String {
        switch self {
        case .startup(let span): "OnStartupSec=\(span)"
        case .unitActive(let span): "OnUnitActiveSec=\(span)"
        case .unitInactive(let span): "OnUnitInactiveSec=\(span)"
        case .calendar(let spec): "OnCalendar=\(spec.normalized)"
        case .cron(let spec): "Cron=\(spec.normalized)"
        }
    }

    /// Whether the trigger follows the wall clock (and so moves when the clock is set).
    package var isCalendar: Bool {
        switch self {
        case .calendar, .cron: true
        default: false
        }
    }
}

/// `RunOn=`: where a job runs when several jobd nodes share a `[Fleet]` database.
package enum RunOn: String, Sendable, Hashable, CaseIterable {
    /// Every node runs each elapse, as a single machine does (the default).
    case everyNode = "every-node"
    /// One node per elapse: the node that claims the elapse in the fleet's database first.
    case oneNode = "one-node"
}

/// `Overlap=`: what happens when a job falls due while a run of it is still going (a run started
/// under an earlier configuration generation counts).
package enum OverlapPolicy: String, Sendable, Hashable, CaseIterable {
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

/// `KillMode=`, in systemd's names: what happens to the processes a run leaves behind when its main
/// process has ended (and to all of a run's processes when jobd stops it).
package enum KillMode: String, Sendable, Hashable, CaseIterable {
    /// Every process the run started is stopped (SIGTERM, SIGKILL after `TimeoutStopSec=`), as
    /// systemd stops a service's control group. The default.
    case controlGroup = "control-group"
    /// Only the main process is the run; processes it leaves behind are counted and left running.
    case process
}

/// One `EnvironmentFile=`: an absolute path; with a leading `-`, a missing file is not an error.
package struct EnvironmentFile: Sendable, Hashable {
    package var path: String
    package var optional: Bool

    package init(path: String, optional: Bool) {
        self.path = path
        self.optional = optional
    }
}

/// `WorkingDirectory=`: an absolute path; with a leading `-`, a missing directory is not an error.
package struct WorkingDirectory: Sendable, Hashable {
    package var path: String
    package var optional: Bool
}

/// One `NAME=value` of `Environment=`.
package struct EnvironmentVariable: Sendable, Hashable {
    package var name: String
    package var value: String
}
