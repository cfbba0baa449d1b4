import SystemdKit

/// What became of one run jobd was asked for, folded from its journal entries: every entry of a
/// run carries its `JOBD_RUN_ID`, its `JOBD_CAUSE` (none for a timer) and, for a run a trigger
/// asked for and its retries, the `JOBD_ELAPSE_USEC` it serves.
struct RunTrace: Sendable, Equatable {
    var id: String
    var cause = "timer"
    var elapseUSec: Int64?
    /// When jobd first logged anything of it: when it was asked for.
    var askedUSec: Int64
    var startedUSec: Int64?
    var result: String?
    var exitStatus: String?
    /// `run.skip`: why it never started (`JOBD_REASON`).
    var skipReason: String?
    /// The `Condition…=` that did not hold, when that is why it was skipped.
    var condition: String?
    /// `run.wait`: what it waited for (`overlap`, `max-concurrent-runs`, `user-runs-max`).
    var waitReason: String?
    /// `run.retry`: this run is a retry, due later (`JOBD_ATTEMPT`, `2/3`).
    var retryAttempt: String?
    var node: String?
    var triggeredBy: String?

    init(id: String, askedUSec: Int64) {
        self.id = id
        self.askedUSec = askedUSec
    }

    /// Takes one more entry of the run, in journal order.
    mutating func consume(_ entry: JournalEntry) {
        if let cause = entry["JOBD_CAUSE"] { self.cause = cause }
        if let elapse = entry["JOBD_ELAPSE_USEC"].flatMap({ Int64($0) }) { elapseUSec = elapse }
        if let by = entry["JOBD_TRIGGERED_BY"] { triggeredBy = by }
        if let node = entry["JOBD_NODE"] { self.node = node }
        if let condition = entry["JOBD_CONDITION"] { self.condition = condition }
        let time = Int64(clamping: entry.realtimeUSec)
        switch entry["JOBD_EVENT"] {
        case "run.start":
            startedUSec = startedUSec ?? time
            // A start that failed is logged as an error (and its run.exit says start-failed).
            if entry["PRIORITY"] == "3", result == nil { result = "start-failed" }
        case "run.exit", "run.abandoned":
            result = entry["JOBD_RESULT"] ?? result
            exitStatus = entry["EXIT_STATUS"] ?? exitStatus
            if entry["JOBD_EVENT"] == "run.abandoned" { startedUSec = startedUSec ?? entry["JOBD_START_USEC"].flatMap { Int64($0) } }
        case "run.skip":
            skipReason = entry["JOBD_REASON"] ?? "unknown"
        case "run.wait":
            waitReason = entry["JOBD_REASON"]
        case "run.retry":
            retryAttempt = entry["JOBD_ATTEMPT"] ?? "?"
        default:
            break
        }
    }

    /// Whether the run started (whatever became of it then).
    var started: Bool { startedUSec != nil && skipReason == nil }
}
