package import JobdCalendar
import JobdConfig
package import JobdTimers

/// A run that was asked for: by a trigger, by hand, as a retry, or by another job's `OnFailure=` or
/// `OnSuccess=`. It keeps its id from the moment it is asked for, whether it starts at once, waits,
/// or is skipped, so that whoever asked (`jobctl run --wait`) can follow it.
package struct RunRequest: Sendable, Hashable {
    /// Why the run was asked for.
    package enum Cause: String, Sendable, Hashable {
        /// One of the job's triggers fell due.
        case timer
        /// `jobctl run`.
        case manual
        /// `Restart=`: a failed run is tried again.
        case retry
        /// Another job's `OnFailure=`.
        case onFailure = "on-failure"
        /// Another job's `OnSuccess=`.
        case onSuccess = "on-success"
    }

    /// The run id: unique within this jobd, `JOBD_RUN=`.
    package var runID: UInt64
    /// `JOBD_RUN_ID=`: unique across restarts and machines, as systemd's `INVOCATION_ID=`.
    package var invocationID: String
    package var job: String
    package var cause: Cause
    /// 0 for a first run; n for the n-th retry of a failed one.
    package var attempt: UInt64
    /// For a run that another job's outcome started (and its retries): that outcome.
    package var triggeredBy: TriggeringRun?
    /// When it was asked for; runs waiting for a slot start in this order.
    package var dueAt: MonotonicInstant
    /// For a `RunOn=one-node` job's timer run and its retries: the calendar elapse it is for, which
    /// the node must claim in the fleet's database before it starts.
    package var scheduledElapse: RealtimeInstant?
    /// For a user's own job, its account's uid when the run was asked for (``JobDefinition/owningUID``):
    /// whose the run's journal entries are.
    package var owningUID: UInt32?

    package init(
        runID: UInt64, invocationID: String, job: String, cause: Cause, attempt: UInt64 = 0,
        triggeredBy: TriggeringRun? = nil, dueAt: MonotonicInstant, scheduledElapse: RealtimeInstant? = nil, owningUID: UInt32? = nil
    ) {
        self.scheduledElapse = scheduledElapse
        self.owningUID = owningUID
        self.runID = runID
        self.invocationID = invocationID
        self.job = job
        self.cause = cause
        self.attempt = attempt
        self.triggeredBy = triggeredBy
        self.dueAt = dueAt
    }
}

extension RunRequest {
    /// 128 random bits as 32 lowercase hex digits, as systemd's `INVOCATION_ID=`.
    @Sendable package static func randomInvocationID() -> String {
        var generator = SystemRandomNumberGenerator()
        return StoredInvocationID.bits(high: generator.next(), low: generator.next()).text
    }
}
