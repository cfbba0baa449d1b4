package import JobdCalendar
package import JobdConfig
package import JobdTimers

/// What jobd remembers of a job across owners: a reload that replaces a job's owner keeps these,
/// so a changed job keeps its last-run time.
package struct JobHistory: Sendable, Equatable {
    /// When the job last fell due, whether it ran or was skipped.
    package var lastTrigger: MonotonicInstant?
    /// The same, on the wall clock: calendar triggers count from it (and `Persistent=` stores it).
    package var lastTriggerRealtime: RealtimeInstant?
    /// When its last run started, on both clocks, and why (`RunRequest.Cause`'s raw value).
    package var lastStart: MonotonicInstant?
    package var lastStartRealtime: RealtimeInstant?
    package var lastStartCause: String?
    /// When its last run finished, on both clocks.
    package var lastFinish: MonotonicInstant?
    package var lastFinishRealtime: RealtimeInstant?
    /// How the last finished run ended.
    package var lastRun: LastRun?
    /// When a run last succeeded, on the wall clock.
    package var lastSuccessRealtime: RealtimeInstant?
    /// Runs that ended since jobd started, by result.
    package var runsByResult: [RunResult: UInt64] = [:]

    /// The outcome of a finished run, as `jobctl list` and `status` show it.
    package struct LastRun: Sendable, Equatable {
        package var result: RunResult
        /// `EXIT_CODE=` and `EXIT_STATUS=` as systemd writes them.
        package var exitCode: String
        package var exitStatus: String
        /// In words: "exited with status 1", "killed by SIGTERM".
        package var outcome: String
        package var duration: TimeSpan
        package var invocationID: String
        /// As a shell reports it: the exit status, or 128 plus the signal's number.
        package var shellStatus: Int32 = 0

        package init(result: RunResult, exitCode: String, exitStatus: String, outcome: String, duration: TimeSpan, invocationID: String) {
            self.result = result
            self.exitCode = exitCode
            self.exitStatus = exitStatus
            self.outcome = outcome
            self.duration = duration
            self.invocationID = invocationID
        }
    }

    package init() {}
}
