/// One job: its definition's summary, its schedule and its runs. Times are wall-clock
/// microseconds since the epoch.
package struct JobStatus: Codable, Sendable, Equatable {
    package var name: String
    package var file: String
    package var description: String?
    package var command: String
    package var triggers: [String]
    package var nextElapseUSec: Int64?
    package var lastTriggerUSec: Int64?
    package var lastStartUSec: Int64?
    package var lastFinishUSec: Int64?
    package var lastOutcome: String?
    package var running: Int
    package var owner: UInt64
    package var generation: UInt64
    /// The last run's result in systemd's words (`success`, `exit-code`, `timeout`, …).
    package var lastResult: String?
    /// The last run's `EXIT_STATUS=`: a number, or a signal's name.
    package var lastExitStatus: String?
    package var lastDurationUSec: UInt64?
    /// The last run's `JOBD_RUN_ID=`, and why it started (`timer`, `manual`, `retry`, `on-failure`, `on-success`).
    package var lastRunID: String?
    package var lastStartCause: String?
    /// A `RunOn=one-node` job: the node that claimed the last elapse this node saw (itself or another).
    package var lastNode: String?
    /// Runs in flight.
    package var runs: [RunInFlight]?
    /// When a failed run will be retried.
    package var retryUSec: Int64?
    /// `jobctl disable`: its triggers start no runs.
    package var disabled: Bool?
    /// The job file has errors: its errors; the job runs its previous definition (when `owner` is
    /// not 0) or not at all.
    package var errors: [String]?
    package var disabledByErrors: Bool { errors?.isEmpty == false }
    /// How exposed the job's runs are, as `systemd-analyze security` scores a service, in tenths
    /// (0 to 100: 96 is systemd's 9.6). A jobd that predates it sends none.
    package var exposureTenths: Int?
    /// With one job's status (not in a list): each check of that exposure, for `jobctl security`.
    package var security: [SecurityCheck]?
    /// With one job's status (not in a list), what decides its next elapse (`jobctl why`):
    /// `Persistent=`, `Overlap=`, and its `Condition…=` (left out when the caller cannot read the file).
    package var persistent: Bool?
    package var overlap: String?
    package var conditions: [String]?

    /// A run in flight.
    package struct RunInFlight: Codable, Sendable, Equatable {
        package var runID: UInt64
        package var invocationID: String
        package var pid: Int32?
        package var startedUSec: Int64
        package var cause: String

        package init(runID: UInt64, invocationID: String, pid: Int32?, startedUSec: Int64, cause: String) {
            self.runID = runID
            self.invocationID = invocationID
            self.pid = pid
            self.startedUSec = startedUSec
            self.cause = cause
        }
    }

    package init(
        name: String, file: String, description: String?, command: String, triggers: [String],
        nextElapseUSec: Int64?, lastTriggerUSec: Int64?, lastStartUSec: Int64?, lastFinishUSec: Int64?,
        lastOutcome: String?, running: Int, owner: UInt64, generation: UInt64
    ) {
        self.name = name
        self.file = file
        self.description = description
        self.command = command
        self.triggers = triggers
        self.nextElapseUSec = nextElapseUSec
        self.lastTriggerUSec = lastTriggerUSec
        self.lastStartUSec = lastStartUSec
        self.lastFinishUSec = lastFinishUSec
        self.lastOutcome = lastOutcome
        self.running = running
        self.owner = owner
        self.generation = generation
    }
}
