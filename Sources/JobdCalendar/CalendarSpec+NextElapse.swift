extension CalendarSpec {
    /// systemd refuses to compute elapses after the last timestamp it can format
    /// (9999-12-30 23:59:59.999999 UTC).
    static let latestBase: Int64 = 253_402_214_399_999_999

    /// The first instant strictly after `instant` at which the event elapses, or `nil` when it never
    /// will again (systemd's "never").
    ///
    /// - Parameters:
    ///   - instant: the reference point; the result is always later.
    ///   - zone: the local zone, used unless the expression names its own (`UTC`, `Europe/Paris`).
    package func nextElapse(after instant: RealtimeInstant, in zone: TimeZoneRules) -> RealtimeInstant? {
        if case .elapse(let next) = elapse(after: instant, in: zone) {
            return next
        }
        return nil
    }

    /// What systemd's `calendar_spec_next_usec` concludes.
    package enum ElapseOutcome: Hashable {
        case elapse(RealtimeInstant)
        /// `-ENOENT`: the event will not elapse again ("never").
        case never
        /// `-EDEADLK` or `-EINVAL`: systemd gave up (its 1000-round safety valve) or refused the base.
        case failed
    }

    package func elapse(after instant: RealtimeInstant, in zone: TimeZoneRules) -> ElapseOutcome {
        var reference = instant
        // An expression ending in the local daylight abbreviation (`02:30 CEST`) can land on the
        // reference itself inside a repeated hour; step past the hour rather than stall (systemd
        // gets a later answer there that this model does not reproduce).
        for _ in 0..<3 {
            let outcome = search(after: reference, in: zone)
            guard case .elapse(let next) = outcome, next <= instant else { return outcome }
            reference = RealtimeInstant(microseconds: reference.microseconds + 3_600_000_000)
        }
        return .failed
    }

    private func search(after instant: RealtimeInstant, in zone: TimeZoneRules) -> ElapseOutcome {
        guard instant.microseconds >= 0, instant.microseconds <= Self.latestBase else { return .failed }
        let base = instant.microseconds + 1
        let data: ZoneData? = isUTC ? nil : (timeZone ?? zone).data
        let seconds = base / RealtimeInstant.microsecondsPerSecond
        var microsecond = Int(base % RealtimeInstant.microsecondsPerSecond)
        var clock = LocalClock(zone: data, offsetGuess: data?.offset(atSeconds: seconds) ?? 0)
        var tm = clock.breakDown(seconds: seconds)
        switch findNext(&tm, &microsecond, clock: &clock) {
        case .never: return .never
        case .failed: return .failed
        case .elapse:
            guard let result = clock.normalize(&tm), result >= 0 else { return .failed }
            return .elapse(RealtimeInstant(microseconds: result * RealtimeInstant.microsecondsPerSecond + Int64(microsecond)))
        }
    }

    /// systemd's `find_next`: walk the fields from year to second, normalizing through `mktime`
    /// after every step so that DST changes behave as they do in systemd.
    private func findNext(_ tm: inout BrokenDownTime, _ subsecond: inout Int, clock: inout LocalClock) -> ElapseOutcome {
        var candidate = Candidate(time: tm, subsecond: subsecond)
        // The DST flag each round starts with: the expression's, until a round's normalization went
        // backwards (a spring-forward gap where DST is negative, Europe/Dublin); from then on the
        // flag `mktime` settled on, as systemd 252.39 does (its fix for negative DST).
        var flag: Int? = daylightSaving
        // systemd gives up after this many rounds rather than loop forever.
        for _ in 0..<1000 {
            let before = candidate.time
            _ = clock.normalize(&candidate.time)
            if let flag { candidate.time.isDaylightSaving = flag }
            // How far normalization moved the time back, if it did: added back to what this round
            // finds, which is then tried again.
            let setBack = before.localSeconds - candidate.time.localSeconds
            switch matchFields(&candidate, clock: &clock) {
            case .never: return .never
            case .retry: continue
            case .matched: break
            }
            if setBack > 0 {
                let isDaylightSaving = candidate.time.isDaylightSaving
                candidate.time = BrokenDownTime(localSeconds: candidate.time.localSeconds + setBack)
                candidate.time.isDaylightSaving = isDaylightSaving
                flag = nil
                continue
            }
            tm = candidate.time
            subsecond = candidate.subsecond
            return .elapse(RealtimeInstant(microseconds: 0))
        }
        return .failed
    }

    /// The time one round of ``findNext(_:_:clock:)`` moves forward, field by field.
    private struct Candidate {
        var time: BrokenDownTime
        var subsecond: Int

        /// A larger field moved: the smaller ones start again from zero (level 0: from the hour,
        /// 1: from the minute, 2: the second alone).
        mutating func resetTime(from level: Int) {
            if level <= 0 { time.hour = 0 }
            if level <= 1 { time.minute = 0 }
            time.second = 0
            subsecond = 0
        }
    }

    /// What one field's step decided: go on to the next field, start the round again from the
    /// time as it now is, or no time can ever match.
    private enum Step { case matched, retry, never }

    /// One round: each field from the year to the second, in systemd's order; the first that does
    /// not match as it is decides the round.
    private func matchFields(_ c: inout Candidate, clock: inout LocalClock) -> Step {
        var step = matchYear(&c, clock: &clock)
        if step == .matched { step = matchMonth(&c, clock: &clock) }
        if step == .matched { step = matchDayAndWeekday(&c, clock: &clock) }
        if step == .matched { step = matchHourOrMinute(&c, level: 1, clock: &clock) }
        if step == .matched { step = matchHourOrMinute(&c, level: 2, clock: &clock) }
        if step == .matched { step = matchSecond(&c, clock: &clock) }
        return step
    }

    /// No later year matches, or the year is past what `mktime` takes: never.
    private func matchYear(_ c: inout Candidate, clock: inout LocalClock) -> Step {
        let r = Self.match(year, value: &c.time.year)
        if r > 0 {
            c.time.month = 0
            c.time.day = 1
            c.resetTime(from: 0)
        }
        if r < 0 || withinBounds(&c.time, clock: &clock) <= 0 {
            return .never
        }
        return .matched
    }

    private func matchMonth(_ c: inout Candidate, clock: inout LocalClock) -> Step {
        var month1 = c.time.month + 1
        let r = Self.match(month, value: &month1)
        c.time.month = month1 - 1
        if r > 0 {
            c.time.day = 1
            c.resetTime(from: 0)
        }
        return afterMatch(r, &c, clock: &clock) {
            $0.time.year += 1
            $0.time.month = 0
            $0.time.day = 1
            $0.resetTime(from: 0)
        }
    }

    private func matchDayAndWeekday(_ c: inout Candidate, clock: inout LocalClock) -> Step {
        let r = matchDay(&c.time, clock: &clock)
        if r > 0 {
            c.resetTime(from: 0)
        }
        let step = afterMatch(r, &c, clock: &clock) {
            $0.time.month += 1
            $0.time.day = 1
            $0.resetTime(from: 0)
        }
        guard step == .matched else { return step }
        if !matchesWeekday(c.time, clock: &clock) {
            c.time.day += 1
            c.resetTime(from: 0)
            return .retry
        }
        return .matched
    }

    /// The hour (`level` 1) or the minute (`level` 2): one step, as their rules differ only in
    /// which field they match and which larger one moves on when none matches.
    private func matchHourOrMinute(_ c: inout Candidate, level: Int, clock: inout LocalClock) -> Step {
        let r = level == 1 ? Self.match(hour, value: &c.time.hour) : Self.match(minute, value: &c.time.minute)
        if r > 0 {
            c.resetTime(from: level)
        }
        return afterMatch(r, &c, clock: &clock) {
            if level == 1 { $0.time.day += 1 } else { $0.time.hour += 1 }
            $0.resetTime(from: level - 1)
        }
    }

    private func matchSecond(_ c: inout Candidate, clock: inout LocalClock) -> Step {
        var secondInMicroseconds = c.time.second * 1_000_000 + c.subsecond
        let r = Self.match(microsecond, value: &secondInMicroseconds)
        c.subsecond = secondInMicroseconds % 1_000_000
        c.time.second = secondInMicroseconds / 1_000_000
        return afterMatch(r, &c, clock: &clock) {
            $0.time.minute += 1
            $0.resetTime(from: 2)
        }
    }

    /// The end of every field's step after the year's, given what matching the field returned: a
    /// field that matched is checked against `mktime`'s normalization; one with no match left
    /// (`r < 0`, or a normalization past the field) moves the next larger field on (`carry`) and
    /// the round starts again, as it does when normalization moved the time forwards (a
    /// spring-forward gap: the hour may not exist).
    private func afterMatch(_ r: Int, _ c: inout Candidate, clock: inout LocalClock, carry: (inout Candidate) -> Void) -> Step {
        var r = r
        if r >= 0 {
            r = withinBounds(&c.time, clock: &clock)
        }
        if r < 0 {
            carry(&c)
            return .retry
        }
        return r == 0 ? .retry : .matched
    }

    /// systemd's `find_matching_component` for fields not counted from the end of the month:
    /// -1 when nothing at or after `value` matches, 1 when `value` moved, 0 when it already matched.
    @inline(__always)
    private static func match(_ field: [CalendarComponent], value: inout Int) -> Int {
        if field.isEmpty { return 0 }
        var best = Int.max
        for element in field {
            if let candidate = candidate(start: element.start, stop: element.stop, repeatInterval: element.repeatInterval, value: value),
                candidate < best
            {
                best = candidate
            }
        }
        return settle(best, value: &value)
    }

    @inline(__always)
    private static func candidate(start: Int, stop: Int, repeatInterval: Int, value: Int) -> Int? {
        if start >= value {
            return start
        }
        if repeatInterval > 0 {
            let k = start + repeatInterval * ((value - start + repeatInterval - 1) / repeatInterval)
            if stop < 0 || k <= stop {
                return k
            }
        }
        return nil
    }

    @inline(__always)
    private static func settle(_ best: Int, value: inout Int) -> Int {
        if best == Int.max { return -1 }
        let changed = best != value
        value = best
        return changed ? 1 : 0
    }

    private func matchDay(_ c: inout BrokenDownTime, clock: inout LocalClock) -> Int {
        guard endOfMonth else {
            return Self.match(day, value: &c.day)
        }
        if day.isEmpty { return 0 }
        var best = Int.max
        for element in day {
            var start = endOfMonthDay(c, counting: element.start, clock: &clock)
            var stop = endOfMonthDay(c, counting: element.stop, clock: &clock)
            if stop > 0 {
                swap(&start, &stop)
            }
            if let candidate = Self.candidate(start: start, stop: stop, repeatInterval: element.repeatInterval, value: c.day),
                candidate < best
            {
                best = candidate
            }
        }
        return Self.settle(best, value: &c.day)
    }

    /// systemd's `find_end_of_month`: the day that is `day - 1` days before the month's last, or
    /// -1.
    private func endOfMonthDay(_ tm: BrokenDownTime, counting day: Int, clock: inout LocalClock) -> Int {
        var t = tm
        t.month += 1
        t.day = 1 - day
        guard clock.normalize(&t) != nil, t.month == tm.month else { return -1 }
        return t.day
    }

    /// systemd's `tm_within_bounds`: 1 when `mktime` leaves the fields as they are; 0 when it
    /// moved them forwards (a day past the month's end, a time in a spring-forward gap), in which
    /// case `tm` becomes the normalized time with the next smaller field reset; -1 when the year is
    /// past 2199, `mktime` fails, or normalization would go backwards.
    @inline(__always)
    private func withinBounds(_ tm: inout BrokenDownTime, clock: inout LocalClock) -> Int {
        if tm.year > 2199 { return -1 }
        var t = tm
        guard clock.normalize(&t) != nil else { return -1 }
        var order: Int
        // Restart the next smaller field only: 3-33 normalizes to 4-2, which must not skip 4-1.
        // (Like systemd, a year change resets only the month, so 12-39 becomes 1-8.)
        if t.year != tm.year {
            order = t.year < tm.year ? -1 : 1
            t.month = 0
        } else if t.month != tm.month {
            order = t.month < tm.month ? -1 : 1
            t.day = 1
        } else if t.day != tm.day {
            order = t.day < tm.day ? -1 : 1
            t.hour = 0
        } else if t.hour != tm.hour {
            order = t.hour < tm.hour ? -1 : 1
            t.minute = 0
        } else if t.minute != tm.minute {
            order = t.minute < tm.minute ? -1 : 1
            t.second = 0
        } else {
            order = t.second == tm.second ? 0 : (t.second < tm.second ? -1 : 1)
        }
        // The DST flag of the normalized time is carried over, as in systemd: the next round's
        // `mktime` sees it (which can move a January time back into the previous DST period).
        if order < 0 { return -1 }
        if order > 0 {
            tm = t
            return 0
        }
        return 1
    }

    private func matchesWeekday(_ tm: BrokenDownTime, clock: inout LocalClock) -> Bool {
        if weekdayBits < 0 || weekdayBits >= Self.allWeekdays { return true }
        var t = tm
        guard clock.normalize(&t) != nil else { return false }
        let day = t.weekday == 0 ? 6 : t.weekday - 1
        return weekdayBits & (1 << day) != 0
    }
}
