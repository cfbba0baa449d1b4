import ArgumentParser
import JobdControl
import SystemdKit

/// `jobctl --user why JOB`: the entries `jobctl why` reads, as jobd reads them for the caller's
/// own job (a `logs` request with `history`), for a user who cannot read jobd's entries in the
/// journal. jobd sends only the fields the report needs.
enum WhyJournal {
    static func fromJobd(job: String, runs: Int, runtime: RuntimeOptions) throws -> [JournalEntry] {
        let client = try runtime.connect()
        var request = ControlRequest(command: .logs, job: job, lines: runs)
        request.history = true
        var entries: [JournalEntry] = []
        do {
            try client.send(request)
            while let response = try client.receive() {
                if response.type == .error {
                    var standardError = StandardError()
                    print("jobctl why: \(response.message ?? "jobd could not read the journal")", to: &standardError)
                    throw ExitCode(Jobctl.Why.unreadable)
                }
                guard response.type == .logEntry, let fields = response.fields else { continue }
                entries.append(JournalEntry(fields: decode(fields), realtimeUSec: UInt64(clamping: response.timeUSec ?? 0),
                                            monotonicUSec: 0, bootID: "", cursor: ""))
            }
        } catch let error as ControlError {
            throw Jobctl.fail(error)
        }
        return entries
    }

    /// `NAME=value` lines as fields.
    static func decode(_ fields: [String]) -> [String: String] {
        var decoded: [String: String] = [:]
        for field in fields {
            guard let equals = field.firstIndex(of: "=") else { continue }
            decoded[String(field[..<equals])] = String(field[field.index(after: equals)...])
        }
        return decoded
    }
}
