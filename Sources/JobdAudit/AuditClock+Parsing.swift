import Foundation

extension AuditClock {
    /// Reads a `--since`/`--until` value as microseconds since the epoch. Three forms:
    ///
    /// - `YYYY-MM-DD HH:MM:SS` (or `YYYY-MM-DD HH:MM`, or `YYYY-MM-DD` for midnight), in ``timeZone``;
    /// - `@EPOCH`: seconds since the Unix epoch, fractions allowed (`@1700000000.5`);
    /// - `-N UNIT`: that long before `nowUSec`, with UNIT one of `us`, `ms`, `s`, `min`, `m`, `h`,
    ///   `d`, `w` (`-90s`, `-30min`, `-1h`, `-2d`; no unit means seconds). Only one term.
    /// - Throws: ``AuditError`` with code ``AuditError/Code/invalidTime``.
    public func parse(_ text: String, nowUSec: UInt64) throws(AuditError) -> UInt64 {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let expected = "expected 'YYYY-MM-DD HH:MM:SS', '@EPOCH' or a relative time such as '-1h'"
        if trimmed.hasPrefix("@") {
            guard let seconds = Double(trimmed.dropFirst()), seconds >= 0, seconds < 1e11 else {
                throw AuditError(.invalidTime, context: "'\(text)' is not a number of seconds after '@'; \(expected)")
            }
            return UInt64((seconds * 1_000_000).rounded())
        }
        if trimmed.hasPrefix("-") {
            guard let span = Self.relativeSpan(trimmed.dropFirst()) else {
                throw AuditError(.invalidTime, context: "'\(text)' is not a relative time such as -90s, -30min, -1h, -2d; \(expected)")
            }
            return nowUSec > span ? nowUSec - span : 0
        }
        guard let usec = absolute(trimmed) else {
            throw AuditError(.invalidTime, context: "'\(text)' is not a date and time; \(expected)")
        }
        return usec
    }

    private static func relativeSpan(_ text: Substring) -> UInt64? {
        let digits = text.prefix { $0.isNumber || $0 == "." }
        let unit = text.dropFirst(digits.count).trimmingCharacters(in: .whitespaces)
        guard let value = Double(digits), value >= 0 else { return nil }
        let factors: [String: Double] = [
            "": 1e6, "s": 1e6, "sec": 1e6, "us": 1, "ms": 1e3, "m": 60e6, "min": 60e6,
            "h": 3_600e6, "d": 86_400e6, "w": 604_800e6,
        ]
        guard let factor = factors[unit], value * factor < 1e18 else { return nil }
        return UInt64((value * factor).rounded())
    }

    private func absolute(_ text: String) -> UInt64? {
        let halves = text.split(separator: " ", omittingEmptySubsequences: true)
        guard (1...2).contains(halves.count) else { return nil }
        let date = halves[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        let time = halves.count == 2 ? halves[1].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) } : [0, 0, 0]
        guard date.count == 3, (2...3).contains(time.count), !date.contains(nil), !time.contains(nil) else { return nil }
        var parts = DateComponents()
        parts.year = date[0]
        parts.month = date[1]
        parts.day = date[2]
        parts.hour = time[0]
        parts.minute = time[1]
        parts.second = time.count == 3 ? time[2] : 0
        guard let month = parts.month, (1...12).contains(month), let day = parts.day, (1...31).contains(day),
              let hour = parts.hour, (0...23).contains(hour), let minute = parts.minute, (0...59).contains(minute),
              let second = parts.second, (0...60).contains(second),
              let resolved = calendar.date(from: parts), resolved.timeIntervalSince1970 >= 0 else { return nil }
        // Calendar rolls 31 February over into March; a date that does not exist is an error.
        guard calendar.component(.day, from: resolved) == day else { return nil }
        return UInt64(resolved.timeIntervalSince1970) * 1_000_000
    }
}
