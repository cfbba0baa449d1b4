/// A `struct tm`: calendar fields that may be out of range while a search is in progress.
///
/// The next-elapse search mirrors systemd's, which steps fields (`tm_mday++`, `tm_hour++`) and lets
/// `mktime` normalize them, so the fields are plain integers. `month` is 0-based and `year` is the
/// full year, unlike `tm_year`.
struct BrokenDownTime: Hashable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int
    /// 0 = Sunday, valid only after normalization.
    var weekday: Int = 0
    /// -1 = unknown, 0 = standard time, 1 = daylight saving, as `tm_isdst`.
    var isDaylightSaving: Int = -1

    init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The fields of local seconds since the epoch.
    init(localSeconds: Int64) {
        let days = CivilCalendar.floorDivide(localSeconds, CivilCalendar.secondsPerDay)
        let secondOfDay = Int(localSeconds - days * CivilCalendar.secondsPerDay)
        let date = CivilCalendar.date(dayNumber: days)
        self.init(
            year: date.year, month: date.month - 1, day: date.day, hour: secondOfDay / 3600,
            minute: secondOfDay / 60 % 60, second: secondOfDay % 60)
        weekday = CivilCalendar.weekday(dayNumber: days)
    }

    /// Local seconds since the epoch, extending out-of-range fields linearly as `mktime` does.
    var localSeconds: Int64 {
        CivilCalendar.localSeconds(year: year, month0: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// Whether the calendar fields (not weekday or DST flag) are equal.
    func hasSameFields(as other: BrokenDownTime) -> Bool {
        year == other.year && month == other.month && day == other.day && hour == other.hour
            && minute == other.minute && second == other.second
    }
}
