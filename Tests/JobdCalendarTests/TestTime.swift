@testable import JobdCalendar

/// Readable instants for tests: `instant("2026-03-29 00:30:00 UTC")`, or local time in a zone.
func instant(_ text: String, in zone: TimeZoneRules = .utc) -> RealtimeInstant {
    do {
        return try BaseTime.parse(text, now: RealtimeInstant(seconds: 0), zone: zone)
    } catch {
        fatalError("test timestamp '\(text)': \(error)")
    }
}

/// `Sun 2026-03-29 03:00:00 CEST`, as systemd prints it.
func format(_ instant: RealtimeInstant?, in zone: TimeZoneRules) -> String {
    guard let instant else { return "never" }
    return TimestampFormat.timestamp(instant, in: zone)
}

/// The next `count` elapses of a schedule, formatted in `zone`.
func elapses(
    _ count: Int, after start: RealtimeInstant, in zone: TimeZoneRules,
    next: (RealtimeInstant) -> RealtimeInstant?
) -> [String] {
    var result: [String] = []
    var reference = start
    for _ in 0..<count {
        guard let elapse = next(reference) else {
            result.append("never")
            break
        }
        result.append(format(elapse, in: zone))
        reference = elapse
    }
    return result
}
