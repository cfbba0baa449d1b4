/// The value of `jobctl logs --run`: which run of a job to show.
///
/// A run is identified across jobd's restarts by its `JOBD_RUN_ID` (128 random bits, on every entry
/// of a run) where jobd logs one, else by its instance and its counter within that instance.
package enum RunSelector: Sendable, Hashable {
    /// The job's last `run.start` in the journal, whichever jobd instance logged it.
    case last
    /// `JOBD_RUN_ID=`: 32 lowercase hex digits.
    case id(String)
    /// `JOBD_INSTANCE:JOBD_RUN`.
    case instanceRun(instance: String, run: UInt64)
    /// `JOBD_RUN` within the journal's last jobd instance.
    case number(UInt64)

    package init?(_ text: String) {
        let lowered = text.lowercased()
        if lowered == "last" {
            self = .last
        } else if lowered.count == 32, lowered.allSatisfy(\.isHexDigit) {
            self = .id(lowered)
        } else if let colon = lowered.firstIndex(of: ":") {
            let instance = String(lowered[..<colon]).filter { $0 != "-" }
            guard instance.count == 32, instance.allSatisfy(\.isHexDigit),
                  let run = UInt64(lowered[lowered.index(after: colon)...]) else { return nil }
            self = .instanceRun(instance: instance, run: run)
        } else if let run = UInt64(lowered) {
            self = .number(run)
        } else {
            return nil
        }
    }

    /// The journal matches (field, value) that select the entries of the run, given the run's
    /// `run.start` entry fields where they had to be looked up (`last`), and the last instance.
    package static func matches(runStart fields: [String: String]) -> [(String, String)] {
        if let id = fields["JOBD_RUN_ID"] { return [("JOBD_RUN_ID", id)] }
        return [("JOBD_INSTANCE", fields["JOBD_INSTANCE"] ?? ""), ("JOBD_RUN", fields["JOBD_RUN"] ?? "")]
    }
}
