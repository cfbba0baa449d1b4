import JobdConfig

/// One job's runs in flight, by run number, in ``RunAdmission``'s table of jobs. Most jobs have one
/// run at a time: it is kept in an allocation of its own the size of the run, and a dictionary is
/// made only for a second run at once; a dictionary for a single run took 440 bytes (issue 39).
struct JobRunsInFlight: Sendable {
    @OutOfLine private var first: RunAdmission.RunInFlight? = nil
    private var more: [UInt64: RunAdmission.RunInFlight] = [:]

    var isEmpty: Bool { first == nil && more.isEmpty }

    /// The runs, in no order.
    var values: [RunAdmission.RunInFlight] {
        guard let first else { return Array(more.values) }
        return more.isEmpty ? [first] : [first] + more.values
    }

    subscript(runID: UInt64) -> RunAdmission.RunInFlight? {
        if let first, first.request.runID == runID { return first }
        return more.isEmpty ? nil : more[runID]
    }

    /// Adds `run`, or replaces the run of its number.
    mutating func insert(_ run: RunAdmission.RunInFlight) {
        if first == nil || first?.request.runID == run.request.runID, more[run.request.runID] == nil {
            first = run
        } else {
            more[run.request.runID] = run
        }
    }

    /// Removes the run `runID`; `nil` when it is not in flight.
    mutating func remove(runID: UInt64) -> RunAdmission.RunInFlight? {
        if let first, first.request.runID == runID {
            self.first = nil
            return first
        }
        let removed = more.removeValue(forKey: runID)
        // As the admission's own tables: the room of a burst is not kept once it has gone.
        if more.isEmpty { more = [:] }
        return removed
    }
}
