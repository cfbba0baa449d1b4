/// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01).
///
/// Kept free of time zones: the zone code turns instants into local seconds, and this turns local
/// seconds into dates and back.
enum CivilCalendar {
    static let secondsPerDay: Int64 = 86_400

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    static func floorDivide(_ a: Int, _ b: Int) -> Int {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Day number of `year-month-day` (month 1...12; day may be any integer and counts linearly).
    static func dayNumber(year: Int, month: Int, day: Int) -> Int64 {
        // Shift the year to start in March so the leap day is the last day of the shifted year.
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * shiftedMonth + 2) / 5
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468 + Int64(day - 1)
    }

    /// The date of a day number, month 1...12.
    static func date(dayNumber: Int64) -> (year: Int, month: Int, day: Int) {
        let z = dayNumber + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        let year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// Day of the week of a day number, 0 = Sunday (as `tm_wday`).
    static func weekday(dayNumber: Int64) -> Int {
        // 1970-01-01 was a Thursday.
        Int((dayNumber % 7 + 11) % 7)
    }

    /// Local seconds since the epoch for a broken-down time whose fields may be out of range
    /// (month 0-based, as `struct tm`), the linear extension `mktime` uses.
    static func localSeconds(
        year: Int, month0: Int, day: Int, hour: Int, minute: Int, second: Int
    ) -> Int64 {
        let normalizedYear = year + floorDivide(month0, 12)
        let normalizedMonth = month0 - floorDivide(month0, 12) * 12
        let days = dayNumber(year: normalizedYear, month: normalizedMonth + 1, day: day)
        return days * secondsPerDay + Int64(hour) * 3600 + Int64(minute) * 60 + Int64(second)
    }
}

extension CivilCalendar {
    static func floorMod(_ a: Int64, _ b: Int64) -> Int64 {
        a - floorDivide(a, b) * b
    }
}
