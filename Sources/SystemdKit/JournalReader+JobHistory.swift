extension JournalReader {
    /// The fields of those entries that `jobctl why` reads: what jobd passes on to a user who
    /// asks about their own job, and nothing more (not the messages of jobd's own events).
    package static let jobHistoryFields: Set<String> = [
        "JOBD_EVENT", "JOB", "JOBD_INSTANCE", "JOBD_RUN_ID", "JOBD_CAUSE", "JOBD_ELAPSE_USEC", "JOBD_REASON", "JOBD_RESULT",
        "EXIT_STATUS", "JOBD_ATTEMPT", "JOBD_TRIGGERED_BY", "JOBD_NODE", "JOBD_CONDITION", "JOBD_START_USEC", "PRIORITY",
        "JOBD_SUSPENDED_USEC", "JOBD_CLOCK_JUMP_USEC",
    ]

    /// jobd's own entries of `job` (its runs' `run.*` events and notes, not their output, which
    /// goes under the job's own identifier) and of jobd's starts, stops and clock changes, oldest
    /// first: what `jobctl why` explains the job's elapses by. Read from the newest back until
    /// `runs` runs are in (or `limit` entries), so that a long journal costs what the answer needs.
    /// Only entries `trusted` accepts are kept: anyone may write `JOB=` or `JOBD_EVENT=`.
    package static func jobHistory(
        of job: String, in source: Source, runs: Int, limit: Int = 200_000, trusted: (JournalEntry) -> Bool
    ) throws(SystemdError) -> [JournalEntry] {
        let reader = try JournalReader(source)
        try reader.addMatch("SYSLOG_IDENTIFIER", "jobd")
        try reader.addMatch("JOB", job)
        try reader.addDisjunction()
        try reader.addMatch("SYSLOG_IDENTIFIER", "jobd")
        for event in ["daemon.start", "daemon.stop", "daemon.exit", "clock.change"] { try reader.addMatch("JOBD_EVENT", event) }
        try reader.seekTail()
        var entries: [JournalEntry] = []
        var seen: Set<String> = []
        var read = 0
        while read < limit, let entry = try reader.previous() {
            read += 1
            guard trusted(entry) else { continue }
            if let run = entry["JOBD_RUN_ID"], seen.insert(run).inserted, seen.count > runs {
                // One run too many, and its newest entry: stop before it, so no run is kept in part.
                break
            }
            entries.append(entry)
        }
        return entries.reversed()
    }
}
