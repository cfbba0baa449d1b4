package import JobdConfig

/// The run whose outcome started another job through `OnFailure=` or `OnSuccess=` (or the job whose
/// `ExpectSuccessWithinSec=` passed): what the started job finds in its environment.
package struct TriggeringRun: Sendable, Hashable {
    package var job: String
    /// Its `JOBD_RUN_ID=`.
    package var invocationID: String
    /// `nil` when no run ended: the job fell overdue (`ExpectSuccessWithinSec=`), `JOBD_RESULT=overdue`.
    package var result: RunResult?
    package var exitCode: String
    package var exitStatus: String
    /// Every job of the chain that led here, the first one first, this one last: a job already on
    /// it is not started again, so that a notifier that fails cannot notify itself for ever.
    package var chain: [String]

    package init(job: String, invocationID: String, result: RunResult?, exitCode: String, exitStatus: String, chain: [String]) {
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
            "JOBD_TRIGGERED_BY": job, "JOBD_TRIGGERED_BY_RUN_ID": invocationID, "JOBD_RESULT": result?.rawValue ?? "overdue",
            "EXIT_CODE": exitCode, "EXIT_STATUS": exitStatus,
        ]
    }
}
