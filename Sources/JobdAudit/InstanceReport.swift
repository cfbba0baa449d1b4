/// Everything the audit found about one run of jobd (one `JOBD_INSTANCE`).
package struct InstanceReport: Sendable, Hashable, Codable {
    /// How the instance's part of the journal ends. The raw values are part of the JSON schema.
    package enum Ending: String, Sendable, Hashable, Codable {
        /// `daemon.stop`, then `daemon.exit`: a clean stop.
        case stopped
        /// `daemon.exit` without `daemon.stop`: jobd gave up at start-up (configuration errors).
        case exited
        /// No `daemon.exit`: jobd is still running, was killed, or the journal was cut (`--until`).
        case cutOff = "cut-off"
    }

    /// `JOBD_INSTANCE`.
    package var instance: String
    /// The boot of its first entry.
    package var bootID: String
    /// Its first entry in the journal read, in microseconds since the epoch.
    package var firstEntryUSec: UInt64
    /// Its last entry in the journal read.
    package var lastEntryUSec: UInt64
    /// `daemon.start`, when present.
    package var startedUSec: UInt64?
    /// The first `daemon.stop`, when present.
    package var stoppedUSec: UInt64?
    /// `daemon.exit`, when present.
    package var exitedUSec: UInt64?
    /// How its journal ends.
    package var ending: Ending
    /// Whether the journal holds the instance from `daemon.start` to `daemon.exit` with every owner's creation.
    package var complete: Bool
    /// Why it is not complete, one sentence each.
    package var incompleteReasons: [String]
    /// `reload.done` events.
    package var reloads: Int
    /// `reload.failed` events: rejected reloads, which leave the running generation untouched.
    package var failedReloads: Int
    /// Its generations, in order.
    package var generations: [GenerationReport]
    /// Every owner of the instance (unknown-origin ones included).
    package var owners: OwnerCounts
    /// Its jobs' timers.
    package var timers: TimerCounts
    /// Owners alive at the end: running, pending or leaked.
    package var unreleasedOwners: [UnreleasedOwner]
    /// What fails the audit.
    package var problems: [AuditProblem]
    /// The instance's verdict.
    package var verdict: AuditVerdict
    /// Its entries that could not be read; any makes the instance incomplete at best.
    package var malformedEntries: Int
    /// The first few of them.
    package var malformedExamples: [MalformedEntry]

    /// Makes a report (the auditor does; tests may).
    package init(
        instance: String, bootID: String, firstEntryUSec: UInt64, lastEntryUSec: UInt64, startedUSec: UInt64?,
        stoppedUSec: UInt64?, exitedUSec: UInt64?, ending: Ending, complete: Bool, incompleteReasons: [String],
        reloads: Int, failedReloads: Int, generations: [GenerationReport], owners: OwnerCounts, timers: TimerCounts,
        unreleasedOwners: [UnreleasedOwner], problems: [AuditProblem], verdict: AuditVerdict,
        malformedEntries: Int = 0, malformedExamples: [MalformedEntry] = []
    ) {
        self.malformedEntries = malformedEntries
        self.malformedExamples = malformedExamples
        self.instance = instance
        self.bootID = bootID
        self.firstEntryUSec = firstEntryUSec
        self.lastEntryUSec = lastEntryUSec
        self.startedUSec = startedUSec
        self.stoppedUSec = stoppedUSec
        self.exitedUSec = exitedUSec
        self.ending = ending
        self.complete = complete
        self.incompleteReasons = incompleteReasons
        self.reloads = reloads
        self.failedReloads = failedReloads
        self.generations = generations
        self.owners = owners
        self.timers = timers
        self.unreleasedOwners = unreleasedOwners
        self.problems = problems
        self.verdict = verdict
    }
}
