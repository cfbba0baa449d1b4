import ArgumentParser
package import JobdCalendar
import JobdControl
package import SystemdKit

/// How `jobctl logs` prints a journal entry: `short` as journalctl's short format (the time, the
/// job and its run, the message), `json` as one JSON object per line (every field, as journalctl's
/// `-o json`).
package struct LogEntryFormatter: Sendable {
    package enum Style: String, Sendable, CaseIterable, ExpressibleByArgument {
        case short, json
    }

    package let style: Style
    package let timeZone: TimeZoneRules

    package init(style: Style, timeZone: TimeZoneRules = .current()) {
        self.style = style
        self.timeZone = timeZone
    }

    /// One line, without its newline.
    package func format(_ entry: JournalEntry) -> String {
        switch style {
        case .short: short(entry)
        case .json: Self.json(entry)
        }
    }

    /// `Nov 23 10:00:00 backup #7: MESSAGE` (`#7`: the run within its jobd instance).
    package func short(_ entry: JournalEntry) -> String {
        let stamp = TimestampFormat.shortTimestamp(RealtimeInstant(microseconds: Int64(clamping: entry.realtimeUSec)), in: timeZone)
        let job = entry["JOB"] ?? "jobd"
        let run = entry["JOBD_RUN"].map { " #\($0)" } ?? ""
        return TerminalText.escaped("\(stamp) \(job)\(run): \(entry.message ?? "")")
    }

    /// Every field of the entry as a string, and journalctl's `__REALTIME_TIMESTAMP`,
    /// `__MONOTONIC_TIMESTAMP` and `__CURSOR`, keys sorted (``fieldPrecedes(_:_:)``).
    package static func json(_ entry: JournalEntry) -> String {
        var object = entry.fields
        object["__REALTIME_TIMESTAMP"] = String(entry.realtimeUSec)
        object["__MONOTONIC_TIMESTAMP"] = String(entry.monotonicUSec)
        object["__CURSOR"] = entry.cursor
        object["_BOOT_ID"] = entry.bootID
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        for (name, value) in object.sorted(by: { fieldPrecedes($0.key, $1.key) }) {
            writer.key(name)
            writer.string(value)
        }
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Whether field name `a` comes before `b` in the order `jobctl logs -o json` has always
    /// written them (Foundation's `JSONSerialization` with `.sortedKeys`, a numeric,
    /// case-insensitive collation): `_` before digits before letters, digit runs by their value,
    /// letters whatever their case; ties (`A1`, `A01`) the shorter first. Journal field names are
    /// `[A-Z0-9_]`, for which this is that order exactly.
    static func fieldPrecedes(_ a: String, _ b: String) -> Bool {
        func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        func rank(_ byte: UInt8) -> Int {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): 0x100 + Int(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): 0x200 + Int(byte | 0x20)
            case UInt8(ascii: "a")...UInt8(ascii: "z"): 0x200 + Int(byte)
            case 0x80...: 0x300 + Int(byte)
            default: Int(byte)
            }
        }
        var left = a.utf8[...], right = b.utf8[...]
        while let x = left.first, let y = right.first {
            if isDigit(x) && isDigit(y) {
                let leftRun = left.prefix(while: isDigit), rightRun = right.prefix(while: isDigit)
                let leftValue = leftRun.drop { $0 == UInt8(ascii: "0") }, rightValue = rightRun.drop { $0 == UInt8(ascii: "0") }
                if leftValue.count != rightValue.count { return leftValue.count < rightValue.count }
                if !leftValue.elementsEqual(rightValue) { return leftValue.lexicographicallyPrecedes(rightValue) }
                left = left.dropFirst(leftRun.count)
                right = right.dropFirst(rightRun.count)
                continue
            }
            if rank(x) != rank(y) { return rank(x) < rank(y) }
            left = left.dropFirst()
            right = right.dropFirst()
        }
        if left.isEmpty != right.isEmpty { return left.isEmpty }
        return a.utf8.count != b.utf8.count ? a.utf8.count < b.utf8.count : b.utf8.lexicographicallyPrecedes(a.utf8)
    }
}
