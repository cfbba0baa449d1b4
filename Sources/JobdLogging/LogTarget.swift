/// Where jobd's log records go, and why that target was chosen.
public struct LogTarget: Sendable, Hashable, CustomStringConvertible {
    /// The two places records can go.
    public enum Kind: String, Sendable, Hashable {
        /// Native journal entries (``JournalLogHandler``).
        case journal
        /// Readable lines on stderr (``ReadableLogHandler``).
        case stderr
    }

    public let kind: Kind
    /// Why: the override, `JOURNAL_STREAM`, or the journal socket probe.
    public let reason: String

    public init(_ kind: Kind, reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var description: String { "\(kind.rawValue) (\(reason))" }
}
