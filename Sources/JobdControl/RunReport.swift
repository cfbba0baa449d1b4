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
    /// Why the run could not start (no such program, an account gone, …), for a run that did not.
    package var reason: String?
    /// The retry the run's failure was given, if any: its run number, which retry of how many it
    /// is, and when it starts (microseconds from the end of this run).
    package var retryRunID: UInt64?
    package var retryAttempt: UInt64?
    package var retryLimit: UInt64?
    package var retryDelayUSec: UInt64?

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
