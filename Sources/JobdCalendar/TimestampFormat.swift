/// Timestamps and time differences written the way systemd writes them.
package enum TimestampFormat {
    static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// `Mon 2026-03-30 02:30:00 CEST`: systemd's `format_timestamp`, in `zone`.
    package static func timestamp(_ instant: RealtimeInstant, in zone: TimeZoneRules) -> String {
        let seconds = instant.seconds
        let type = zone.data.typeIndex(atSeconds: seconds)
        let tm = BrokenDownTime(localSeconds: seconds + zone.data.typeOffsets[type])
        return dateTime(tm) + " " + zone.data.typeAbbreviations[type]
    }

    /// `Mon 2026-03-30 00:30:00 UTC`.
    package static func utcTimestamp(_ instant: RealtimeInstant) -> String {
        dateTime(BrokenDownTime(localSeconds: instant.seconds)) + " UTC"
    }

    /// `2026-11-23 10:00:00.250`, in `zone`: journalctl's `--since` form with milliseconds, in
    /// which `jobctl audit` writes times, so that they can be looked up with journalctl.
    package static func dateTimeMilliseconds(_ instant: RealtimeInstant, in zone: TimeZoneRules) -> String {
        let local = zone.localDateTime(at: instant)
        return date(year: local.year, month: local.month, day: local.day) + " "
            + time(hour: local.hour, minute: local.minute, second: local.second) + "."
            + padded(Int(instant.microsecondOfSecond / 1_000), 3)
    }

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Nov 23 14:10:30`, in `zone`: the time of journalctl's `short` output.
    package static func shortTimestamp(_ instant: RealtimeInstant, in zone: TimeZoneRules) -> String {
        let local = zone.localDateTime(at: instant)
        return monthNames[local.month - 1] + " " + padded(local.day, 2) + " "
            + time(hour: local.hour, minute: local.minute, second: local.second)
    }

    private static func dateTime(_ tm: BrokenDownTime) -> String {
        weekdayNames[tm.weekday] + " " + date(year: tm.year, month: tm.month + 1, day: tm.day) + " "
            + time(hour: tm.hour, minute: tm.minute, second: tm.second)
    }

    private static func date(year: Int, month: Int, day: Int) -> String {
        padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2)
    }

    private static func time(hour: Int, minute: Int, second: Int) -> String {
        padded(hour, 2) + ":" + padded(minute, 2) + ":" + padded(second, 2)
    }

    static func padded(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// `11h left`, `7 months 24 days ago`, `now`: systemd's `format_timestamp_relative`.
    package static func relative(_ instant: RealtimeInstant, now: RealtimeInstant) -> String {
        let second: Int64 = 1_000_000
        let minute = 60 * second
        let hour = 60 * minute
        let day = 24 * hour
        let week = 7 * day
        // systemd's month and year are averages: 30.44 and 365.25 days.
        let month = 2_629_800 * second
        let year = 31_557_600 * second
        let suffix: String
        let d: Int64
        if now > instant {
            d = now.microseconds - instant.microseconds
            suffix = " ago"
        } else {
            d = instant.microseconds - now.microseconds
            suffix = " left"
        }
        func plural(_ n: Int64, _ one: String, _ many: String) -> String {
            "\(n) " + (n == 1 ? one : many)
        }
        if d >= year {
            return plural(d / year, "year", "years") + " " + plural(d % year / month, "month", "months") + suffix
        } else if d >= month {
            return plural(d / month, "month", "months") + " " + plural(d % month / day, "day", "days") + suffix
        } else if d >= week {
            return plural(d / week, "week", "weeks") + " " + plural(d % week / day, "day", "days") + suffix
        } else if d >= 2 * day {
            return "\(d / day) days" + suffix
        } else if d >= 25 * hour {
            return "1 day \((d - day) / hour)h" + suffix
        } else if d >= 6 * hour {
            return "\(d / hour)h" + suffix
        } else if d >= hour {
            return "\(d / hour)h \(d % hour / minute)min" + suffix
        } else if d >= 5 * minute {
            return "\(d / minute)min" + suffix
        } else if d >= minute {
            return "\(d / minute)min \(d % minute / second)s" + suffix
        } else if d >= second {
            return "\(d / second)s" + suffix
        } else if d >= 1000 {
            return "\(d / 1000)ms" + suffix
        } else if d > 0 {
            return "\(d)us" + suffix
        }
        return "now"
    }
}
