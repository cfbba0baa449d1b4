import ArgumentParser
import Glibc
package import JobdCalendar
import JobdConfig

/// A `--since`/`--until` value read as journalctl reads it (systemd.time(7), "PARSING TIMESTAMPS";
/// `systemd-analyze timestamp` is the reference, and the tests compare with it):
///
/// - `now`, `today`, `yesterday`, `tomorrow` (midnight, local time);
/// - `YYYY-MM-DD HH:MM:SS[.ffffff]`, with the seconds, the time or the date left out (`2026-11-23`,
///   `2026-11-23 10:00`, `10:00` for today), a two-digit year (`26-11-23`), an optional weekday in
///   front (`Mon 2026-11-23 10:00`, checked) and an optional ` UTC` at the end; otherwise local time;
/// - `@EPOCH[.fraction]`: seconds since 1970;
/// - a time span (systemd.time's syntax, `1h 30min`) before or after now: `-1h`, `+5min`,
///   `5min ago`, `5min left`.
package struct JournalTime: Sendable {
    /// Why a value was not a time.
    package struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        package var description: String
    }

    package let timeZone: TimeZoneRules

    package init(timeZone: TimeZoneRules = .current()) { self.timeZone = timeZone }

    static let expected = "expected 'YYYY-MM-DD [HH:MM[:SS]]', 'HH:MM[:SS]', 'today', 'yesterday', 'now', "
        + "'@EPOCH', or a span before or after now such as '-1h', '+5min', '30min ago'"

    /// Microseconds since the epoch of `text`, given the time now.
    package func parse(_ text: String, nowUSec: UInt64) throws(Failure) -> UInt64 {
        let trimmed = Self.trimmingBlanks(text)
        func fail(_ why: String) -> Failure { Failure(description: "'\(text)' is not a time: \(why); \(Self.expected)") }
        switch trimmed {
        case "now": return nowUSec
        case "today": return try midnight(of: nowUSec, addingDays: 0)
        case "yesterday": return try midnight(of: nowUSec, addingDays: -1)
        case "tomorrow": return try midnight(of: nowUSec, addingDays: 1)
        default: break
        }
        if trimmed.hasPrefix("@") {
            guard let seconds = Double(trimmed.dropFirst()), seconds >= 0, seconds < 1e11 else {
                throw fail("expected seconds after '@'")
            }
            return UInt64((seconds * 1_000_000).rounded())
        }
        if let (span, sign) = Self.relative(trimmed) {
            let usec: UInt64
            do { usec = try TimeSpan.parse(String(span)).microseconds } catch { throw fail(error.reason) }
            guard usec != TimeSpan.infinity.microseconds else { throw fail("infinity is not a time") }
            return sign < 0 ? (nowUSec > usec ? nowUSec - usec : 0) : nowUSec &+ usec
        }
        return try absolute(trimmed, nowUSec: nowUSec, fail: fail)
    }

    /// The span and its direction of a relative time, or `nil` if `text` is not one.
    private static func relative(_ text: String) -> (Substring, Int)? {
        if text.hasPrefix("-") { return (text.dropFirst(), -1) }
        if text.hasPrefix("+") { return (text.dropFirst(), 1) }
        if text.hasSuffix(" ago") { return (text.dropLast(4), -1) }
        if text.hasSuffix(" left") { return (text.dropLast(5), 1) }
        return nil
    }

    /// `text` without the spaces and tabs around it (Foundation's `.whitespaces`: tab and the
    /// Unicode space separators).
    private static func trimmingBlanks(_ text: String) -> String {
        func isBlank(_ character: Character) -> Bool {
            character.unicodeScalars.allSatisfy { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
        }
        guard let first = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return String(text[first...last])
    }

    private func midnight(of usec: UInt64, addingDays days: Int) throws(Failure) -> UInt64 {
        let today = timeZone.localDateTime(at: RealtimeInstant(microseconds: Int64(clamping: usec)))
        // Day numbers past the month's end roll over, as mktime's do.
        let midnight = timeZone.instant(for: LocalDateTime(year: today.year, month: today.month, day: today.day + days))
        return UInt64(max(0, midnight.seconds)) * 1_000_000
    }

    private static let weekdays = [
        ["sun", "sunday"], ["mon", "monday"], ["tue", "tuesday"], ["wed", "wednesday"],
        ["thu", "thursday"], ["fri", "friday"], ["sat", "saturday"],
    ]

    /// `[WEEKDAY ][DATE][ TIME][ UTC]`, as systemd's `parse_timestamp` tries its formats.
    private func absolute(_ text: String, nowUSec: UInt64, fail: (String) -> Failure) throws(Failure) -> UInt64 {
        var words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        var zone = timeZone
        if words.last == "UTC" {
            zone = .utc
            words.removeLast()
        }
        var weekday: Int?
        if let first = words.first, let index = Self.weekdays.firstIndex(where: { $0.contains(first.lowercased()) }) {
            weekday = index  // 0 is Sunday
            words.removeFirst()
        }
        guard (1...2).contains(words.count) else { throw fail("expected a date, a time, or both") }
        let now = RealtimeInstant(seconds: Int64(nowUSec / 1_000_000))
        var local = zone.localDateTime(at: now)
        var timeWord: String?
        if words[0].contains("-") {
            guard let (year, month, day) = Self.date(words[0]) else { throw fail("expected the date as YYYY-MM-DD") }
            local.year = year
            local.month = month
            local.day = day
            timeWord = words.count == 2 ? words[1] : nil
        } else {
            guard words.count == 1 else { throw fail("expected the date as YYYY-MM-DD") }
            timeWord = words[0]
        }
        var microseconds = 0
        if let timeWord {
            guard let (hour, minute, second, fraction) = Self.time(timeWord) else {
                throw fail("expected the time as HH:MM or HH:MM:SS")
            }
            local.hour = hour
            local.minute = minute
            local.second = second
            microseconds = fraction
        } else {
            local.hour = 0
            local.minute = 0
            local.second = 0
        }
        // A wall-clock time that occurs twice (the hour repeated when summer time ends): as mktime
        // with the daylight saving flag of the time now, which is what systemd passes it. One that
        // never occurs (skipped when summer time starts) is read with the offset from before.
        let resolved: RealtimeInstant
        switch zone.resolve(local) {
        case .unique(let instant): resolved = instant
        case .repeated(let first, let second): resolved = zone.localTimeType(at: now).isDaylightSaving ? first : second
        case .skipped: resolved = zone.instant(for: local)
        }
        guard resolved.seconds >= 0, zone.localDateTime(at: resolved).day == local.day else {
            throw fail("no such date")
        }
        if let weekday, zone.localDateTime(at: resolved).weekday != weekday {
            let name = Self.weekdays[weekday][1]
            throw fail("that date is not a \(name.prefix(1).uppercased() + name.dropFirst())")
        }
        return UInt64(resolved.seconds) * 1_000_000 + UInt64(microseconds)
    }

    /// `YYYY-MM-DD` or `YY-MM-DD` (69 to 99 are 19YY, as strptime's `%y`).
    private static func date(_ word: String) -> (Int, Int, Int)? {
        let fields = word.split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count == 3, fields.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              var year = Int(fields[0]), let month = Int(fields[1]), let day = Int(fields[2]),
              fields[0].count == 2 || fields[0].count == 4, (1...12).contains(month), (1...31).contains(day) else { return nil }
        if fields[0].count == 2 { year += year >= 69 ? 1900 : 2000 }
        return (year, month, day)
    }

    /// `HH:MM`, `HH:MM:SS` or `HH:MM:SS.ffffff`: hour, minute, second, microseconds.
    private static func time(_ word: String) -> (Int, Int, Int, Int)? {
        let (clock, fraction) = word.firstIndex(of: ".").map { (word[..<$0], word[word.index(after: $0)...]) }
            ?? (word[...], nil)
        let fields = clock.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count),
              fields.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let hour = Int(fields[0]), let minute = Int(fields[1]), (0...23).contains(hour), (0...59).contains(minute)
        else { return nil }
        let second = fields.count == 3 ? Int(fields[2]) ?? 99 : 0
        guard (0...60).contains(second) else { return nil }
        var microseconds = 0
        if let fraction {
            guard fields.count == 3, !fraction.isEmpty, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            let digits = fraction.prefix(6)
            microseconds = (Int(digits) ?? 0) * [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000][6 - digits.count]
        }
        return (hour, minute, second, microseconds)
    }
}

extension JournalTime {
    /// `--since` and `--until` in microseconds, read in the local time zone at the time now; a
    /// value that is not a time is a usage error.
    static func range(since: String?, until: String?) throws -> (UInt64?, UInt64?) {
        let nowUSec = UInt64(RealtimeInstant.now().microseconds)
        let time = JournalTime()
        do {
            let from = try since.map { text throws(Failure) in try time.parse(text, nowUSec: nowUSec) }
            let to = try until.map { text throws(Failure) in try time.parse(text, nowUSec: nowUSec) }
            return (from, to)
        } catch {
            throw ValidationError(error.description)
        }
    }
}
