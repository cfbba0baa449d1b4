/// The control protocol, version 1: JSON lines over a Unix stream socket.
///
/// A client sends one request line; jobd answers with one or more response lines and closes the
/// connection. Every message carries `"version": 1`; a request of another version gets an `error`.
/// A request line may be at most ``ControlProtocol/maximumRequestBytes`` long and must arrive within
/// ``ControlProtocol/requestTimeoutSeconds``; otherwise the connection gets an error, or is closed.
public enum ControlProtocol {
    public static let version = 1
    public static let maximumRequestBytes = 65_536
    public static let requestTimeoutSeconds = 5
    /// The socket's file name in the runtime directory.
    public static let socketName = "jobd.sock"
    /// The pid file's name in the runtime directory.
    public static let pidFileName = "jobd.pid"

    /// `$RUNTIME_DIRECTORY` (the first, if systemd set several) or `/run/jobd`: the same default for
    /// jobd and jobctl, so that they meet without options.
    public static func defaultRuntimeDirectory(environment: [String: String]) -> String {
        environment["RUNTIME_DIRECTORY"].flatMap { $0.split(separator: ":").first.map(String.init) } ?? "/run/jobd"
    }
}

/// A request from a client.
public struct ControlRequest: Codable, Sendable, Equatable {
    public enum Command: String, Codable, Sendable {
        /// The daemon's status, or one job's with `job`.
        case status
        /// Every job with its next and last elapse, as `systemctl list-timers`.
        case list
        /// Start a run of `job` now; with `wait`, answer again when it ends.
        case run
        /// Answer `reload-subscribed` at once and `reload-result` when the next reload ends.
        case watchReload = "watch-reload"
    }

    public var version: Int
    public var command: Command
    public var job: String?
    public var wait: Bool?

    public init(command: Command, job: String? = nil, wait: Bool? = nil) {
        self.version = ControlProtocol.version
        self.command = command
        self.job = job
        self.wait = wait
    }
}

/// One response line. `type` says which of the optional parts are present.
public struct ControlResponse: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case error
        case status
        case job
        case list
        case runStarted = "run-started"
        /// The run was accepted but waits: for its job's run in flight (`Overlap=queue` or
        /// `replace`) or for a free slot (`MaxConcurrentRuns=`). `run-finished` follows with `wait`.
        case runQueued = "run-queued"
        case runSkipped = "run-skipped"
        case runFinished = "run-finished"
        case reloadSubscribed = "reload-subscribed"
        case reloadResult = "reload-result"
    }

    public var version = ControlProtocol.version
    public var type: Kind
    public var message: String?
    public var daemon: DaemonStatus?
    public var jobStatus: JobStatus?
    public var jobs: [JobStatus]?
    public var run: RunReport?
    public var reload: ReloadReport?

    public init(
        type: Kind, message: String? = nil, daemon: DaemonStatus? = nil, jobStatus: JobStatus? = nil,
        jobs: [JobStatus]? = nil, run: RunReport? = nil, reload: ReloadReport? = nil
    ) {
        self.type = type
        self.message = message
        self.daemon = daemon
        self.jobStatus = jobStatus
        self.jobs = jobs
        self.run = run
        self.reload = reload
    }

    public static func error(_ message: String) -> ControlResponse {
        ControlResponse(type: .error, message: message)
    }
}

/// The daemon as a whole.
public struct DaemonStatus: Codable, Sendable, Equatable {
    public var pid: Int32
    public var instance: String
    public var generation: UInt64
    public var startedRealtimeUSec: Int64
    public var jobs: Int
    public var liveOwners: Int
    public var liveTimers: Int
    public var armedTimers: Int
    public var runningJobs: Int
    public var lastReload: ReloadReport?
    /// Owners retired by a reload or stop that are still alive (within their grace, or leaked).
    public var retiredOwnersAlive: Int
    /// Retired owners reported as leaked (`owner.leak`) and still alive.
    public var leakedOwners: Int
    /// Job files (and `jobd.conf`) with errors, as `FILE:LINE: error: …`, first error of each.
    public var brokenFiles: [String]?

