/// The result of a lifecycle audit: one report per jobd instance, and the verdict over all.
///
/// Encoded as JSON (``jsonData()``) it is `jobctl audit --json`'s output; the schema is documented
/// there, and only grows: fields are added, never renamed.
package struct AuditReport: Sendable, Hashable, Codable {
    /// The version of the JSON schema; raised only if a field changes meaning.
    package static let currentSchemaVersion = 1

    /// ``currentSchemaVersion`` when made by this library.
    package var schemaVersion: Int
    /// The grace period a retired owner has to be released, in microseconds.
    package var leakGraceUSec: UInt64
    /// Entries read.
    package var entries: Int
    /// Entries read without `JOBD_INSTANCE`, ignored.
    package var unattributedEntries: Int
    /// The end of the journal the grace periods were measured to, when known.
    package var journalEnd: JournalInstant?
    /// One report per instance, in the order of their first entries.
    package var instances: [InstanceReport]
    /// jobd entries that could not be read, over all instances (each instance lists its first few).
    package var malformedEntries: Int
    /// The worst instance verdict; ``AuditVerdict/clean`` for a journal without jobd entries.
    package var verdict: AuditVerdict
    /// What `jobctl audit` exits with: 1 when ``verdict`` is ``AuditVerdict/failed``, 3 when it is
    /// ``AuditVerdict/suspect``, else 0.
    package var exitCode: Int32
    /// Entries that named themselves jobd's (`SYSLOG_IDENTIFIER=jobd`, `JOBD_INSTANCE`, …) but whose
    /// trusted fields say another process wrote them: left out of every instance.
    package var foreignEntries: Int = 0
    /// The first few of them: their `_UID`, `_PID`, event and why they are foreign.
    package var foreignExamples: [String] = []

    /// Makes a report; ``verdict`` and ``exitCode`` follow from the instances.
    package init(
        leakGraceUSec: UInt64, entries: Int, unattributedEntries: Int, journalEnd: JournalInstant?,
        instances: [InstanceReport], foreignEntries: Int = 0, foreignExamples: [String] = []
    ) {
        schemaVersion = Self.currentSchemaVersion
        self.leakGraceUSec = leakGraceUSec
        self.entries = entries
        self.unattributedEntries = unattributedEntries
        self.journalEnd = journalEnd
        self.instances = instances
        malformedEntries = instances.reduce(0) { $0 + $1.malformedEntries }
        self.foreignEntries = foreignEntries
        self.foreignExamples = foreignExamples
        verdict = max(instances.map(\.verdict).max() ?? .clean, foreignEntries > 0 ? .suspect : .clean)
        exitCode = verdict == .failed ? 1 : verdict == .suspect ? 3 : 0
    }

    /// Every problem of every instance.
    package var problems: [AuditProblem] { instances.flatMap(\.problems) }
}
