package import JobdConfig

/// The run whose outcome started another job through `OnFailure=` or `OnSuccess=`: what the started
/// job finds in its environment.
package struct TriggeringRun: Sendable, Hashable {
    package var job: String
    /// Its `JOBD_RUN_ID=`.
    package var invocationID: String
    package var result: RunResult
    package var exitCode: String
    package var exitStatus: String
    /// Every job of the chain that led here, the first one first, this one last: a job already on
    /// it is not started again, so that a notifier that fails cannot notify itself for ever.
    package var chain: [String]

    package init(job: String, invocationID: String, result: RunResult, exitCode: String, exitStatus: String, chain: [String]) {
        self.job = job
        self.invocationID = invocationID
        self.result = result
        self.exitCode = exitCode
        self.exitStatus = exitStatus
        self.chain = chain
    }

    /// The variables a started job gets.
    package var environment: [String: String] {
        [
            "JOBD_TRIGGERED_BY": job, "JOBD_TRIGGERED_BY_RUN_ID": invocationID, "JOBD_RESULT": result.rawValue,
            "EXIT_CODE": exitCode, "EXIT_STATUS": exitStatus,
        ]
    }
}
