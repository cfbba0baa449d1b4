import JobdConfig
import JobdControl
import JobdRunner
import JobdScheduler
import JobdTimers

// A run's outcome, as the runner reports it, in the terms of who hears of it: the run admission,
// the job's history, and the clients waiting for it.

extension RunEnd {
    init(_ outcome: RunOutcome) {
        let termination = outcome.termination
        self.init(runID: outcome.runID, job: outcome.job, result: outcome.result, exitCode: termination.exitCode,
                  exitStatus: termination.exitStatus)
    }
}

extension JobHistory.LastRun {
    init(_ outcome: RunOutcome) {
        let termination = outcome.termination
        let duration = TimeSpan(microseconds: UInt64(max(0, outcome.finished.duration(since: outcome.started).nanosecondsSaturated / 1_000)))
        self.init(
            result: outcome.result, exitCode: termination.exitCode, exitStatus: termination.exitStatus,
            outcome: termination.description, duration: duration, invocationID: outcome.invocationID)
        shellStatus = termination.shellStatus
    }
}

extension RunReport {
    init(_ outcome: RunOutcome) {
        let termination = outcome.termination
        self.init(
            job: outcome.job, runID: outcome.runID, exitCode: termination.exitCode, exitStatus: termination.exitStatus,
            shellStatus: termination.shellStatus, succeeded: outcome.succeeded)
        result = outcome.result.rawValue
        invocationID = outcome.invocationID
        reason = termination.startFailure
    }
}
