/// The one error type of JobdCalendar: what went wrong, in which text, where, and what was expected.
///
/// The description is written for a person reading a command's output, for example
/// `invalid calendar expression 'Mon..Fri 25:00': hour 25 is out of range 0..23 (at column 10)`.
package struct CalendarError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of input was rejected.
    package enum Code: String, Sendable, Hashable {
        /// A systemd.time(7) calendar event that systemd would reject.
        case invalidCalendarExpression
        /// A five-field cron schedule (or `@` shorthand) that cron would reject.
        case invalidCronExpression
        /// A timestamp such as a `--base-time` value that could not be read.
        case invalidTimestamp
        /// A time zone name that names no readable TZif file.
        case unknownTimeZone
        /// A TZif file or POSIX TZ string that is malformed.
        case invalidTimeZoneData
    }

    /// What kind of input was rejected.
    package var code: Code
    /// The text as the user wrote it (an expression, a timestamp, a zone name or a path).
    package var input: String
    /// The 1-based column (in characters) where the problem was found, when there is one.
    package var column: Int?
    /// What was expected there, or why the value is not acceptable.
    package var expected: String

    /// Creates an error.
    package init(code: Code, input: String, column: Int? = nil, expected: String) {
        self.code = code
        self.input = input
        self.column = column
        self.expected = expected
    }

    package var description: String {
        let what: String
        switch code {
        case .invalidCalendarExpression: what = "invalid calendar expression"
        case .invalidCronExpression: what = "invalid cron expression"
        case .invalidTimestamp: what = "invalid timestamp"
        case .unknownTimeZone: what = "unknown time zone"
        case .invalidTimeZoneData: what = "invalid time zone data"
        }
        var text = "\(what) '\(input)': \(expected)"
        if let column {
            text += " (at column \(column))"
        }
        return text
    }
}
