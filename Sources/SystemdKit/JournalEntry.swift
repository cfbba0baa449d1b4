/// One journal entry read back by ``JournalReader``.
package struct JournalEntry: Sendable, Hashable {
    /// Every field of the entry, trusted ones (`_PID`, `_BOOT_ID`, …) included. When a field occurs
    /// more than once in an entry (rare; the journal allows it), the first value in the entry's
    /// stored order is kept. Values that are not UTF-8 are decoded with replacement characters.
    package let fields: [String: String]
    /// When the entry was received, in microseconds since the Unix epoch (`__REALTIME_TIMESTAMP`).
    package let realtimeUSec: UInt64
    /// `CLOCK_MONOTONIC` of ``bootID`` when the entry was received, in microseconds.
    package let monotonicUSec: UInt64
    /// The boot the monotonic time belongs to, as 32 hex digits.
    package let bootID: String
    /// The entry's cursor: pass it to ``JournalReader/seek(cursor:)`` to resume after it.
    package let cursor: String

    package init(fields: [String: String], realtimeUSec: UInt64, monotonicUSec: UInt64, bootID: String, cursor: String) {
        self.fields = fields
        self.realtimeUSec = realtimeUSec
        self.monotonicUSec = monotonicUSec
        self.bootID = bootID
        self.cursor = cursor
    }

    /// The value of `field`, if the entry has it.
    package subscript(field: String) -> String? { fields[field] }

    /// The entry's `MESSAGE`.
    package var message: String? { fields["MESSAGE"] }

    /// The sequence number of the entry within its journal file's sequence (``seqnumID``), taken from
    /// the cursor's `i=` part: libsystemd 252 has no `sd_journal_get_seqnum` (it arrived in 254).
    /// Consecutive entries of one writer have consecutive numbers, so a gap, or a first entry whose
    /// number is not 1, shows that entries were rotated or vacuumed away.
    package var seqnum: UInt64? { cursorPart("i").flatMap { UInt64($0, radix: 16) } }

    /// The id of the sequence ``seqnum`` counts in (the cursor's `s=` part).
    package var seqnumID: String? { cursorPart("s") }

    private func cursorPart(_ key: Character) -> String? {
        for part in cursor.split(separator: ";") where part.first == key && part.dropFirst().first == "=" {
            return String(part.dropFirst(2))
        }
        return nil
    }
}
