/// A calendar event in systemd.time(7) syntax, such as `Mon..Fri *-*-* 02:30` or `daily`.
///
/// Parsing accepts and rejects exactly what systemd 252's `calendar_spec_from_string` does, and
/// ``normalized`` is the text `systemd-analyze calendar` shows as "Normalized form". The next
/// elapse is computed the way systemd computes it, including how it treats local times that a DST
/// change skips (they do not elapse that day) or repeats (they elapse once, on the first pass,
/// unless the search starts inside the repeated hour).
///
/// ```swift
/// let spec = try CalendarSpec.parse("Mon..Fri *-*-* 02:30")
/// let next = spec.nextElapse(after: now, in: try .load(named: "Europe/Berlin"))
/// ```
package struct CalendarSpec: Sendable, Hashable {
    /// Weekday bits, bit 0 = Monday ... bit 6 = Sunday; -1 when any weekday matches.
    var weekdayBits: Int = -1
    var year: [CalendarComponent] = []
    var month: [CalendarComponent] = []
    var day: [CalendarComponent] = []
    var hour: [CalendarComponent] = []
    var minute: [CalendarComponent] = []
    var microsecond: [CalendarComponent] = []
    /// `~` was used: days count back from the end of the month.
    var endOfMonth = false
    /// The expression ends in ` UTC` (or was an `@` timestamp).
    var isUTC = false
    /// The zone named at the end of the expression, e.g. `Europe/Berlin`.
    var timeZone: TimeZoneRules?
    /// 0 or 1 when the expression ended in the local zone's standard or daylight abbreviation.
    var daylightSaving = -1
    var localAbbreviation: String?

    /// The text the spec was parsed from.
    package let original: String

    init(original: String) {
        self.original = original
    }

    /// Parses a calendar event.
    ///
    /// - Parameters:
    ///   - text: the expression, e.g. `*-*-01 04:00 Europe/Berlin`.
    ///   - localZone: the zone the expression will be evaluated in. systemd (through glibc's
    ///     `tzname`) lets an expression end in that zone's own abbreviations, such as `CET` or
    ///     `CEST` under `TZ=Europe/Berlin`, meaning "only while standard (daylight) time is in
    ///     effect". Pass the zone to get that reading; without it such a suffix is read as a tzdata
    ///     zone name when one exists (`CET` does, `CEST` does not).
    /// - Throws: ``CalendarError`` with code `.invalidCalendarExpression` saying where and why.
    package static func parse(_ text: String, localZone: TimeZoneRules? = nil) throws(CalendarError) -> CalendarSpec {
        var parser = CalendarSpecParser(text: text, localZone: localZone)
        return try parser.parse()
    }

    /// The name of the zone the expression names, if any (`UTC` for a ` UTC` suffix).
    package var timeZoneName: String? {
        if isUTC { return "UTC" }
        return timeZone?.identifier
    }

    /// The expression as systemd prints it after "Normalized form:", e.g.
    /// `Mon..Fri *-*-* 02:30:00`.
    package var normalized: String {
        var text = ""
        if weekdayBits > 0 && weekdayBits < Self.allWeekdays {
            text += Self.formatWeekdays(weekdayBits) + " "
        }
        text += CalendarComponent.format(year, width: 4, microseconds: false)
        text += "-"
        text += CalendarComponent.format(month, width: 2, microseconds: false)
        text += endOfMonth ? "~" : "-"
        text += CalendarComponent.format(day, width: 2, microseconds: false)
        text += " "
        text += CalendarComponent.format(hour, width: 2, microseconds: false)
        text += ":"
        text += CalendarComponent.format(minute, width: 2, microseconds: false)
        text += ":"
        text += CalendarComponent.format(microsecond, width: 2, microseconds: true)
        if isUTC {
            text += " UTC"
        } else if let timeZone {
            text += " " + timeZone.identifier
        } else if daylightSaving >= 0, let localAbbreviation, !localAbbreviation.isEmpty {
            text += " " + localAbbreviation
        }
        return text
    }

    static let allWeekdays = 127
    static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// Runs of three or more days print as `Mon..Wed`, pairs as `Mon,Tue`.
    static func formatWeekdays(_ bits: Int) -> String {
        var text = ""
        var runStart = -1
        func closeRun(before day: Int) {
            if day > runStart + 1 {
                text += (day > runStart + 2 ? ".." : ",") + weekdayNames[day - 1]
            }
        }
        for day in 0..<7 {
            if bits & (1 << day) != 0 {
                if runStart < 0 {
                    if !text.isEmpty { text += "," }
                    text += weekdayNames[day]
                    runStart = day
                }
            } else if runStart >= 0 {
                closeRun(before: day)
                runStart = -1
            }
        }
        if runStart >= 0 {
            closeRun(before: 7)
        }
        return text
    }

    /// systemd's `calendar_spec_normalize` followed by `calendar_spec_valid`.
    mutating func normalizeAndValidate() -> String? {
        if weekdayBits <= 0 || weekdayBits >= Self.allWeekdays {
            weekdayBits = -1
        }
        if endOfMonth && day.isEmpty {
            endOfMonth = false
        }
        // Two-digit years: 12 is 2012, 89 is 1989.
        year = year.map { element in
            var element = element
            for keyPath in [\CalendarComponent.start, \CalendarComponent.stop] {
                let value = element[keyPath: keyPath]
                if value >= 0 && value < 70 {
                    element[keyPath: keyPath] = value + 2000
                } else if value >= 70 && value < 100 {
                    element[keyPath: keyPath] = value + 1900
                }
            }
            return element
        }
        year = CalendarComponent.normalize(year)
        month = CalendarComponent.normalize(month)
        day = CalendarComponent.normalize(day)
        hour = CalendarComponent.normalize(hour)
        minute = CalendarComponent.normalize(minute)
        microsecond = CalendarComponent.normalize(microsecond)

        if !CalendarComponent.isValid(year, from: 1970, to: 2199, endOfMonth: false) {
            return "a year between 1970 and 2199"
        }
        if !CalendarComponent.isValid(month, from: 1, to: 12, endOfMonth: false) {
            return "a month between 1 and 12 (ranges ascending, repetitions below 12)"
        }
        if !CalendarComponent.isValid(day, from: 1, to: 31, endOfMonth: endOfMonth) {
            return endOfMonth
                ? "a day between 1 and 28 counted back from the end of the month"
                : "a day between 1 and 31 (ranges ascending, repetitions below 31)"
        }
        if !CalendarComponent.isValid(hour, from: 0, to: 23, endOfMonth: false) {
            return "an hour between 0 and 23 (ranges ascending, repetitions below 24)"
        }
        if !CalendarComponent.isValid(minute, from: 0, to: 59, endOfMonth: false) {
            return "a minute between 0 and 59 (ranges ascending, repetitions below 60)"
        }
        if !CalendarComponent.isValid(microsecond, from: 0, to: 60_000_000 - 1, endOfMonth: false) {
            return "a second below 60 (ranges ascending, repetitions below 60)"
        }
        return nil
    }
}
