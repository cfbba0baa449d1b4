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
