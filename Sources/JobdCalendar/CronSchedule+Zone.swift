extension CronSchedule {
    /// The longest offset change looked across: no zone has changed by more than a day at once,
    /// and DST changes are at most two hours.
    private static let changeWindow: Int64 = 4 * 3600

    /// cronie's `CRON_TZ` (see ``CronSpec``): the first real minute after `after` whose wall-clock
    /// time in `zone` matches the fields, leaving out, for a fixed-time job, the minutes in which
    /// the `local` zone repeats an hour.
    func zonedNextElapse(after: Int64, in zone: ZoneData, local: ZoneData) -> Int64? {
        let startLocal = after + zone.offset(atSeconds: after) - Self.changeWindow
        let horizon = startLocal + 400 * 366 * CivilCalendar.secondsPerDay
        var search = startLocal - CivilCalendar.floorMod(startLocal, 60)
        var best: (run: Int64, local: Int64)?
        while let match = firstMatch(atOrAfter: search), match < horizon {
            // A later local time maps to an instant at most a change later than this one.
            if let best, match > best.local + Self.changeWindow { return best.run }
            for run in instants(forLocal: match, in: zone) where run > after && (isWildcard || !isInRepeatedHour(run, of: local)) {
                if best.map({ run < $0.run }) ?? true { best = (run, match) }
            }
            search = match + 60
        }
        return best?.run
    }

    /// Every instant whose wall-clock time in `zone` is `local`: none in a skipped hour, two in a
    /// repeated one.
    private func instants(forLocal local: Int64, in zone: ZoneData) -> [Int64] {
        switch zone.resolve(localSeconds: local) {
        case .unique(let instant): [instant.seconds]
        case .repeated(let first, let second): [first.seconds, second.seconds]
        case .skipped: []
        }
    }

    /// Whether `instant` falls after a backward change of `zone` while its wall clock shows times
    /// it already showed: cronie's clock is then behind the minute it last ran jobs for, and it runs
    /// only wildcard jobs until it catches up.
    private func isInRepeatedHour(_ instant: Int64, of zone: ZoneData) -> Bool {
        var change = zone.nextTransition(afterSeconds: instant - Self.changeWindow - 1)
        while let at = change, at <= instant {
            let back = zone.offset(atSeconds: at - 1) - zone.offset(atSeconds: at)
            if back > 0 && instant < at + back { return true }
            change = zone.nextTransition(afterSeconds: at)
        }
        return false
    }
}
