/// The timestamps `systemd-analyze --base-time` accepts (systemd's `parse_timestamp`), the
/// commonly used subset:
///
/// - `now`, `today`, `yesterday`, `tomorrow` (midnight in the local zone), `epoch`;
/// - `@SECONDS[.FRACTION]` since the epoch;
/// - `+SPAN`, `-SPAN`, `SPAN ago`, `SPAN left` relative to now, spans like `5min`, `1h 30min`;
/// - `[WEEKDAY] [YY]YY-MM-DD [HH:MM[:SS[.FRACTION]]] [ZONE]` or `HH:MM[:SS]` (today), where ZONE
///   is `UTC`, the local zone's abbreviation, or a tzdata name such as `Europe/Berlin`.
package enum BaseTime {
    package static func parse(_ text: String, now: RealtimeInstant, zone: TimeZoneRules) throws(CalendarError) -> RealtimeInstant {
        func fail(_ expected: String) -> CalendarError {
            CalendarError(code: .invalidTimestamp, input: text, expected: expected)
        }
        let day: Int64 = 86_400 * RealtimeInstant.microsecondsPerSecond
        switch text {
        case "now": return now
        case "epoch": return RealtimeInstant(microseconds: 0)
        case "today", "yesterday", "tomorrow":
            let midnight = localMidnight(of: now, in: zone)
            let shift: Int64 = text == "today" ? 0 : (text == "yesterday" ? -1 : 1)
            return localInstant(BrokenDownTime(localSeconds: midnight + shift * 86_400), in: zone)
                ?? RealtimeInstant(microseconds: now.microseconds + shift * day)
        default: break
        }
        if text.hasPrefix("@") {
            guard let value = decimalMicroseconds(String(text.dropFirst())) else {
                throw fail("whole or fractional seconds since the epoch after '@'")
            }
            return RealtimeInstant(microseconds: value)
        }
        if text.hasPrefix("+") || text.hasPrefix("-") {
            guard let span = timeSpan(String(text.dropFirst())) else { throw fail("a time span such as 5min") }
            return RealtimeInstant(microseconds: now.microseconds + (text.hasPrefix("+") ? span : -span))
        }
        for (suffix, sign) in [(" ago", Int64(-1)), (" left", 1)] where text.hasSuffix(suffix) {
            guard let span = timeSpan(String(text.dropLast(suffix.count))) else {
                throw fail("a time span such as 5min before '\(suffix.dropFirst())'")
            }
            return RealtimeInstant(microseconds: now.microseconds + sign * span)
        }
        return try absolute(text, now: now, zone: zone, fail: fail)
    }

    private static func absolute(
        _ text: String, now: RealtimeInstant, zone: TimeZoneRules, fail: (String) -> CalendarError
    ) throws(CalendarError) -> RealtimeInstant {
        var words = text.split(separator: " ").map(String.init)
        var timeZone = zone
        var isUTC = false
        if let last = words.last, words.count > 1 {
            if last.uppercased() == "UTC" || last == "Z" {
                isUTC = true
                words.removeLast()
            } else if last == zone.data.standardName || last == zone.data.daylightName {
                words.removeLast()
            } else if CalendarSpecParser.isValidTimeZoneName(last), let named = try? TimeZoneRules.load(named: last) {
                timeZone = named
                words.removeLast()
            }
        }
        var weekday: Int?
        if let first = words.first, let index = TimestampFormat.weekdayNames.firstIndex(where: {
            first.lowercased().hasPrefix($0.lowercased())
        }), first.first?.isLetter == true {
            weekday = index
            words.removeFirst()
        }
        guard !words.isEmpty, words.count <= 2 else {
            throw fail("[WEEKDAY] YYYY-MM-DD [HH:MM[:SS]] [ZONE], HH:MM[:SS], @SECONDS, now, today, tomorrow or yesterday")
        }
        var tm: BrokenDownTime
        var fraction: Int64 = 0
        var timeWord: String?
        if words[0].contains("-") {
            let parts = words[0].split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
                parts[0].count == 2 || parts[0].count == 4, (1...12).contains(m),
                d >= 1, d <= CivilCalendar.daysInMonth(year: parts[0].count == 2 ? 2000 + y : y, month: m)
            else { throw fail("a date YYYY-MM-DD") }
            let year = parts[0].count == 2 ? (y < 70 ? 2000 + y : 1900 + y) : y
            tm = BrokenDownTime(year: year, month: m - 1, day: d, hour: 0, minute: 0, second: 0)
            timeWord = words.count == 2 ? words[1] : nil
        } else {
            guard words.count == 1 else { throw fail("a date YYYY-MM-DD before the time") }
            let local = now.seconds + (isUTC ? 0 : Int64(timeZone.offset(at: now)))
            tm = BrokenDownTime(localSeconds: local - CivilCalendar.floorMod(local, 86_400))
            timeWord = words[0]
        }
        if let timeWord {
            let parts = timeWord.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 || parts.count == 3, let h = Int(parts[0]), let m = Int(parts[1]),
                (0...23).contains(h), (0...59).contains(m)
            else { throw fail("a time HH:MM[:SS]") }
            tm.hour = h
            tm.minute = m
            if parts.count == 3 {
                let secondParts = parts[2].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
                guard let s = Int(secondParts[0]), (0...59).contains(s) else { throw fail("seconds from 00 to 59") }
                tm.second = s
                if secondParts.count == 2 {
                    guard let value = decimalMicroseconds("0." + secondParts[1]) else { throw fail("a fraction of a second") }
                    fraction = value
                }
            }
        }
        let instant: RealtimeInstant
        if isUTC {
            instant = RealtimeInstant(seconds: tm.localSeconds)
        } else {
            guard let local = localInstant(tm, in: timeZone) else { throw fail("a local time that exists") }
            instant = local
        }
        if let weekday, BrokenDownTime(localSeconds: tm.localSeconds).weekday != weekday {
            throw fail("a weekday that matches the date")
        }
        return RealtimeInstant(microseconds: instant.microseconds + fraction)
    }

    private static func localMidnight(of instant: RealtimeInstant, in zone: TimeZoneRules) -> Int64 {
        let local = instant.seconds + Int64(zone.offset(at: instant))
        return local - CivilCalendar.floorMod(local, 86_400)
    }

    /// `mktime` with `tm_isdst = -1`, as systemd does for a parsed timestamp.
    private static func localInstant(_ tm: BrokenDownTime, in zone: TimeZoneRules) -> RealtimeInstant? {
        var tm = tm
        tm.isDaylightSaving = -1
        let guessInstant = tm.localSeconds
        var clock = LocalClock(zone: zone.data, offsetGuess: zone.data.offset(atSeconds: guessInstant))
        return clock.normalize(&tm).map { RealtimeInstant(seconds: $0) }
    }

    /// `12`, `12.5` as microseconds.
    static func decimalMicroseconds(_ text: String) -> Int64? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCII), let seconds = Int64(whole),
            seconds >= 0, seconds < 1 << 43
        else { return nil }
        var value = seconds * RealtimeInstant.microsecondsPerSecond
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            let padded = (digits + "000000").prefix(6)
            value += Int64(padded)!
        }
        return value
    }

    private static let units: [(String, Int64)] = [
        ("usec", 1), ("us", 1), ("msec", 1000), ("ms", 1000), ("seconds", 1_000_000), ("second", 1_000_000),
        ("sec", 1_000_000), ("s", 1_000_000), ("minutes", 60_000_000), ("minute", 60_000_000),
        ("min", 60_000_000), ("months", 2_629_800_000_000), ("month", 2_629_800_000_000),
        ("M", 2_629_800_000_000), ("m", 60_000_000), ("hours", 3_600_000_000), ("hour", 3_600_000_000),
        ("hr", 3_600_000_000), ("h", 3_600_000_000), ("days", 86_400_000_000), ("day", 86_400_000_000),
        ("d", 86_400_000_000), ("weeks", 604_800_000_000), ("week", 604_800_000_000), ("w", 604_800_000_000),
        ("years", 31_557_600_000_000), ("year", 31_557_600_000_000), ("y", 31_557_600_000_000),
    ]

    /// `5min`, `1h 30min`, `90` (seconds): systemd's `parse_sec`, the common units.
    static func timeSpan(_ text: String) -> Int64? {
        var rest = Substring(text)
        var total: Int64 = 0
        var sawAny = false
        while true {
            rest = rest.drop(while: { $0 == " " })
            if rest.isEmpty { return sawAny ? total : nil }
            let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
            guard let number = Int64(digits) else { return nil }
            rest = rest.dropFirst(digits.count).drop(while: { $0 == " " })
            var multiplier: Int64 = 1_000_000
            if let unit = units.first(where: { rest.hasPrefix($0.0) }) {
                multiplier = unit.1
                rest = rest.dropFirst(unit.0.count)
            }
            let (product, overflow) = number.multipliedReportingOverflow(by: multiplier)
            guard !overflow else { return nil }
            total += product
            sawAny = true
        }
    }
}
