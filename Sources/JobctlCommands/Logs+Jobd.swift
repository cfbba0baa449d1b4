import ArgumentParser
import JobdCalendar
import JobdControl
import SystemdKit
import JobctlReports

extension Jobctl.Logs {
    /// Prints the last `lines` entries of `job` as jobd reads them from the journal (`logs`), in
    /// the short format.
    static func fromJobd(job: String, lines: Int?, runtime: RuntimeOptions) throws {
        let client = try runtime.connect()
        let formatter = LogEntryFormatter(style: .short)
        var shown = 0
        do {
            try client.send(ControlRequest(command: .logs, job: job, lines: lines))
            while let response = try client.receive() {
                if response.type == .error {
                    var standardError = StandardError()
                    print("jobctl: \(response.message ?? "jobd could not read the journal")", to: &standardError)
                    throw ExitCode(Jobctl.ExitStatus.failure)
                }
                guard response.type == .logEntry else { continue }
                var fields = ["JOB": response.run?.job ?? job, "MESSAGE": response.line ?? ""]
                fields["JOBD_RUN"] = response.run?.runID.map(String.init)
                let entry = JournalEntry(fields: fields, realtimeUSec: UInt64(clamping: response.timeUSec ?? 0), monotonicUSec: 0,
                                         bootID: "", cursor: "")
                print(formatter.short(entry))
                shown += 1
            }
        } catch let error as ControlError {
            throw Jobctl.fail(error)
        }
        if shown == 0 { print("-- No entries --") }
    }
}
