package import JobdConfig

/// How a run ended, as the run admission needs to know it.
package struct RunEnd: Sendable, Hashable {
    package var runID: UInt64
    package var job: String
    package var result: RunResult
    package var exitCode: String
    package var exitStatus: String

    package init(runID: UInt64, job: String, result: RunResult, exitCode: String, exitStatus: String) {
        self.runID = runID
        self.job = job
        self.result = result
        self.exitCode = exitCode
        self.exitStatus = exitStatus
    }
}
