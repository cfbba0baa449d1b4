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
        var c = tm
        var usec = subsecond
        func resetTime(from level: Int) {
            if level <= 0 { c.hour = 0 }
            if level <= 1 { c.minute = 0 }
            c.second = 0
            usec = 0
        }
        // The DST flag each round starts with: the expression's, until a round's normalization went
        // backwards (a spring-forward gap where DST is negative, Europe/Dublin); from then on the
        // flag `mktime` settled on, as systemd 252.39 does (its fix for negative DST).
        var flag: Int? = daylightSaving
        // systemd gives up after this many rounds rather than loop forever.
        for _ in 0..<1000 {
            let before = c
            _ = clock.normalize(&c)
            if let flag { c.isDaylightSaving = flag }
            // How far normalization moved the time back, if it did: added back to what this round
            // finds, which is then tried again.
            let setBack = before.localSeconds - c.localSeconds

            var r = Self.match(year, value: &c.year)
            if r > 0 {
                c.month = 0
                c.day = 1
                resetTime(from: 0)
            }
            if r < 0 || withinBounds(&c, clock: &clock) <= 0 {
                return .never
            }

            var month1 = c.month + 1
            r = Self.match(month, value: &month1)
            c.month = month1 - 1
            if r > 0 {
                c.day = 1
                resetTime(from: 0)
            }
            if r >= 0 {
                r = withinBounds(&c, clock: &clock)
            }
            if r < 0 {
                c.year += 1
                c.month = 0
                c.day = 1
                resetTime(from: 0)
                continue
            }
            // Normalization moved the time forwards: start over from there.
            if r == 0 { continue }

            r = matchDay(&c, clock: &clock)
            if r > 0 {
                resetTime(from: 0)
            }
            if r >= 0 {
                r = withinBounds(&c, clock: &clock)
            }
            if r < 0 {
                c.month += 1
                c.day = 1
                resetTime(from: 0)
                continue
            }
            if r == 0 { continue }

            if !matchesWeekday(c, clock: &clock) {
                c.day += 1
                resetTime(from: 0)
                continue
            }

            r = Self.match(hour, value: &c.hour)
            if r > 0 {
                resetTime(from: 1)
            }
            if r >= 0 {
                r = withinBounds(&c, clock: &clock)
            }
            if r < 0 {
                c.day += 1
                resetTime(from: 0)
                continue
            }
            // The hour may not exist (a spring-forward gap): retry from the normalized time.
            if r == 0 { continue }

            r = Self.match(minute, value: &c.minute)
            if r > 0 {
                resetTime(from: 2)
            }
            if r >= 0 {
                r = withinBounds(&c, clock: &clock)
            }
            if r < 0 {
                c.hour += 1
                resetTime(from: 1)
                continue
            }
            if r == 0 { continue }

            var secondInMicroseconds = c.second * 1_000_000 + usec
            r = Self.match(microsecond, value: &secondInMicroseconds)
            usec = secondInMicroseconds % 1_000_000
            c.second = secondInMicroseconds / 1_000_000
            if r >= 0 {
                r = withinBounds(&c, clock: &clock)
            }
            if r < 0 {
                c.minute += 1
                resetTime(from: 2)
                continue
            }
            if r == 0 { continue }

            if setBack > 0 {
                let isDaylightSaving = c.isDaylightSaving
                c = BrokenDownTime(localSeconds: c.localSeconds + setBack)
                c.isDaylightSaving = isDaylightSaving
                flag = nil
                continue
            }
            tm = c
            subsecond = usec
            return .elapse(RealtimeInstant(microseconds: 0))
        }
        return .failed
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
