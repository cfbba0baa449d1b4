import Glibc

/// Times as systemctl shows them: `Sun 2026-11-22 06:30:00 UTC`, `19min 3s left`, `40min ago`.
enum TimeFormat {
    static func nowUSec() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }

    /// The local time (as `TZ` says), with weekday and zone abbreviation.
    static func wallClock(_ usec: Int64?) -> String {
        guard let usec else { return "n/a" }
        var seconds = time_t(usec / 1_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%a %Y-%m-%d %H:%M:%S %Z", &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// How far `usec` is from now, rounded down as `systemctl list-timers` rounds LEFT and PASSED
    /// (systemd 252's `format_timestamp_relative`, which `systemd-analyze timestamp` prints as "From
    /// now"): `1 year 2 months`, `3 weeks 2 days`, `5 days`, `1 day 3h`, `7h`, `2h 5min`, `12min`,
    /// `4min 59s`, `45s`, `250ms`, `12us`, then ` left` or ` ago`; `now` when it is now.
    static func relative(_ usec: Int64?, now: Int64) -> String {
        guard let usec else { return "n/a" }
        let span = UInt64(abs(usec - now))
        let suffix = usec > now ? " left" : " ago"
        let second: UInt64 = 1_000_000, minute = 60 * second, hour = 60 * minute, day = 24 * hour
        let week = 7 * day, month = 2_629_800 * second, year = 31_557_600 * second
        func count(_ value: UInt64, _ one: String, _ many: String) -> String { "\(value) \(value == 1 ? one : many)" }
        switch span {
        case year...: return count(span / year, "year", "years") + " " + count(span % year / month, "month", "months") + suffix
        case month...: return count(span / month, "month", "months") + " " + count(span % month / day, "day", "days") + suffix
        case week...: return count(span / week, "week", "weeks") + " " + count(span % week / day, "day", "days") + suffix
        case (2 * day)...: return "\(span / day) days" + suffix
        case (25 * hour)...: return "1 day \((span - day) / hour)h" + suffix
        case (6 * hour)...: return "\(span / hour)h" + suffix
        case hour...: return "\(span / hour)h \(span % hour / minute)min" + suffix
        case (5 * minute)...: return "\(span / minute)min" + suffix
        case minute...: return "\(span / minute)min \(span % minute / second)s" + suffix
        case second...: return "\(span / second)s" + suffix
        case 1_000...: return "\(span / 1_000)ms" + suffix
        case 1...: return "\(span)us" + suffix
        default: return "now"
        }
    }
}
