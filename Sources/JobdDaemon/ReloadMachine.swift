import JobdConfig
import JobdControl
import JobdScheduler
import JobdTimers
import JobdMetrics

/// Reloads, as decisions: whether the configuration is being read, whether another read follows
/// it (a SIGHUP came meanwhile), which clients wait for which outcome, and the outcomes so far. It
/// reads no clock (the caller passes the time) and answers no client itself: the main loop tells it
/// what happened and performs what it returns.
struct ReloadMachine {
    /// How a reload ended, as the metrics count it.
    enum Outcome {
        /// No error.
        case applied
        /// The valid changes applied; broken files kept their jobs' previous definitions.
        case partial
        /// Nothing read: the directory could not be.
        case rejected
    }

    /// Reloads finished so far.
    private(set) var sequence: UInt64 = 0
    /// The last reload's outcome.
    private(set) var last: ReloadReport?
    private(set) var outcomes = MetricsFile.ReloadOutcomes()
    /// What the last read found in each job file, so that a reload reads and parses only the files
    /// that changed. It travels with the reader while a reload reads.
    private(set) var jobFiles: JobFileCache
    /// Clients waiting for an outcome: those that asked before the read in progress began get its
    /// outcome; those that asked while it reads get the next one's.
    private var watchers: [ControlReply] = []
    private var nextWatchers: [ControlReply] = []
    /// The read in progress: since when, and whether another SIGHUP came meanwhile.
    private var reading: (since: MonotonicInstant, again: Bool)?

    init(jobFiles: JobFileCache) {
        self.jobFiles = jobFiles
    }

    /// A SIGHUP. Returns the cache to read with when a read is to begin now; `nil` when one is in
    /// progress (another follows it).
    mutating func hangUp(now: MonotonicInstant) -> JobFileCache? {
        if reading != nil {
            reading?.again = true
            return nil
        }
        reading = (now, false)
        watchers += nextWatchers
        nextWatchers.removeAll()
        return jobFiles
    }

    /// The reader is back with `cache`. Returns whether another read is to follow this one.
    mutating func read(_ cache: JobFileCache) -> Bool {
        jobFiles = cache
        defer { reading = nil }
        return reading?.again ?? false
    }

    /// The read could not read the configuration at all (`fatal`): nothing changed, and generation
    /// `generation` goes on. Returns the report, numbered, and the clients to answer with it.
    mutating func rejected(_ fatal: ConfigError, generation: UInt64, finishedRealtimeUSec: Int64) -> (report: ReloadReport, watchers: [ControlReply]) {
        finished(ReloadReport(sequence: 0, accepted: false, generation: generation, errors: [fatal.description],
                              finishedRealtimeUSec: finishedRealtimeUSec), as: .rejected)
    }

    /// What the read found was applied as `summary` says, with `errors` in the files it kept out,
    /// each the user's of `owners` (in the same order; `nil`: root's). Only root's make it partial:
    /// an error in a user's own job breaks that job alone, never root's reload (a dangling
    /// `OnFailure=` of a user's made every reload fail). Returns the report, numbered, and the
    /// clients to answer with it.
    mutating func applied(
        _ summary: Scheduler.ReloadSummary, errors: [ConfigError], owners: [ReloadReport.Owner] = [], jobOwners: [String: UInt32] = [:],
        finishedRealtimeUSec: Int64
    ) -> (report: ReloadReport, watchers: [ControlReply]) {
        let owners = owners.count == errors.count ? owners : Array(repeating: .root, count: errors.count)
        let accepted = !owners.contains(.root)
        var report = ReloadReport(sequence: 0, accepted: accepted, generation: summary.generation, added: summary.added,
                                  changed: summary.changed, removed: summary.removed, kept: summary.kept.count,
                                  errors: errors.map(\.description), finishedRealtimeUSec: finishedRealtimeUSec)
        report.errorOwners = owners
        report.jobOwners = jobOwners
        return finished(report, as: accepted ? .applied : .partial)
    }

    /// The configuration read was applied (or rejected) as `report` says, numbered here. Returns
    /// the clients to answer with it.
    mutating func finished(_ report: ReloadReport, as outcome: Outcome) -> (report: ReloadReport, watchers: [ControlReply]) {
        sequence += 1
        var report = report
        report.sequence = sequence
        last = report
        switch outcome {
        case .applied: outcomes.applied += 1
        case .partial: outcomes.partial += 1
        case .rejected: outcomes.rejected += 1
        }
        defer { watchers.removeAll() }
        return (report, watchers)
    }

    /// A client waits for the outcome of the next reload (`jobctl reload` subscribes, then sends SIGHUP).
    mutating func subscribe(_ reply: ControlReply) {
        if reading != nil { nextWatchers.append(reply) } else { watchers.append(reply) }
    }

    /// What a new subscriber hears first: the last outcome, or that none came yet.
    func subscribed(generation: UInt64) -> ReloadReport {
        last ?? ReloadReport(sequence: sequence, accepted: true, generation: generation)
    }

    /// How long the read in progress has been reading, if one is.
    func readingFor(now: MonotonicInstant) -> Duration? {
        reading.map { now.duration(since: $0.since) }
    }

    /// jobd stops: every client still waiting, to be told so.
    mutating func shutdown() -> [ControlReply] {
        defer {
            watchers.removeAll()
            nextWatchers.removeAll()
        }
        return watchers + nextWatchers
    }
}
