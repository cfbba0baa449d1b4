/// A POSIX TZ string such as `CET-1CEST,M3.5.0,M10.5.0/3`, as found in a TZif footer or in `TZ`.
///
/// Supports the RFC 8536 extensions: quoted names (`<+1030>`), transition times from -167 to 167
/// hours. Offsets are stored east of UTC (the string's sign is the opposite).
struct PosixTimeZoneRule: Sendable, Hashable {
    struct Daylight: Sendable, Hashable {
        var name: String
        var offset: Int64
        var start: TransitionDate
        var end: TransitionDate
    }

    /// A day of the year plus the local time of day at which a change happens.
    struct TransitionDate: Sendable, Hashable {
        enum Day: Sendable, Hashable {
            /// `Jn`: day 1...365, February 29 never counted.
            case julianNoLeap(Int)
            /// `n`: day 0...365, February 29 counted.
            case zeroBased(Int)
            /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (5 = last) of month `m`.
            case monthWeekDay(month: Int, week: Int, weekday: Int)
        }

        var day: Day
        var secondOfDay: Int64

        /// The local seconds (since the epoch, in the offset in effect before the change) of this
        /// date in `year`.
        func localSeconds(year: Int) -> Int64 {
            let dayNumber: Int64
            switch day {
            case .julianNoLeap(let n):
                let leapShift = CivilCalendar.isLeapYear(year) && n >= 60 ? 1 : 0
                dayNumber = CivilCalendar.dayNumber(year: year, month: 1, day: n + leapShift)
            case .zeroBased(let n):
                dayNumber = CivilCalendar.dayNumber(year: year, month: 1, day: n + 1)
            case .monthWeekDay(let month, let week, let weekday):
                let first = CivilCalendar.dayNumber(year: year, month: month, day: 1)
                var day = 1 + (weekday - CivilCalendar.weekday(dayNumber: first) + 7) % 7 + (week - 1) * 7
                let length = CivilCalendar.daysInMonth(year: year, month: month)
                while day > length { day -= 7 }
                dayNumber = first + Int64(day - 1)
            }
            return dayNumber * CivilCalendar.secondsPerDay + secondOfDay
        }
    }

    var standardName: String
    var standardOffset: Int64
    var daylight: Daylight?

    /// The UTC instants at which daylight saving starts and ends in `year`.
    func transitions(year: Int) -> (start: Int64, end: Int64)? {
        guard let daylight else { return nil }
        let start = daylight.start.localSeconds(year: year) - standardOffset
        let end = daylight.end.localSeconds(year: year) - daylight.offset
        return (start, end)
    }

    func isDaylightSaving(atSeconds seconds: Int64) -> Bool {
        guard daylight != nil else { return false }
        let days = CivilCalendar.floorDivide(seconds + standardOffset, CivilCalendar.secondsPerDay)
        let year = CivilCalendar.date(dayNumber: days).year
        guard let (start, end) = transitions(year: year) else { return false }
        if start < end {
            return seconds >= start && seconds < end
        }
        // Southern hemisphere: daylight saving spans the turn of the year.
        return !(seconds >= end && seconds < start)
    }

    /// The stretch `start..<end` around `seconds` between two changes of this rule.
    func interval(atSeconds seconds: Int64) -> (start: Int64, end: Int64) {
        guard daylight != nil else { return (Int64.min, Int64.max) }
        let days = CivilCalendar.floorDivide(seconds, CivilCalendar.secondsPerDay)
        let year = CivilCalendar.date(dayNumber: days).year
        var start = Int64.min
        var end = Int64.max
        for candidateYear in (year - 1)...(year + 1) {
            guard let (dstStart, dstEnd) = transitions(year: candidateYear) else { continue }
            for instant in [dstStart, dstEnd] {
                if instant <= seconds {
                    start = max(start, instant)
                } else {
                    end = min(end, instant)
                }
            }
        }
        return (start, end)
    }

    func nextTransition(afterSeconds seconds: Int64) -> Int64? {
        guard daylight != nil else { return nil }
        let days = CivilCalendar.floorDivide(seconds, CivilCalendar.secondsPerDay)
        let year = CivilCalendar.date(dayNumber: days).year
        var best: Int64?
        for candidateYear in (year - 1)...(year + 1) {
            guard let (start, end) = transitions(year: candidateYear) else { continue }
            for instant in [start, end] where instant > seconds {
                if best == nil || instant < best! { best = instant }
            }
        }
        return best
    }
}