    public init(
        pid: Int32, instance: String, generation: UInt64, startedRealtimeUSec: Int64, jobs: Int, liveOwners: Int,
        liveTimers: Int, armedTimers: Int, runningJobs: Int, lastReload: ReloadReport?,
        retiredOwnersAlive: Int = 0, leakedOwners: Int = 0
    ) {
        self.retiredOwnersAlive = retiredOwnersAlive
        self.leakedOwners = leakedOwners
        self.pid = pid
        self.instance = instance
        self.generation = generation
        self.startedRealtimeUSec = startedRealtimeUSec
        self.jobs = jobs
        self.liveOwners = liveOwners
        self.liveTimers = liveTimers
        self.armedTimers = armedTimers
        self.runningJobs = runningJobs
        self.lastReload = lastReload
    }
}

/// One job: its definition's summary, its schedule and its runs. Times are wall-clock
/// microseconds since the epoch.
public struct JobStatus: Codable, Sendable, Equatable {
    public var name: String
    public var file: String
    public var description: String?
    public var command: String
    public var triggers: [String]
    public var nextElapseUSec: Int64?
    public var lastTriggerUSec: Int64?
    public var lastStartUSec: Int64?
    public var lastFinishUSec: Int64?
    public var lastOutcome: String?
    public var running: Int
    public var owner: UInt64
    public var generation: UInt64
    /// The last run's result in systemd's words (`success`, `exit-code`, `timeout`, …).
    public var lastResult: String?
    /// The last run's `EXIT_STATUS=`: a number, or a signal's name.
    public var lastExitStatus: String?
    public var lastDurationUSec: UInt64?
    /// The last run's `JOBD_RUN_ID=`, and why it started (`timer`, `manual`, `retry`, `on-failure`, `on-success`).
    public var lastRunID: String?
    public var lastStartCause: String?
    /// A `RunOn=one-node` job: the node that claimed the last elapse this node saw (itself or another).
    public var lastNode: String?
    /// Runs in flight.
    public var runs: [RunInFlight]?
    /// When a failed run will be retried.
    public var retryUSec: Int64?
    /// The job file has errors: its errors; the job runs its previous definition (when `owner` is
    /// not 0) or not at all.
    public var errors: [String]?
    public var disabledByErrors: Bool { errors?.isEmpty == false }

    /// A run in flight.
    public struct RunInFlight: Codable, Sendable, Equatable {
        public var runID: UInt64
        public var invocationID: String
        public var pid: Int32?
        public var startedUSec: Int64
        public var cause: String

        public init(runID: UInt64, invocationID: String, pid: Int32?, startedUSec: Int64, cause: String) {
            self.runID = runID
            self.invocationID = invocationID
            self.pid = pid
            self.startedUSec = startedUSec
            self.cause = cause
        }
    }

    public init(
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

/// A run started (or not) on request, and how it ended.
public struct RunReport: Codable, Sendable, Equatable {
    public var job: String
    public var runID: UInt64?
    public var skipReason: String?
    public var exitCode: String?
    public var exitStatus: String?
    /// The exit status, or for a run killed by a signal 128 plus the signal's number, as a shell reports it.
    public var shellStatus: Int32?
    public var succeeded: Bool?
    /// How the run ended, in systemd's words.
    public var result: String?
    public var invocationID: String?

    public init(
        job: String, runID: UInt64? = nil, skipReason: String? = nil, exitCode: String? = nil,
        exitStatus: String? = nil, shellStatus: Int32? = nil, succeeded: Bool? = nil
    ) {
        self.shellStatus = shellStatus
        self.job = job
        self.runID = runID
        self.skipReason = skipReason
        self.exitCode = exitCode
        self.exitStatus = exitStatus
        self.succeeded = succeeded
    }
}

/// The outcome of a reload.
public struct ReloadReport: Codable, Sendable, Equatable {
    /// Reloads finished so far in this daemon, accepted or not: a client waits for the next number.
    public var sequence: UInt64
    public var accepted: Bool
    public var generation: UInt64
    public var added: [String]
    public var changed: [String]
    public var removed: [String]
    public var kept: [String]
    /// Every configuration error, as `FILE:LINE: error: MESSAGE`.
    public var errors: [String]
    public var finishedRealtimeUSec: Int64?

    public init(
        sequence: UInt64, accepted: Bool, generation: UInt64, added: [String] = [], changed: [String] = [],
        removed: [String] = [], kept: [String] = [], errors: [String] = [], finishedRealtimeUSec: Int64? = nil
    ) {
        self.sequence = sequence
        self.accepted = accepted
        self.generation = generation
        self.added = added
        self.changed = changed
        self.removed = removed
        self.kept = kept
        self.errors = errors
        self.finishedRealtimeUSec = finishedRealtimeUSec
    }
}
