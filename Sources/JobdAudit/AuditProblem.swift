/// One finding that fails the audit, naming the job, owner and generation it concerns.
package struct AuditProblem: Sendable, Hashable, Codable {
    /// What kind of problem this is. The raw values are part of the JSON schema.
    package enum Kind: String, Sendable, Hashable, Codable {
        /// A retired owner never released: past its grace period, past jobd's exit, or reported by
        /// jobd itself with `owner.leak`.
        case leak
        /// An owner released, but only after it was reported as leaked or after its grace period.
        case lateRelease = "late-release"
        /// A fire of a timer logged after its owner's deinit, and not dropped by the scheduler: the
        /// fire would have reached a released owner, which the timer core rules out.
        case fireAfterDeinit = "fire-after-deinit"
        /// An owner was released but its timer's invalidation was never logged.
        case timerNotInvalidated = "timer-not-invalidated"
    }

    /// What kind of problem this is.
    package var kind: Kind
    /// The job's name (`JOB`), when known.
    package var job: String?
    /// The owner (`JOBD_OWNER`).
    package var owner: UInt64?
    /// The generation that created the owner, when known.
    package var generation: UInt64?
    /// The owner's timer (`JOBD_TIMER`), when known.
    package var timer: UInt64?
    /// When the problem shows in the journal (the event that proves it), in microseconds since the epoch.
    package var realtimeUSec: UInt64?
    /// A sentence for people: what happened and when.
    package var detail: String

    /// Makes a problem.
    package init(
        kind: Kind, job: String?, owner: UInt64?, generation: UInt64?, timer: UInt64?, realtimeUSec: UInt64?,
        detail: String
    ) {
        self.kind = kind
        self.job = job
        self.owner = owner
        self.generation = generation
        self.timer = timer
        self.realtimeUSec = realtimeUSec
        self.detail = detail
    }
}
