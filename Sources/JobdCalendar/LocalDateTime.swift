/// A wall-clock reading without a zone: 2026-03-29 02:30:00.
package struct LocalDateTime: Sendable, Hashable {
    /// The full year, e.g. 2026.
    package var year: Int
    /// The month, 1...12.
    package var month: Int
    /// The day of the month, 1...31.
    package var day: Int
    /// The hour, 0...23.
    package var hour: Int
    /// The minute, 0...59.
    package var minute: Int
    /// The second, 0...59.
    package var second: Int

    /// Creates a wall-clock reading; fields outside their ranges roll over as `mktime` does.
    package init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    var localSeconds: Int64 {
        CivilCalendar.localSeconds(year: year, month0: month - 1, day: day, hour: hour, minute: minute, second: second)
    }

    /// The day of the week, 0 = Sunday (as `tm_wday`).
    package var weekday: Int {
        CivilCalendar.weekday(dayNumber: CivilCalendar.dayNumber(year: year, month: month, day: day))
    }

    init(_ tm: BrokenDownTime) {
        self.init(year: tm.year, month: tm.month + 1, day: tm.day, hour: tm.hour, minute: tm.minute, second: tm.second)
    }
}

extension TimeZoneRules {
    /// What the zone's clocks show at `instant` (as `localtime_r`).
    package func localDateTime(at instant: RealtimeInstant) -> LocalDateTime {
        LocalDateTime(BrokenDownTime(localSeconds: instant.seconds + Int64(offset(at: instant))))
    }

    /// All the instants at which the zone's clocks show `local`.
    package func resolve(_ local: LocalDateTime) -> LocalTimeResolution {
        data.resolve(localSeconds: local.localSeconds)
    }

    /// The instant of `local` as systemd computes it (glibc `mktime` with `tm_isdst = -1`): a
    /// repeated reading is the first pass; a skipped one is read with the offset from before the
    /// jump, so 02:30 on a spring-forward night in Europe/Berlin is 03:30 CEST.
    package func instant(for local: LocalDateTime) -> RealtimeInstant {
        let seconds = local.localSeconds
        var clock = LocalClock(zone: data, offsetGuess: data.offset(atSeconds: seconds - 86_400))
        var tm = BrokenDownTime(localSeconds: seconds)
        tm.isDaylightSaving = -1
        let result = clock.normalize(&tm) ?? (seconds - data.offset(atSeconds: seconds))
        return RealtimeInstant(seconds: result)
    }
}

extension ZoneData {
    /// The instants whose local reading is `local` (local seconds since the epoch). Assumes at most
    /// one offset change within a day of it, which holds for every tzdata zone.
    func resolve(localSeconds local: Int64) -> LocalTimeResolution {
        let offsetBefore = offset(atSeconds: local - 86_400)
        let offsetAfter = offset(atSeconds: local + 86_400)
        var instants: [Int64] = []
        for offset in [offsetBefore, offsetAfter] {
            let candidate = local - offset
            if self.offset(atSeconds: candidate) == offset && !instants.contains(candidate) {
                instants.append(candidate)
            }
        }
        instants.sort()
        switch instants.count {
        case 1:
            return .unique(RealtimeInstant(seconds: instants[0]))
        case 2:
            return .repeated(first: RealtimeInstant(seconds: instants[0]), second: RealtimeInstant(seconds: instants[1]))
        default:
            // The jump lies between the two readings of `local`.
            let jump = nextTransition(afterSeconds: local - offsetAfter) ?? (local - offsetBefore)
            return .skipped(transition: RealtimeInstant(seconds: jump))
        }
    }
}
