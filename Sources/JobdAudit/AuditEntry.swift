/// One jobd journal entry, as the audit reads it: the entry's fields and when journald received it.
///
/// The audit does no I/O: `jobctl audit` reads entries with `SystemdKit.JournalReader` and converts
/// each into this type; tests build them by hand.
package struct AuditEntry: Sendable, Hashable {
    /// The entry's fields (`JOBD_EVENT`, `JOBD_INSTANCE`, `JOB`, `JOBD_OWNER`, …).
    package var fields: [String: String]
    /// When the entry was received: realtime, monotonic time and boot.
    package var time: JournalInstant

    /// Makes an entry from its fields and its time.
    package init(fields: [String: String], time: JournalInstant) {
        self.fields = fields
        self.time = time
    }

    /// Makes an entry received at `realtimeUSec` (and, unless given, the same monotonic value) in `bootID`.
    package init(
        _ fields: [String: String], realtimeUSec: UInt64, monotonicUSec: UInt64? = nil,
        bootID: String = JournalInstant.unknownBoot
    ) {
        self.init(fields: fields, time: JournalInstant(
            realtimeUSec: realtimeUSec, monotonicUSec: monotonicUSec ?? realtimeUSec, bootID: bootID))
    }

    /// The value of `field`, if the entry has it.
    package subscript(field: String) -> String? { fields[field] }
}
