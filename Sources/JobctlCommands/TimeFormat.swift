import Glibc
import JobdConfig

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

    /// How far `usec` is from now, to the second.
    static func relative(_ usec: Int64?, now: Int64) -> String {
        guard let usec else { return "n/a" }
        let delta = usec - now
        let seconds = UInt64(abs(delta) / 1_000_000)
        let span = seconds == 0 ? "0s" : TimeSpan.seconds(seconds).description
        return delta >= 0 ? "\(span) left" : "\(span) ago"
    }
}
