package import JobdCalendar
package import JobdConfig
package import JobdTimers

/// What jobd remembers of a job across owners: a reload that replaces a job's owner keeps these,
/// so a changed job keeps its last-run time.
package struct JobHistory: Sendable, Equatable {
    /// When the job last fell due, whether it ran or was skipped.
    @PackedInstant package var lastTrigger: MonotonicInstant? = nil
    /// The same, on the wall clock: calendar triggers count from it (and `Persistent=` stores it).
    @PackedInstant package var lastTriggerRealtime: RealtimeInstant? = nil
    /// When its last run started, on both clocks, and why (`RunRequest.Cause`'s raw value).
    @PackedInstant package var lastStart: MonotonicInstant? = nil
    @PackedInstant package var lastStartRealtime: RealtimeInstant? = nil
    package var lastStartCause: String?
    /// When its last run finished, on both clocks.
    @PackedInstant package var lastFinish: MonotonicInstant? = nil
    @PackedInstant package var lastFinishRealtime: RealtimeInstant? = nil
    /// How the last finished run ended (`jobctl list` and `status`, the metrics, the saved history).
    package var lastRun: RunOutcome?
    /// When a run last succeeded, on the wall clock.
    @PackedInstant package var lastSuccessRealtime: RealtimeInstant? = nil
    /// Runs that ended since jobd started, by result.
    package var runsByResult = RunResultCounts()
    /// Elapses of the job's triggers that started no run since jobd started, by reason
    /// (``ElapseSkipReason``): the metrics' `jobd_job_skipped_elapses_total`.
    package var skippedByReason: [ElapseSkipReason: UInt64] = [:]
    /// Calendar slots that fell due and were not served since jobd started, by reason
    /// (``MissedElapses``): the metrics' `jobd_job_missed_elapses_total`.
    package var missedByReason: [MissedElapses.Reason: UInt64] = [:]
    /// When the job's schedule, as it is now, entered the configuration, on both clocks: the
    /// reload that added the job or changed its triggers. `nil` for the jobs of jobd's first load,
    /// whose schedule counts from jobd's start. No elapse before it is ever made up: a slot of a
    /// schedule that did not exist yet was never due.
    @PackedInstant package var scheduledSince: MonotonicInstant? = nil
    @PackedInstant package var scheduledSinceRealtime: RealtimeInstant? = nil
    /// What a handover kept of the monotonic instants, until the next jobd takes it: out of line,
    /// since every job but those a handover has just passed on has none.
    @OutOfLine package var pace: Pace? = nil

    package init() {}
}
