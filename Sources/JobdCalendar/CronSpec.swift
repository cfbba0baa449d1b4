/// A schedule in the five-field crontab(5) syntax as Debian's cron (3.0pl1 with Debian's patches)
/// reads it, or one of its `@` shorthands.
///
/// Fields are minute (0-59), hour (0-23), day of month (1-31), month (1-12 or `jan`-`dec`) and day
/// of week (0-7 or `sun`-`sat`, both 0 and 7 are Sunday). Each is `*` or a comma-separated list of
/// numbers, ranges `a-b` and steps `a-b/n` or `*/n`. Names are three letters, any case, and may
/// not be used in steps. A range must not run backwards and a step must be positive.
///
/// **The day rule.** When both day fields are restricted, a day matches if *either* does
/// (`0 0 1,15 * 1` runs on the 1st, the 15th and every Monday). A field whose text starts with `*`
/// counts as unrestricted even when it has a step, so `0 0 */2 * 1` runs on odd days that are
/// Mondays — both must match.
///
/// **Daylight saving time.** cron works in local wall-clock minutes. Following Debian's cron:
/// - a *fixed-time* job (neither minute nor hour starts with `*`) whose time falls in a skipped
///   hour runs once, right after the jump (the instant the new offset starts), if the jump is less
///   than three hours; in a repeated hour it runs only on the first pass;
/// - a *wildcard* job (minute or hour starts with `*`) runs as the clock says: not at all in a
///   skipped hour, and on both passes of a repeated hour.
///
/// **A zone** after the fields (`0 6 * * * Europe/Berlin`, `@daily America/New_York`) schedules
/// the job as cronie schedules one under `CRON_TZ=` (cronie's `find_jobs`): at each real minute,
/// the fields are matched against that zone's wall clock. So a time the zone skips never runs, and
/// a time it repeats runs twice, fixed-time and wildcard jobs alike. Where the *local* zone
/// repeats an hour, cronie runs only wildcard jobs of other zones, and so does jobd: a fixed-time
/// zoned job whose time falls then does not run.
///
/// `@reboot` is ``reboot``; it never elapses on the clock, and the daemon decides what "once per
/// boot" means.
package enum CronSpec: Sendable, Hashable {
    /// `@reboot`: run once when the daemon starts after a boot.
    case reboot
    /// A clock schedule.
    case schedule(CronSchedule)

    /// Parses five fields (`*/15 9-17 * * mon-fri`) or a shorthand: `@yearly`, `@annually`,
    /// `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly`, `@reboot`; either (but `@reboot`)
    /// may be followed by a tzdata zone name.
    /// - Throws: ``CalendarError`` with code `.invalidCronExpression`.
    package static func parse(_ text: String) throws(CalendarError) -> CronSpec {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        let fieldCount = words.first?.hasPrefix("@") == true ? 1 : 5
        var zone: TimeZoneRules?
        var fields = text
        if words.count == fieldCount + 1, let name = words.last {
            // A sixth word that names no zone and has no '/' is left to the fields' own error.
            // The names OnCalendar= takes: tzdata's, never a path.
            if CalendarSpecParser.isValidTimeZoneName(String(name)), let rules = try? TimeZoneRules.load(named: String(name)) {
                zone = rules
                fields = words.dropLast().joined(separator: " ")
            } else if name.contains("/") || fieldCount == 1 {
                throw CalendarError(
                    code: .unknownTimeZone, input: text, column: nil,
                    expected: "a time zone such as Europe/Berlin or UTC after the schedule, not '\(name)'")
            }
        }
        var schedule: CronSchedule
        if fieldCount == 1, let first = words.first {
            switch first {
            case "@reboot" where zone == nil: return .reboot
            case "@reboot":
                throw CalendarError(code: .invalidCronExpression, input: text, column: nil, expected: "@reboot alone: it has no time to be in a zone")
            case "@yearly", "@annually": schedule = try CronSchedule(fields: "0 0 1 1 *", original: text)
            case "@monthly": schedule = try CronSchedule(fields: "0 0 1 * *", original: text)
            case "@weekly": schedule = try CronSchedule(fields: "0 0 * * 0", original: text)
            case "@daily", "@midnight": schedule = try CronSchedule(fields: "0 0 * * *", original: text)
            case "@hourly": schedule = try CronSchedule(fields: "0 * * * *", original: text)
            default:
                throw CalendarError(
                    code: .invalidCronExpression, input: text, column: 1,
                    expected: "one of @reboot, @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly")
            }
        } else {
            schedule = try CronSchedule(fields: fields, original: text)
        }
        schedule.zone = zone
        return .schedule(schedule)
    }

    /// A canonical text: numbers instead of names, Sunday as 0, value lists with runs of three or
    /// more written as ranges, `*` and `*/n` kept where the text started with `*` (that matters to
    /// the day rule), and shorthands other than `@reboot` expanded (`@daily` is `0 0 * * *`).
    package var normalized: String {
        switch self {
        case .reboot: return "@reboot"
        case .schedule(let schedule): return schedule.normalized
        }
    }

    /// The first instant strictly after `instant` at which cron would start the job, in `zone`'s
    /// local time; `nil` for `@reboot` and for schedules that never match (`0 0 30 2 *`).
    package func nextElapse(after instant: RealtimeInstant, in zone: TimeZoneRules) -> RealtimeInstant? {
        switch self {
        case .reboot: return nil
        case .schedule(let schedule): return schedule.nextElapse(after: instant, in: zone)
        }
    }
}
