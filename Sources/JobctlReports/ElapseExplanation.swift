/// One line of `jobctl why`: an elapse of the job's triggers and what became of it, or a run that
/// something other than a trigger asked for (by hand, another job's `OnFailure=`/`OnSuccess=`).
package struct ElapseExplanation: Sendable, Equatable {
    package enum Outcome: String, Sendable {
        /// A run started (its result says how it ended, if it has).
        case ran
        /// It started and is still in flight, or jobd logged no end of it.
        case running
        /// jobd decided not to run it: `reason` says why.
        case skipped
        /// It failed and a retry is due.
        case retrying
        /// It waits: for the run in flight, or for a slot.
        case waiting
        /// jobd never decided anything of it: it was down, the machine was suspended, or the
        /// clock jumped over it (`reason`, with `window`).
        case missed
    }

    /// The elapse (the scheduled instant), or for a run not asked for by a trigger, when it was asked for.
    package var timeUSec: Int64
    /// `timer`, or the `JOBD_CAUSE` of a run asked for otherwise (`manual`, `on-failure`, `on-success`).
    package var cause: String
    package var outcome: Outcome
    /// Why, as jobd's journal says it (`JOBD_REASON`: `overlap`, `condition`, `claimed-by NODE`, …),
    /// or for a missed elapse `jobd-down`, `suspended`, `clock-jump`; for a run that waits, what for.
    package var reason: String?
    /// With `condition`: the condition that did not hold.
    package var condition: String?
    /// The `JOBD_RUN_ID` of the elapse's last run (its last retry, if it was retried).
    package var runID: String?
    package var result: String?
    package var exitStatus: String?
    /// How many times it was retried (`Restart=`).
    package var retries = 0
    /// The job whose outcome started it.
    package var triggeredBy: String?
    /// A `RunOn=one-node` run: the node that ran it.
    package var node: String?
    /// When it started, if it did.
    package var startedUSec: Int64?
    /// A missed elapse: the window it fell in (jobd down, suspended, clock jumped), and how many
    /// elapses of the job fell in it unserved (one line for them all, at the first).
    package var windowFromUSec: Int64?
    package var windowToUSec: Int64?
    package var count = 1
    /// A run that served an elapse which fell while jobd was down (a `Persistent=` catch-up).
    package var caughtUp = false

    package init(timeUSec: Int64, cause: String, outcome: Outcome, reason: String? = nil) {
        self.timeUSec = timeUSec
        self.cause = cause
        self.outcome = outcome
        self.reason = reason
    }

    /// Whether the elapse was due to a trigger (not a run by hand or by another job).
    package var isElapse: Bool { cause == "timer" }
}
