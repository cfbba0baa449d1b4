/// Where jobd's log records go, and why that target was chosen.
package struct LogTarget: Sendable, Hashable, CustomStringConvertible {
    /// The two places records can go.
    package enum Kind: String, Sendable, Hashable {
        /// Native journal entries (``JournalLogHandler``).
        case journal
        /// Readable lines on stderr (``ReadableLogHandler``).
        case stderr
    }

    package let kind: Kind
    /// Why: the override, `JOURNAL_STREAM`, or the journal socket probe.
    package let reason: String

    package init(_ kind: Kind, reason: String) {
        self.kind = kind
        self.reason = reason
    }

    package var description: String { "\(kind.rawValue) (\(reason))" }
}
