import ArgumentParser
package import Foundation
package import SystemdKit

/// How `jobctl logs` prints a journal entry: `short` as journalctl's short format (the time, the
/// job and its run, the message), `json` as one JSON object per line (every field, as journalctl's
/// `-o json`).
package struct LogEntryFormatter: Sendable {
    package enum Style: String, Sendable, CaseIterable, ExpressibleByArgument {
        case short, json
    }

    package let style: Style
    package let timeZone: TimeZone

    package init(style: Style, timeZone: TimeZone = .current) {
        self.style = style
        self.timeZone = timeZone
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// One line, without its newline.
    package func format(_ entry: JournalEntry) -> String {
        switch style {
        case .short: short(entry)
        case .json: Self.json(entry)
        }
    }

    /// `Nov 23 10:00:00 backup #7: MESSAGE` (`#7`: the run within its jobd instance).
    package func short(_ entry: JournalEntry) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let date = Date(timeIntervalSince1970: Double(entry.realtimeUSec / 1_000_000))
        let parts = calendar.dateComponents([.month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        let month = Self.months[((parts.month ?? 1) - 1 + 12) % 12]
        let stamp = "\(month) \(two(parts.day)) \(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"
        let job = entry["JOB"] ?? "jobd"
        let run = entry["JOBD_RUN"].map { " #\($0)" } ?? ""
        return TerminalText.escaped("\(stamp) \(job)\(run): \(entry.message ?? "")")
    }

    /// Every field of the entry as a string, and journalctl's `__REALTIME_TIMESTAMP`,
    /// `__MONOTONIC_TIMESTAMP` and `__CURSOR`, keys sorted.
    package static func json(_ entry: JournalEntry) -> String {
        var object = entry.fields
        object["__REALTIME_TIMESTAMP"] = String(entry.realtimeUSec)
        object["__MONOTONIC_TIMESTAMP"] = String(entry.monotonicUSec)
        object["__CURSOR"] = entry.cursor
        object["_BOOT_ID"] = entry.bootID
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
