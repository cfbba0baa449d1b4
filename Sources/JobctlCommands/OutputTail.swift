import SystemdKit

/// The last lines a run wrote, from the journal (`JOBD_RUN_ID=`), for `jobctl status JOB`. Empty
/// when the journal cannot be read or holds none (jobd logging to stderr, say).
enum OutputTail {
    static func lines(job: String, runID: String, count: Int, source: JournalReader.Source = .local) -> [String] {
        guard let reader = try? JournalReader(source) else { return [] }
        do {
            try reader.addMatch("JOBD_RUN_ID", runID)
            try reader.addMatch("JOBD_EVENT", "run.output")
            try reader.seekTail()
            var lines: [String] = []
            while lines.count < count, let entry = try reader.previous() {
                // jobd's lines only (a forger may set JOBD_RUN_ID too), escaped for the terminal.
                guard entry.writtenByRoot else { continue }
                lines.append(TerminalText.escaped("\(job)[\(entry.fields["SYSLOG_PID"] ?? "?")]: \(entry.fields["MESSAGE"] ?? "")"))
            }
            return lines.reversed()
        } catch {
            return []
        }
    }
}
