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

    private static func dateTime(_ tm: BrokenDownTime) -> String {
        weekdayNames[tm.weekday] + " " + padded(tm.year, 4) + "-" + padded(tm.month + 1, 2) + "-"
            + padded(tm.day, 2) + " " + padded(tm.hour, 2) + ":" + padded(tm.minute, 2) + ":"
            + padded(tm.second, 2)
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
