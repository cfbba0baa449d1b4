/// The control protocol, version 1: JSON lines over a Unix stream socket.
///
/// A client sends one request line; jobd answers with one or more response lines and closes the
/// connection. Every message carries `"version": 1`; a request of another version gets an `error`.
/// A request line may be at most ``ControlProtocol/maximumRequestBytes`` long and must arrive within
/// ``ControlProtocol/requestTimeoutSeconds``; otherwise the connection gets an error, or is closed.
package enum ControlProtocol {
    package static let version = 1
    package static let maximumRequestBytes = 65_536
    package static let requestTimeoutSeconds = 5
    /// The socket's file name in the runtime directory.
    package static let socketName = "jobd.sock"
    /// The pid file's name in the runtime directory.
    package static let pidFileName = "jobd.pid"

    /// `$RUNTIME_DIRECTORY` (the first, if systemd set several) or `/run/jobd`: the same default for
    /// jobd and jobctl, so that they meet without options.
    package static func defaultRuntimeDirectory(environment: [String: String]) -> String {
        environment["RUNTIME_DIRECTORY"].flatMap { $0.split(separator: ":").first.map(String.init) } ?? "/run/jobd"
    }
}

/// A request from a client.
package struct ControlRequest: Codable, Sendable, Equatable {
    package enum Command: String, Codable, Sendable {
        /// The daemon's status, or one job's with `job`.
        case status
        /// Every job with its next and last elapse, as `systemctl list-timers`.
        case list
        /// Start a run of `job` now; with `wait`, answer again when it ends.
        case run
        /// Answer `reload-subscribed` at once and `reload-result` when the next reload ends.
        case watchReload = "watch-reload"
        /// Stop `job`'s runs in flight (and drop its waiting run and pending retry); with `wait`,
        /// answer again when they have ended.
        case stop
        /// Keep `job`'s triggers from starting runs (`jobctl run` still does), across reloads and restarts.
        case disable
        /// Undo `disable`.
        case enable
    }

    package var version: Int
    package var command: Command
    package var job: String?
    package var wait: Bool?
    /// With `run` and `wait`: the run's output too, as `run-output` lines (the default when `wait`).
    package var output: Bool?

    package init(command: Command, job: String? = nil, wait: Bool? = nil, output: Bool? = nil) {
        self.version = ControlProtocol.version
        self.command = command
        self.job = job
        self.wait = wait
        self.output = output
    }

    /// Whether the reply streams a run's output: a client that reads slowly then holds its
    /// connection for the whole run, and loses lines rather than slow jobd down.
    package var streamsOutput: Bool { command == .run && wait == true && output != false }
}

/// One response line. `type` says which of the optional parts are present.
package struct ControlResponse: Codable, Sendable, Equatable {
    package enum Kind: String, Codable, Sendable {
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
        /// With `run`, `wait` and `output`: one line the run wrote (`line`; `stream` is `stdout` or `stderr`).
        case runOutput = "run-output"
        /// A client that did not keep up lost `lost` lines of output here.
        case runOutputLost = "run-output-lost"
        case reloadSubscribed = "reload-subscribed"
        case reloadResult = "reload-result"
        /// `stop`: the runs in flight were asked to stop (`message` says how many); with `wait`,
        /// `stop-finished` follows once they have ended.
        case stopRequested = "stop-requested"
        case stopFinished = "stop-finished"
        /// `disable`, `enable`: done; `jobStatus` is the job's status now.
        case jobDisabled = "job-disabled"
        case jobEnabled = "job-enabled"
    }

    package var version = ControlProtocol.version
    package var type: Kind
    package var message: String?
    /// With `error`: what kind of error, for clients to act on (the message is for people).
    package var code: ControlErrorCode?
    package var daemon: DaemonStatus?
    package var jobStatus: JobStatus?
    package var jobs: [JobStatus]?
    package var run: RunReport?
    package var reload: ReloadReport?
    /// `run-output`: the line, and which stream it came from.
    package var line: String?
    package var stream: String?
    /// `run-output-lost`: how many lines were dropped.
    package var lost: Int?

    package init(
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

    package static func error(_ message: String, code: ControlErrorCode? = nil) -> ControlResponse {
        var response = ControlResponse(type: .error, message: message)
        response.code = code
        return response
    }
}

/// The kind of an `error` response, as its `code` field: a string, so that a client decodes codes
/// it does not know yet.
package struct ControlErrorCode: RawRepresentable, Codable, Sendable, Hashable {
    package var rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }

    /// The caller is not root or jobd's own user.
    package static let permissionDenied = ControlErrorCode(rawValue: "permission-denied")
    /// Every connection slot is taken; try again.
    package static let busy = ControlErrorCode(rawValue: "busy")
    /// The request is not one JSON object on one line, or too large.
    package static let badRequest = ControlErrorCode(rawValue: "bad-request")
    /// The request's protocol version is not this jobd's.
    package static let unsupportedVersion = ControlErrorCode(rawValue: "unsupported-version")
}

/// The daemon as a whole.
package struct DaemonStatus: Codable, Sendable, Equatable {
    package var pid: Int32
    package var instance: String
    package var generation: UInt64
    package var startedRealtimeUSec: Int64
    package var jobs: Int
    package var liveOwners: Int
    package var liveTimers: Int
    package var armedTimers: Int
    package var runningJobs: Int
    package var lastReload: ReloadReport?
    /// Owners retired by a reload or stop that are still alive (within their grace, or leaked).
    package var retiredOwnersAlive: Int
    /// Retired owners reported as leaked (`owner.leak`) and still alive.
    package var leakedOwners: Int
    /// Job files (and `jobd.conf`) with errors, as `FILE:LINE: error: …`, first error of each.
    package var brokenFiles: [String]?

    package init(
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

/// A run started (or not) on request, and how it ended.
package struct RunReport: Codable, Sendable, Equatable {
    package var job: String
    package var runID: UInt64?
    package var skipReason: String?
    package var exitCode: String?
    package var exitStatus: String?
    /// The exit status, or for a run killed by a signal 128 plus the signal's number, as a shell reports it.
    package var shellStatus: Int32?
    package var succeeded: Bool?
    /// How the run ended, in systemd's words.
    package var result: String?
    package var invocationID: String?

    package init(
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
package struct ReloadReport: Codable, Sendable, Equatable {
    /// Reloads finished so far in this daemon, accepted or not: a client waits for the next number.
    package var sequence: UInt64
    package var accepted: Bool
    package var generation: UInt64
    package var added: [String]
    package var changed: [String]
    package var removed: [String]
    package var kept: [String]
    /// Every configuration error, as `FILE:LINE: error: MESSAGE`.
    package var errors: [String]
    package var finishedRealtimeUSec: Int64?

    package init(
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
