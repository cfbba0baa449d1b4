/// What an import did with each line or key of its input: what it wrote, what it carried over
/// with a difference worth knowing, and what it could not carry over.
package struct ImportReport: Sendable, Hashable {
    package enum Kind: String, Sendable, Hashable {
        /// A job file was written for this line.
        case imported
        /// Carried over, with a difference the user should know about.
        case note
        /// Carried over as cron runs it, which is probably not what the crontab's author meant.
        case warning
        /// Not carried over (or not exactly): the import exits 1.
        case notCarriedOver = "not carried over"
        /// A line no job file may be written from (a hidden control character, a value that would
        /// change the job file's lines): nothing is imported, and the import exits 1.
        case refused
    }

    package struct Entry: Sendable, Hashable, CustomStringConvertible {
        /// The 1-based line of the input it is about, if any.
        package var line: Int?
        package var kind: Kind
        package var message: String

        package var description: String { "\(kind.rawValue): \(message)" }
    }

    package var entries: [Entry] = []

    package init() {}

    /// Whether anything could not be carried over.
    package var hasLosses: Bool { entries.contains { $0.kind == .notCarriedOver || $0.kind == .refused } }

    /// Whether a line was refused, so that nothing may be imported.
    package var hasRefusals: Bool { entries.contains { $0.kind == .refused } }

    mutating func add(_ kind: Kind, line: Int?, _ message: String) {
        entries.append(Entry(line: line, kind: kind, message: message))
    }

    /// The report as lines `PATH:LINE: KIND: MESSAGE`, in the order of the input.
    package func lines(path: String) -> [String] {
        entries.enumerated().sorted { ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset) }.map {
            let location = $0.element.line.map { "\(path):\($0)" } ?? path
            return "\(location): \($0.element)"
        }
    }
}
