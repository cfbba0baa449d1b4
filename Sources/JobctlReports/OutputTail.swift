package import SystemdKit

/// The last lines a run wrote, from the journal (`JOBD_RUN_ID=`), for `jobctl status JOB`, or why
/// there are none to show.
package enum OutputTail {
    package enum Tail: Equatable {
        /// The run's last lines (none when it wrote nothing).
        case lines([String])
        /// The journal holds no entry of the run at all: jobd logs elsewhere (stderr), or the
        /// entries were rotated away.
        case runNotInJournal
        /// The journal cannot be read here (permissions, none at all).
        case unreadable(String)
    }

    package static func lines(job: String, runID: String, count: Int, source: JournalReader.Source = .local) -> Tail {
        do {
            let reader = try JournalReader(source)
            try reader.addMatch("JOBD_RUN_ID", runID)
            try reader.seekTail()
            var lines: [String] = []
            var seen = false
            while lines.count < count, let entry = try reader.previous() {
                // jobd's entries only (a forger may set JOBD_RUN_ID too); output escaped for the terminal.
                guard entry.writtenByRoot else { continue }
                seen = true
                guard entry["JOBD_EVENT"] == "run.output" else { continue }
                lines.append(TerminalText.escaped("\(job)[\(entry.fields["SYSLOG_PID"] ?? "?")]: \(entry.fields["MESSAGE"] ?? "")"))
            }
            return seen ? .lines(lines.reversed()) : .runNotInJournal
        } catch {
            return .unreadable("\(error)")
        }
    }
}
