extension CronSchedule {
    /// Debian's cron runs skipped fixed-time jobs after a forward jump only when the jump is
    /// shorter than this; longer jumps are treated as the clock being set.
    static let catchUpLimit: Int64 = 3 * 3600

    /// The first instant strictly after `instant` at which cron starts the job. See ``CronSpec``
    /// for how skipped and repeated local times are treated.
    package func nextElapse(after instant: RealtimeInstant, in zone: TimeZoneRules) -> RealtimeInstant? {
        if let own = self.zone { return zonedNextElapse(after: instant.seconds, in: own.data, local: zone.data).map(RealtimeInstant.init(seconds:)) }
        let data = zone.data
        var after = instant.seconds
        // A loop, not recursion: when every match falls in a skipped hour (`* 2 31 3 */7` in
        // Europe/Berlin: a wildcard job on a day whose 02:00 never exists), the search resumes past
        // each change until firstMatch's 400-year horizon, and the answer is "never".
        let horizon = after + 400 * 366 * CivilCalendar.secondsPerDay
        while after < horizon {
            // Far from any offset change, local time is a plain shift of UTC.
            let offset = data.offset(atSeconds: after)
            let nearbyTransition = data.nextTransition(afterSeconds: after - Self.catchUpLimit - 3600)
            if let local = firstMatch(atOrAfter: after + offset + 60 - CivilCalendar.floorMod(after + offset, 60)) {
                let candidate = local - offset
                if nearbyTransition.map({ $0 > candidate }) ?? true {
                    return RealtimeInstant(seconds: candidate)
                }
            } else if nearbyTransition == nil {
                return nil
            }
            let (run, resume) = nextElapseNearTransition(after: after, in: data)
            guard let resume else { return run.map { RealtimeInstant(seconds: $0) } }
            after = resume
        }
        return nil
    }

    /// Walks matching local minutes in order, starting early enough to see a repeated hour, and
    /// keeps the earliest run instant after `after`; or, when no run is near the change, says
    /// where to resume the search (`resume`, later than `after`).
    private func nextElapseNearTransition(after: Int64, in zone: ZoneData) -> (run: Int64?, resume: Int64?) {
        let window = Self.catchUpLimit
        let startLocal = after + zone.offset(atSeconds: after) - window
        var local = startLocal - CivilCalendar.floorMod(startLocal, 60)
        var best: Int64?
        var bestLocal: Int64 = 0
        while let match = firstMatch(atOrAfter: local) {
            if let best, match > bestLocal + window {
                return (best, nil)
            }
            for run in runInstants(forLocal: match, in: zone) where run > after {
                if best.map({ run < $0 }) ?? true {
                    best = run
                    bestLocal = match
                }
            }
            if best == nil && match > startLocal + 4 * window {
                // No run near the change: continue far from it.
                return (nil, match - zone.offset(atSeconds: match))
            }
            local = match + 60
        }
        return (best, nil)
    }

    /// The instants at which cron starts the job for local minute `local`.
    private func runInstants(forLocal local: Int64, in zone: ZoneData) -> [Int64] {
        switch zone.resolve(localSeconds: local) {
        case .unique(let instant):
            return [instant.seconds]
        case .repeated(let first, let second):
            // Repeated by a backward jump: only wildcard jobs run on the second pass.
            return isWildcard ? [first.seconds, second.seconds] : [first.seconds]
        case .skipped(let jump):
            // Skipped by a forward jump: fixed-time jobs catch up right after it, unless the jump
            // is long enough to count as setting the clock.
            let gap = zone.offset(atSeconds: jump.seconds) - zone.offset(atSeconds: jump.seconds - 1)
            guard !isWildcard, gap < Self.catchUpLimit else { return [] }
            return [jump.seconds]
        }
    }

    /// The first local minute (local seconds since the epoch) at or after `local` whose fields
    /// match, searching up to 400 years ahead.
    func firstMatch(atOrAfter local: Int64) -> Int64? {
        var dayNumber = CivilCalendar.floorDivide(local, CivilCalendar.secondsPerDay)
        var minuteOfDay = Int((local - dayNumber * CivilCalendar.secondsPerDay) / 60)
        var (year, month, day) = CivilCalendar.date(dayNumber: dayNumber)
        let lastYear = year + 400
        while year <= lastYear {
            if months & (1 << UInt64(month)) == 0 {
                // Skip to the first of the next month.
                let length = CivilCalendar.daysInMonth(year: year, month: month)
                dayNumber += Int64(length - day + 1)
                (year, month, day) = month == 12 ? (year + 1, 1, 1) : (year, month + 1, 1)
                minuteOfDay = 0
                continue
            }
            if matchesDay(day: day, weekday: CivilCalendar.weekday(dayNumber: dayNumber)),
                let minute = firstMinute(atOrAfter: minuteOfDay)
            {
                return dayNumber * CivilCalendar.secondsPerDay + Int64(minute) * 60
            }
            dayNumber += 1
            minuteOfDay = 0
            if day < CivilCalendar.daysInMonth(year: year, month: month) {
                day += 1
            } else {
                (year, month, day) = month == 12 ? (year + 1, 1, 1) : (year, month + 1, 1)
            }
        }
        return nil
    }

    /// crontab(5): if both day fields are restricted (neither starts with `*`), either may match;
    /// otherwise both must.
    private func matchesDay(day: Int, weekday: Int) -> Bool {
        let dayMatches = daysOfMonth & (1 << UInt64(day)) != 0
        let weekdayMatches = daysOfWeek & (1 << UInt64(weekday)) != 0
        if dayOfMonthIsStar || dayOfWeekIsStar {
            return dayMatches && weekdayMatches
        }
        return dayMatches || weekdayMatches
    }

    private func firstMinute(atOrAfter minuteOfDay: Int) -> Int? {
        var hour = minuteOfDay / 60
        var minute = minuteOfDay % 60
        while hour < 24 {
            if hours & (1 << UInt64(hour)) != 0 {
                let remaining = minutes >> UInt64(minute)
                if remaining != 0 {
                    return hour * 60 + minute + remaining.trailingZeroBitCount
                }
            }
            hour += 1
            minute = 0
        }
        return nil
    }
}