extension PosixTimeZoneRule {
    /// Parses a POSIX TZ string; `nil` when it is not one.
    init?(parsing text: String) {
        var scanner = PosixScanner(Array(text.utf8))
        guard let standardName = scanner.name(), let standardWest = scanner.offset() else { return nil }
        self.standardName = standardName
        self.standardOffset = -standardWest
        self.daylight = nil
        if scanner.atEnd {
            return
        }
        guard let daylightName = scanner.name() else { return nil }
        var daylightOffset = standardOffset + 3600
        if let west = scanner.offset() {
            daylightOffset = -west
        }
        // tzcode's default rule when a daylight name has no dates.
        var start = TransitionDate(day: .monthWeekDay(month: 3, week: 2, weekday: 0), secondOfDay: 7200)
        var end = TransitionDate(day: .monthWeekDay(month: 11, week: 1, weekday: 0), secondOfDay: 7200)
        if scanner.consume(UInt8(ascii: ",")) {
            guard let parsedStart = scanner.transitionDate(), scanner.consume(UInt8(ascii: ",")),
                let parsedEnd = scanner.transitionDate()
            else { return nil }
            start = parsedStart
            end = parsedEnd
        }
        guard scanner.atEnd else { return nil }
        self.daylight = Daylight(name: daylightName, offset: daylightOffset, start: start, end: end)
    }
}

private struct PosixScanner {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var atEnd: Bool { position >= bytes.count }

    var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard current == byte else { return false }
        position += 1
        return true
    }

    mutating func name() -> String? {
        if consume(UInt8(ascii: "<")) {
            let start = position
            while let byte = current, byte != UInt8(ascii: ">") { position += 1 }
            let name = String(decoding: bytes[start..<position], as: UTF8.self)
            guard consume(UInt8(ascii: ">")), name.utf8.count >= 3 else { return nil }
            return name
        }
        let start = position
        while let byte = current, (byte | 0x20) >= UInt8(ascii: "a"), (byte | 0x20) <= UInt8(ascii: "z") {
            position += 1
        }
        guard position - start >= 3 else { return nil }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    mutating func number() -> Int? {
        let start = position
        var value = 0
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
            position += 1
            if value > 1_000_000 { return nil }
        }
        return position > start ? value : nil
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, sign as written.
    mutating func signedTime() -> Int64? {
        var sign: Int64 = 1
        if consume(UInt8(ascii: "-")) {
            sign = -1
        } else {
            _ = consume(UInt8(ascii: "+"))
        }
        guard let hours = number(), hours <= 167 else { return nil }
        var seconds = Int64(hours) * 3600
        if consume(UInt8(ascii: ":")) {
            guard let minutes = number(), minutes < 60 else { return nil }
            seconds += Int64(minutes) * 60
            if consume(UInt8(ascii: ":")) {
                guard let secs = number(), secs < 60 else { return nil }
                seconds += Int64(secs)
            }
        }
        return sign * seconds
    }

    mutating func offset() -> Int64? {
        guard let byte = current,
            byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
        else { return nil }
        return signedTime()
    }

    mutating func transitionDate() -> PosixTimeZoneRule.TransitionDate? {
        let day: PosixTimeZoneRule.TransitionDate.Day
        if consume(UInt8(ascii: "J")) {
            guard let n = number(), (1...365).contains(n) else { return nil }
            day = .julianNoLeap(n)
        } else if consume(UInt8(ascii: "M")) {
            guard let month = number(), (1...12).contains(month), consume(UInt8(ascii: ".")),
                let week = number(), (1...5).contains(week), consume(UInt8(ascii: ".")),
                let weekday = number(), (0...6).contains(weekday)
            else { return nil }
            day = .monthWeekDay(month: month, week: week, weekday: weekday)
        } else {
            guard let n = number(), (0...365).contains(n) else { return nil }
            day = .zeroBased(n)
        }
        var secondOfDay: Int64 = 7200
        if consume(UInt8(ascii: "/")) {
            guard let time = signedTime() else { return nil }
            secondOfDay = time
        }
        return PosixTimeZoneRule.TransitionDate(day: day, secondOfDay: secondOfDay)
    }
}
