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
        /// `user-file`: the job's `text`, absent for a job that does not exist yet.
        case userFile = "user-file"
        /// `user-save`: kept (or removed); `reload-subscribed` and `reload-result` follow.
        case userSaved = "user-saved"
        /// `logs`: one journal entry of the job's runs: `line` its message, `run` its job and run
        /// number, `timeUSec` when it was logged.
        case logEntry = "log-entry"
        /// `plan`: `schedule`'s elapses.
        case plan
        /// `reload-preview`: `schedule`'s changes, kept count, errors and whether a reload would be accepted.
        case reloadPreview = "reload-preview"
        /// `crontab-list`: the crontab's `text` as the spool holds it, absent when there is none.
        case crontab
        /// `crontab-install`, `crontab-remove`: done; `message` says what, with any warnings.
        case crontabSaved = "crontab-saved"
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
    /// `user-file`: the job file's text.
    package var text: String?
    /// `log-entry`: when the entry was logged, wall-clock microseconds.
    package var timeUSec: Int64?
    /// `log-entry` of a `logs` request with `history`: the entry's fields `jobctl why` reads, as `NAME=value`.
    package var fields: [String]?
    /// `plan`, `reload-preview`: what the schedule will do.
    package var schedule: SchedulePreview?

    package init(
        type: Kind, message: String? = nil, daemon: DaemonStatus? = nil, jobStatus: JobStatus? = nil,
        jobs: [JobStatus]? = nil, run: RunReport? = nil, reload: ReloadReport? = nil, schedule: SchedulePreview? = nil
    ) {
        self.schedule = schedule
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
