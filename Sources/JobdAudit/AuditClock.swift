package import JobdCalendar

/// Writes and reads the times of an audit in one time zone: `YYYY-MM-DD HH:MM:SS` as journalctl
/// shows them, so that an audit's findings can be looked up with `journalctl --since`.
package struct AuditClock: Sendable, Hashable {
    /// The time zone times are written and read in.
    package let timeZone: TimeZoneRules

    /// A clock for `timeZone` (UTC by default, so output does not depend on the machine).
    package init(timeZone: TimeZoneRules = .utc) {
        self.timeZone = timeZone
    }

    /// `YYYY-MM-DD HH:MM:SS.mmm` of `realtimeUSec` (microseconds since the epoch).
    package func describe(realtimeUSec: UInt64) -> String {
        TimestampFormat.dateTimeMilliseconds(RealtimeInstant(microseconds: Int64(clamping: realtimeUSec)), in: timeZone)
    }

    /// ``describe(realtimeUSec:)`` of an instant.
    package func describe(_ instant: JournalInstant) -> String { describe(realtimeUSec: instant.realtimeUSec) }

    /// A span of microseconds for people: `0.25s`, `5s`, `1h 2min 3s`.
    package static func seconds(_ usec: UInt64) -> String {
        if usec < 60_000_000 {
            let hundredths = (usec + 5_000) / 10_000
            let whole = hundredths / 100, fraction = hundredths % 100
            if fraction == 0 { return "\(whole)s" }
            return "\(whole).\(fraction < 10 ? "0" : "")\(fraction % 10 == 0 ? fraction / 10 : fraction)s"
        }
        var left = usec / 1_000_000
        var parts: [String] = []
        for (unit, size) in [("d", UInt64(86_400)), ("h", 3_600), ("min", 60)] where left >= size {
            parts.append("\(left / size)\(unit)")
            left %= size
        }
        if left > 0 { parts.append("\(left)s") }
        return parts.joined(separator: " ")
    }
}
