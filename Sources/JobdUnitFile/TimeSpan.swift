/// A time span in systemd's syntax (systemd.time(7)): `90s`, `5min 30s`, `1h`, `250ms`, `1.5h`,
/// a bare number meaning seconds, or `infinity`. Microsecond resolution, as systemd's.
/// `systemd-analyze timespan` is the reference this is tested against.
package struct TimeSpan: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Microseconds; `UInt64.max` is infinity.
    package var microseconds: UInt64

    package static let infinity = TimeSpan(microseconds: .max)
    package static let zero = TimeSpan(microseconds: 0)

    package init(microseconds: UInt64) {
        self.microseconds = microseconds
    }

    /// `seconds` seconds; beyond what microseconds hold, infinity rather than a trap.
    package static func seconds(_ seconds: UInt64) -> TimeSpan {
        let (microseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        return overflow ? .infinity : TimeSpan(microseconds: microseconds)
    }

    package var isInfinite: Bool { microseconds == .max }

    /// The span as a `Duration`; infinity becomes the largest representable one.
    package var duration: Duration {
        isInfinite ? .seconds(Int64.max) : .microseconds(Int64(clamping: microseconds))
    }

    package static func < (lhs: TimeSpan, rhs: TimeSpan) -> Bool { lhs.microseconds < rhs.microseconds }

    /// Units by the prefix they are written with; longer spellings come first so that, as in
    /// systemd, `min` is not read as `m` followed by garbage.
    private static let units: [(String, UInt64)] = [
        ("seconds", 1_000_000), ("second", 1_000_000), ("sec", 1_000_000), ("s", 1_000_000),
        ("minutes", 60_000_000), ("minute", 60_000_000), ("min", 60_000_000),
        ("months", 2_629_800_000_000), ("month", 2_629_800_000_000), ("M", 2_629_800_000_000),
        ("msec", 1_000), ("ms", 1_000), ("m", 60_000_000),
        ("hours", 3_600_000_000), ("hour", 3_600_000_000), ("hr", 3_600_000_000), ("h", 3_600_000_000),
        ("days", 86_400_000_000), ("day", 86_400_000_000), ("d", 86_400_000_000),
        ("weeks", 604_800_000_000), ("week", 604_800_000_000), ("w", 604_800_000_000),
        ("years", 31_557_600_000_000), ("year", 31_557_600_000_000), ("y", 31_557_600_000_000),
        ("usec", 1), ("us", 1), ("µs", 1), ("μs", 1),
    ]

    /// The longest finite span jobd accepts: 100 years. The scheduler counts in nanoseconds of
    /// `CLOCK_MONOTONIC` (292 years fit in `Int64`); a deadline adds at most an `On*Sec=` span,
    /// a `RandomizedDelaySec=` draw and `AccuracySec=` rounding to the time since boot, so three
    /// spans at this bound still fit. systemd takes up to 584,542 years; no schedule needs that.
    package static let maximum = TimeSpan(microseconds: 100 * 31_557_600_000_000)

    /// Parses `text`; the error says what was expected. A finite span above ``maximum`` is an
    /// error that names the maximum.
    package static func parse(_ text: String) throws(TimeSpanError) -> TimeSpan {
        let trimmed = Substring(text).trimmingWhitespace()
        if trimmed == "infinity" { return .infinity }
        guard !trimmed.isEmpty else { throw TimeSpanError(text: text, reason: "it is empty") }
        let tooLarge = TimeSpanError(
            text: text, reason: "it is longer than \(maximum), the longest span jobd accepts (or write infinity where it is allowed)")
        func isDigit(_ scalar: Unicode.Scalar?) -> Bool { scalar.map { $0 >= "0" && $0 <= "9" } ?? false }
        var rest = trimmed.unicodeScalars[...]
        var total: UInt64 = 0
        while true {
            while rest.first == " " || rest.first == "\t" { rest = rest.dropFirst() }
            guard !rest.isEmpty else { break }
            // systemd reads each number with strtoll, which takes a leading '+': `+3.1s` is 3.1 s.
            if rest.first == "+", isDigit(rest.dropFirst().first) { rest = rest.dropFirst() }
            let digits = rest.prefix { isDigit($0) }
            rest = rest.dropFirst(digits.count)
            var fraction = Substring.UnicodeScalarView()
            if rest.first == "." {
                rest = rest.dropFirst()
                fraction = rest.prefix { isDigit($0) }
                rest = rest.dropFirst(fraction.count)
                guard !fraction.isEmpty else {
                    throw TimeSpanError(text: text, reason: "a '.' must be followed by digits")
                }
            }
            guard !digits.isEmpty || !fraction.isEmpty else {
                throw TimeSpanError(text: text, reason: "expected a number at '\(String(String.UnicodeScalarView(rest)))'")
            }
            let beforeSpace = rest.count
            while rest.first == " " || rest.first == "\t" { rest = rest.dropFirst() }
            var multiplier: UInt64 = 1_000_000
            let restText = String(String.UnicodeScalarView(rest))
            if let unit = units.first(where: { restText.hasPrefix($0.0) }) {
                multiplier = unit.1
                rest = rest.dropFirst(unit.0.unicodeScalars.count)
            } else if !rest.isEmpty, rest.count == beforeSpace || rest.first!.properties.isAlphabetic {
                // A number without a unit means seconds, but only at the end or before white space.
                throw TimeSpanError(
                    text: text,
                    reason: "unknown unit at '\(restText)'; expected us, ms, s, min, h, d, w, M or y")
            }
            // Every step is checked: a number of any length is an error, never a trap.
            var whole: UInt64 = 0
            for digit in digits {
                let (shifted, overflow1) = whole.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = shifted.addingReportingOverflow(UInt64(digit.value - 48))
                guard !overflow1, !overflow2 else { throw tooLarge }
                whole = sum
            }
            let (wholePart, overflow) = whole.multipliedReportingOverflow(by: multiplier)
            guard !overflow else { throw tooLarge }
            var fractionPart: UInt64 = 0
            var scale = multiplier
            for digit in fraction {
                scale /= 10
                guard scale > 0 else { break }
                fractionPart += UInt64(digit.value - 48) * scale  // at most multiplier - 1 in all
            }
            let (part, overflow2) = wholePart.addingReportingOverflow(fractionPart)
            let (sum, overflow3) = total.addingReportingOverflow(part)
            guard !overflow2, !overflow3, sum <= maximum.microseconds else { throw tooLarge }
            total = sum
        }
        return TimeSpan(microseconds: total)
    }

    /// As systemd prints spans: `1h 30min`, `500ms`, `infinity`, `0`.
    package var description: String {
        if isInfinite { return "infinity" }
        if microseconds == 0 { return "0" }
        let table: [(String, UInt64)] = [
            ("y", 31_557_600_000_000), ("month", 2_629_800_000_000), ("w", 604_800_000_000),
            ("d", 86_400_000_000), ("h", 3_600_000_000), ("min", 60_000_000), ("s", 1_000_000),
            ("ms", 1_000), ("us", 1),
        ]
        var rest = microseconds
        var parts: [String] = []
        for (name, size) in table where rest >= size {
            parts.append("\(rest / size)\(name)")
            rest %= size
        }
        return parts.joined(separator: " ")
    }

    /// The span as systemd writes a duration (`format_timespan` with an accuracy): units down to
    /// `accuracy`, and under a minute the last one with a decimal fraction: `2.013s`, `1min 5.200s`,
    /// `11.471ms` at 1 ms's accuracy — what a run took, without microseconds nobody reads.
    package func description(accuracy: TimeSpan) -> String {
        if isInfinite { return "infinity" }
        let accuracy = max(accuracy.microseconds, 1)
        var rest = microseconds
        if rest == 0 { return "0" }
        let table: [(String, UInt64)] = [
            ("y", 31_557_600_000_000), ("month", 2_629_800_000_000), ("w", 604_800_000_000),
            ("d", 86_400_000_000), ("h", 3_600_000_000), ("min", 60_000_000), ("s", 1_000_000),
            ("ms", 1_000), ("us", 1),
        ]
        var parts: [String] = []
        for (name, size) in table {
            if rest == 0 || rest < accuracy && !parts.isEmpty { break }
            guard rest >= size else { continue }
            let whole = rest / size
            var fraction = rest % size
            // Under a minute, the rest goes after a point, to as many digits as the accuracy allows.
            if rest < 60_000_000, fraction > 0 {
                var digits = 0
                var unit = size
                while unit > 1 { unit /= 10; digits += 1 }
                var step = accuracy
                while step > 1 { step /= 10; fraction /= 10; digits -= 1 }
                if digits > 0 {
                    let text = String(fraction)
                    parts.append("\(whole).\(String(repeating: "0", count: max(0, digits - text.count)) + text)\(name)")
                    rest = 0
                    break
                }
            }
            parts.append("\(whole)\(name)")
            rest %= size
        }
        return parts.isEmpty ? "0" : parts.joined(separator: " ")
    }
}

/// A time span that could not be read.
package struct TimeSpanError: Error, Sendable, Hashable, CustomStringConvertible {
    package var text: String
    package var reason: String
    package var description: String { "invalid time span '\(text)': \(reason)" }

    // Written out: a memberwise initializer is internal, and jobd.conf's readers are another module.
    package init(text: String, reason: String) {
        self.text = text
        self.reason = reason
    }
}
