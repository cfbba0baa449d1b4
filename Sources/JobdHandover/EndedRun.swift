package import JobdConfig
import JobdScheduler

/// How a run handed over ended, as jobd-keeper writes it when it reaps the process (one file a
/// process, `PID`, in the keeper's directory): the keeper is the process's parent after a handover
/// (PR_SET_CHILD_SUBREAPER), so it alone learns the status. It writes the file before it reaps, so a
/// jobd that no longer finds the process finds the file.
package struct EndedRun: Sendable, Hashable {
    package var process: ProcessIdentity
    package var termination: RunTermination

    package init(process: ProcessIdentity, termination: RunTermination) {
        self.process = process
        self.termination = termination
    }

    /// The keeper's text: `pid=`, `start_ticks=`, `code=` (`exited`, `killed`, `dumped`) and `status=`
    /// (an exit status, or a signal's number); `nil` when a field is missing or wrong.
    package init?(keeperText text: Substring) {
        let values = SavedFields.values(of: text)
        guard let process = ProcessIdentity(values), let code = values["code"], let status = values["status"],
              let termination = RunTermination(exitCode: String(code), exitStatus: String(status), description: ""),
              termination != .unknown
        else { return nil }
        self.init(process: process, termination: termination)
    }
}
