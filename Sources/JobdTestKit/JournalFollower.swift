import Foundation
package import SystemdKit

/// Follows a journal from its start and waits for entries, with `sd_journal_wait`: an event, not a
/// sleep. Used inside a private journald's namespace, where the local journal is the private one.
package final class JournalFollower {
    package struct Timeout: Error, CustomStringConvertible {
        package var description: String
    }

    private let reader: JournalReader
    /// Every entry read so far, in order.
    package private(set) var seen: [JournalEntry] = []

    package init(_ source: JournalReader.Source = .local) throws {
        reader = try JournalReader(source)
        try reader.seekHead()
    }

    /// Waits for an entry with `JOBD_EVENT=event` and the given fields, later than any returned before.
    @discardableResult
    package func waitFor(
        event: String, fields: [String: String] = [:], timeout: Duration = .seconds(20)
    ) throws -> JournalEntry {
        let deadline = ContinuousClock.now + timeout
        while true {
            while let entry = try reader.next() {
                seen.append(entry)
                if entry["JOBD_EVENT"] == event, fields.allSatisfy({ entry[$0.key] == $0.value }) { return entry }
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                throw Timeout(description: "no \(event) \(fields) in the journal; last entries:\n"
                    + seen.suffix(20).map { "\($0["JOBD_EVENT"] ?? "-") \($0.message ?? "")" }.joined(separator: "\n"))
            }
            _ = try reader.wait(timeout: left)
        }
    }
}
