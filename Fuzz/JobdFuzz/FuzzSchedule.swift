import JobdCalendar

/// A schedule the calendar and cron targets check alike: what parses must normalize to a text
/// that parses to itself and elapses as the original does.
protocol FuzzSchedule {
    static func read(_ text: String) -> Self?
    var normalized: String { get }
    func nextElapse(after instant: RealtimeInstant, in zone: TimeZoneRules) -> RealtimeInstant?
    /// Whether the normalized form may drop fractions of a second the original elapses at.
    static var normalizingDropsFractions: Bool { get }
}

extension CalendarSpec: FuzzSchedule {
    static func read(_ text: String) -> CalendarSpec? { try? parse(text) }
    // systemd 252 prints a seconds list holding `0/1` as `*`, dropping fractions beside it
    // (`0:0:0.4,0/1` is `00:00:*`); the normalized form elapses on the original's whole seconds.
    static var normalizingDropsFractions: Bool { true }
}

extension CronSpec: FuzzSchedule {
    static func read(_ text: String) -> CronSpec? { try? parse(text) }
    static var normalizingDropsFractions: Bool { false }
}

/// Where next elapses are computed from: the epoch, today, either side of 2038 and a far year.
private let bases: [RealtimeInstant] = [
    RealtimeInstant(seconds: 0), RealtimeInstant(seconds: 1_795_444_800),
    RealtimeInstant(seconds: 2_147_483_647), RealtimeInstant(seconds: 4_102_444_800),
    RealtimeInstant(seconds: 253_402_214_398),
]
/// A zone with daylight saving time, so that skipped and repeated hours are searched too.
private let zones: [TimeZoneRules] = [.utc, (try? TimeZoneRules.load(named: "Europe/Berlin")) ?? .utc]

extension FuzzSchedule {
    /// Parses `text`; if it parses, checks its normalized form and its next elapses.
    static func evaluate(_ text: String) {
        guard let spec = read(text) else { return }
        let normalized = spec.normalized
        guard let again = read(normalized) else {
            fatalError("invariant broken: the normalized form '\(normalized)' of '\(text)' does not parse")
        }
        FuzzTarget.require(again.normalized == normalized, "'\(normalized)' normalizes to '\(again.normalized)'")
        for zone in zones {
            for base in bases {
                let next = spec.nextElapse(after: base, in: zone)
                if let next { FuzzTarget.require(next > base, "'\(text)' elapses at \(next) after \(base)") }
                let normalizedNext = again.nextElapse(after: base, in: zone)
                guard normalizedNext != next else { continue }
                let betweenSeconds = normalizingDropsFractions && next.map { next in
                    next.microsecondOfSecond != 0 && normalizedNext.map { $0 > next } ?? true
                } ?? false
                FuzzTarget.require(
                    betweenSeconds,
                    "'\(text)' elapses at \(String(describing: next)), its normalized form '\(normalized)' at "
                        + "\(String(describing: normalizedNext)), after \(base) in \(zone.identifier)")
            }
        }
    }
}
