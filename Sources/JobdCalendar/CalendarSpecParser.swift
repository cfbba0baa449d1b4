/// Reads systemd.time(7) calendar events, following the order and the quirks of systemd 252's
/// parser: zone suffix first, then shorthands, weekdays, date, time.
struct CalendarSpecParser {
    private let text: String
    private let bytes: [UInt8]
    private let localZone: TimeZoneRules?
    /// The parse position and the end of the part still to parse (the zone suffix is cut off).
    private var position = 0
    private var end: Int

    init(text: String, localZone: TimeZoneRules?) {
        self.text = text
        self.bytes = Array(text.utf8)
        self.localZone = localZone
        self.end = bytes.count
    }

    private func failure(_ expected: String, at offset: Int? = nil) -> CalendarError {
        CalendarError(
            code: .invalidCalendarExpression, input: text, column: (offset ?? position) + 1, expected: expected)
    }

    private var current: UInt8 { position < end ? bytes[position] : 0 }

    private func byte(at offset: Int) -> UInt8 { offset < end ? bytes[offset] : 0 }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    private func hasSuffixIgnoringCase(_ suffix: [UInt8]) -> Bool {
        guard suffix.count <= end else { return false }
        return zip(bytes[(end - suffix.count)..<end], suffix).allSatisfy {
            Self.lowercased($0) == Self.lowercased($1)
        }
    }

    mutating func parse() throws(CalendarError) -> CalendarSpec {
        var spec = CalendarSpec(original: text)
        cutTimeZoneSuffix(into: &spec)
        guard end > 0 else {
            throw failure("a calendar expression", at: 0)
        }
        if let shorthand = shorthand() {
            shorthand(&spec)
        } else {
            try parseWeekdays(into: &spec)
            if try !parseDate(into: &spec) {
                try parseTime(into: &spec)
            }
            if position < end {
                throw failure("the end of the expression")
            }
        }
        if let problem = spec.normalizeAndValidate() {
            throw CalendarError(code: .invalidCalendarExpression, input: text, expected: problem)
        }
        return spec
    }

    private static let shorthands: [String: @Sendable (inout CalendarSpec) -> Void] = {
        let midnight: @Sendable (inout CalendarSpec) -> Void = { spec in
            spec.hour = [CalendarComponent(start: 0)]
            spec.minute = [CalendarComponent(start: 0)]
            spec.microsecond = [CalendarComponent(start: 0)]
        }
        let yearly: @Sendable (inout CalendarSpec) -> Void = { spec in
            spec.month = [CalendarComponent(start: 1)]
            spec.day = [CalendarComponent(start: 1)]
            midnight(&spec)
        }
        let semiannually: @Sendable (inout CalendarSpec) -> Void = { spec in
            spec.month = [CalendarComponent(start: 1), CalendarComponent(start: 7)]
            spec.day = [CalendarComponent(start: 1)]
            midnight(&spec)
        }
        return [
            "minutely": { $0.microsecond = [CalendarComponent(start: 0)] },
            "hourly": { spec in
                spec.minute = [CalendarComponent(start: 0)]
                spec.microsecond = [CalendarComponent(start: 0)]
            },
            "daily": midnight,
            "monthly": { spec in
                spec.day = [CalendarComponent(start: 1)]
                midnight(&spec)
            },
            "annually": yearly, "yearly": yearly, "anually": yearly,
            "weekly": { spec in
                spec.weekdayBits = 1
                midnight(&spec)
            },
            "quarterly": { spec in
                spec.month = [1, 4, 7, 10].map { CalendarComponent(start: $0) }
                spec.day = [CalendarComponent(start: 1)]
                midnight(&spec)
            },
            "biannually": semiannually, "bi-annually": semiannually,
            "semiannually": semiannually, "semi-annually": semiannually,
        ]
    }()

    /// `daily`, `Hourly`, ...: only looked up when the text could be one, to keep parsing cheap.
    private func shorthand() -> (@Sendable (inout CalendarSpec) -> Void)? {
        guard end <= 13, bytes[0..<end].allSatisfy({ Self.lowercased($0) >= 0x61 && Self.lowercased($0) <= 0x7A || $0 == 0x2D })
        else { return nil }
        return Self.shorthands[String(decoding: bytes[0..<end].map(Self.lowercased), as: UTF8.self)]
    }

    // MARK: Zone suffix

    /// ` UTC` (any case), then the local zone's own abbreviations, then a tzdata zone name after the
    /// last space.
    private mutating func cutTimeZoneSuffix(into spec: inout CalendarSpec) {
        if hasSuffixIgnoringCase(Array(" UTC".utf8)) {
            spec.isUTC = true
            end -= 4
            return
        }
        if let zone = localZone?.data {
            for (index, name) in [zone.standardName, zone.daylightName].enumerated() where !name.isEmpty {
                let suffix = Array(name.utf8)
                guard hasSuffixIgnoringCase(suffix) else { continue }
                let start = end - suffix.count
                guard start > 0, bytes[start - 1] == UInt8(ascii: " ") else { continue }
                spec.daylightSaving = index
                spec.localAbbreviation = name
                end = start - 1
                return
            }
        }
        guard let lastSpace = bytes[0..<end].lastIndex(of: UInt8(ascii: " ")) else { return }
        let name = String(decoding: bytes[(lastSpace + 1)..<end], as: UTF8.self)
        guard Self.isValidTimeZoneName(name), let zone = try? TimeZoneRules.load(named: name) else { return }
        spec.timeZone = zone
        end = lastSpace
        if name == "UTC" {
            spec.timeZone = nil
            spec.isUTC = true
        }
    }

    /// systemd's `verify_timezone`: a relative name of `[A-Za-z0-9+_/-]` without empty path
    /// components, naming a regular file that starts with the TZif magic.
    static func isValidTimeZoneName(_ name: String) -> Bool {
        if name == "UTC" { return true }
        guard !name.isEmpty, !name.hasPrefix("/"), !name.hasSuffix("/") else { return false }
        var previousWasSlash = false
        for byte in name.utf8 {
            let isSlash = byte == UInt8(ascii: "/")
            let allowed =
                isDigit(byte) || (lowercased(byte) >= 0x61 && lowercased(byte) <= 0x7A) || isSlash
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "+")
            if !allowed || (isSlash && previousWasSlash) { return false }
            previousWasSlash = isSlash
        }
        return TimeZoneRules.isTZifFile(atPath: TimeZoneRules.zoneInfoDirectory + "/" + name)
    }

    // MARK: Weekdays

    private static let weekdayNames: [(name: [UInt8], day: Int)] = [
        ("monday", 0), ("mon", 0), ("tuesday", 1), ("tue", 1), ("wednesday", 2), ("wed", 2),
        ("thursday", 3), ("thu", 3), ("friday", 4), ("fri", 4), ("saturday", 5), ("sat", 5),
        ("sunday", 6), ("sun", 6),
    ].map { (Array($0.0.utf8), $0.1) }

    private func weekdayName(at offset: Int) -> (length: Int, day: Int)? {
        for entry in Self.weekdayNames {
            guard offset + entry.name.count <= end else { continue }
            if zip(bytes[offset..<(offset + entry.name.count)], entry.name).allSatisfy({
                Self.lowercased($0) == $1
            }) {
                return (entry.name.count, entry.day)
            }
        }
        return nil
    }

    private mutating func skipSpaces() {
        while position < end && bytes[position] == UInt8(ascii: " ") { position += 1 }
    }

    private mutating func parseWeekdays(into spec: inout CalendarSpec) throws(CalendarError) {
        var bits = 0
        var rangeStart = -1
        var first = true
        while true {
            guard let (length, day) = weekdayName(at: position) else {
                if first { return }
                throw failure("a weekday name")
            }
            switch byte(at: position + length) {
            case 0, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: " "): break
            default:
                throw failure("'..', ',' or a space after the weekday", at: position + length)
            }
            bits |= 1 << day
            if rangeStart >= 0 {
                guard rangeStart <= day else {
                    throw failure("a weekday range going forward from Monday to Sunday")
                }
                for between in (rangeStart + 1)..<max(day, rangeStart + 1) {
                    bits |= 1 << between
                }
            }
            spec.weekdayBits = bits
            position += length
            if current == 0 { return }
            if current == UInt8(ascii: " ") {
                skipSpaces()
                return
            }
            if current == UInt8(ascii: ".") {
                guard rangeStart < 0 else { throw failure("a weekday range with one '..'") }
                guard byte(at: position + 1) == UInt8(ascii: ".") else { throw failure("'..' for a weekday range") }
                rangeStart = day
                position += 2
            } else if current == UInt8(ascii: "-") {
                guard rangeStart < 0 else { throw failure("a weekday range with one '-'") }
                rangeStart = day
                position += 1
            } else if current == UInt8(ascii: ",") {
                rangeStart = -1
                position += 1
            }
            // A trailing comma is allowed, an open range is not.
            if current == 0 || current == UInt8(ascii: " ") {
                skipSpaces()
                if rangeStart >= 0 { throw failure("the end of the weekday range") }
                return
            }
            first = false
        }
    }

    // MARK: Date

    /// Returns `true` when the date was an `@` timestamp, which leaves no time to parse.
    private mutating func parseDate(into spec: inout CalendarSpec) throws(CalendarError) -> Bool {
        if current == 0 { return false }
        if current == UInt8(ascii: "@") {
            try parseTimestamp(into: &spec)
            return true
        }
        var cursor = position
        let first = try parseField(at: &cursor, microseconds: false)
        // A ':' means this was a time, not a date.
        if cursor >= end || bytes[cursor] == UInt8(ascii: ":") { return false }
        if bytes[cursor] == UInt8(ascii: "~") {
            spec.endOfMonth = true
        } else if bytes[cursor] != UInt8(ascii: "-") {
            throw failure("'-' or '~' between date fields", at: cursor)
        }
        cursor += 1
        let second = try parseField(at: &cursor, microseconds: false)
        if cursor >= end || bytes[cursor] == UInt8(ascii: " ") {
            position = cursor
            skipSpaces()
            spec.month = first
            spec.day = second
            return false
        }
        if spec.endOfMonth {
            throw failure("a space after the day: '~' must come before the day", at: cursor)
        }
        if bytes[cursor] == UInt8(ascii: "~") {
            spec.endOfMonth = true
        } else if bytes[cursor] != UInt8(ascii: "-") {
            throw failure("'-' or '~' between month and day", at: cursor)
        }
        cursor += 1
        let third = try parseField(at: &cursor, microseconds: false)
        guard cursor >= end || bytes[cursor] == UInt8(ascii: " ") else {
            throw failure("a space between date and time", at: cursor)
        }
        position = cursor
        skipSpaces()
        spec.year = first
        spec.month = second
        spec.day = third
        return false
    }

    /// `@SECONDS`: a single instant, expressed in UTC.
    private mutating func parseTimestamp(into spec: inout CalendarSpec) throws(CalendarError) {
        let digits = bytes[(position + 1)..<end]
        guard !digits.isEmpty, digits.allSatisfy(Self.isDigit), digits.count < 19 else {
            throw failure("whole seconds since the epoch after '@'", at: position + 1)
        }
        let seconds = digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
        let tm = BrokenDownTime(localSeconds: seconds)
        spec.year = [CalendarComponent(start: tm.year)]
        spec.month = [CalendarComponent(start: tm.month + 1)]
        spec.day = [CalendarComponent(start: tm.day)]
        spec.hour = [CalendarComponent(start: tm.hour)]
        spec.minute = [CalendarComponent(start: tm.minute)]
        spec.microsecond = [CalendarComponent(start: tm.second * 1_000_000)]
        spec.isUTC = true
        position = end
    }

    // MARK: Time

    private mutating func parseTime(into spec: inout CalendarSpec) throws(CalendarError) {
        // No time at all means midnight.
        guard current != 0 else {
            spec.hour = [CalendarComponent(start: 0)]
            spec.minute = [CalendarComponent(start: 0)]
            spec.microsecond = [CalendarComponent(start: 0)]
            return
        }
        var cursor = position
        let hour = try parseField(at: &cursor, microseconds: false)
        guard cursor < end, bytes[cursor] == UInt8(ascii: ":") else {
            throw failure("':' between hour and minute", at: cursor)
        }
        cursor += 1
        let minute = try parseField(at: &cursor, microseconds: false)
        var second = [CalendarComponent(start: 0)]
        if cursor < end {
            guard bytes[cursor] == UInt8(ascii: ":") else {
                throw failure("':' between minute and second, or the end", at: cursor)
            }
            cursor += 1
            second = try parseField(at: &cursor, microseconds: true)
            guard cursor >= end else {
                throw failure("the end of the expression after the seconds", at: cursor)
            }
        }
        position = cursor
        spec.hour = hour
        spec.minute = minute
        spec.microsecond = second
    }

    // MARK: Fields

    /// A field: `*`, or a comma-separated list of `N`, `N..M`, `N/R`, `N..M/R`.
    private func parseField(at cursor: inout Int, microseconds: Bool) throws(CalendarError) -> [CalendarComponent] {
        if cursor < end && bytes[cursor] == UInt8(ascii: "*") {
            cursor += 1
            return microseconds ? [CalendarComponent(start: 0, repeatInterval: 1_000_000)] : []
        }
        var field: [CalendarComponent] = []
        while true {
            field.append(try parseComponent(at: &cursor, microseconds: microseconds))
            guard field.count <= 2048 else { throw failure("at most 2048 list elements", at: cursor) }
            guard cursor < end, bytes[cursor] == UInt8(ascii: ",") else { return field }
            cursor += 1
        }
    }

    private func parseComponent(at cursor: inout Int, microseconds: Bool) throws(CalendarError) -> CalendarComponent {
        let start = try parseNumber(at: &cursor, microseconds: microseconds)
        var stop = -1
        var repeatInterval = 0
        if byte(at: cursor) == UInt8(ascii: "."), byte(at: cursor + 1) == UInt8(ascii: ".") {
            cursor += 2
            stop = try parseNumber(at: &cursor, microseconds: microseconds)
            repeatInterval = microseconds ? 1_000_000 : 1
        }
        if byte(at: cursor) == UInt8(ascii: "/") {
            cursor += 1
            repeatInterval = try parseNumber(at: &cursor, microseconds: microseconds)
            guard repeatInterval != 0 else { throw failure("a repetition greater than zero", at: cursor - 1) }
        } else {
            guard start <= Int(Int32.max) - repeatInterval else { throw failure("a smaller value", at: cursor) }
            // Without an explicit repetition, a seconds range must span at least one second.
            if microseconds && stop >= 0 && start + repeatInterval > stop {
                throw failure("a seconds range spanning at least one second", at: cursor)
            }
        }
        switch byte(at: cursor) {
        case 0, UInt8(ascii: " "), UInt8(ascii: ","), UInt8(ascii: "-"), UInt8(ascii: "~"), UInt8(ascii: ":"): break
        default: throw failure("a number, '..', '/', ',' or a field separator", at: cursor)
        }
        return CalendarComponent(start: start, stop: stop, repeatInterval: repeatInterval)
    }

    /// A decimal number; for seconds, with up to six fractional digits (more are rounded), in
    /// microseconds.
    private func parseNumber(at cursor: inout Int, microseconds: Bool) throws(CalendarError) -> Int {
        guard Self.isDigit(byte(at: cursor)) else { throw failure("a number", at: cursor) }
        var value = 0
        while Self.isDigit(byte(at: cursor)) {
            value = value * 10 + Int(bytes[cursor] - 0x30)
            cursor += 1
            // Anything this large is out of range for every field; stop before overflowing.
            if value > Int(Int32.max) { throw failure("a smaller number", at: cursor) }
        }
        guard microseconds else { return value }
        value *= 1_000_000
        // One '.' is a decimal point, two are a range.
        if byte(at: cursor) == UInt8(ascii: "."), byte(at: cursor + 1) != UInt8(ascii: ".") {
            cursor += 1
            guard Self.isDigit(byte(at: cursor)) else { throw failure("digits after the decimal point", at: cursor) }
            var fraction = 0
            var digits = 0
            while digits < 6 && Self.isDigit(byte(at: cursor)) {
                fraction = fraction * 10 + Int(bytes[cursor] - 0x30)
                digits += 1
                cursor += 1
            }
            for _ in digits..<6 { fraction *= 10 }
            if digits == 6, byte(at: cursor) >= UInt8(ascii: "5"), byte(at: cursor) <= UInt8(ascii: "9") {
                fraction += 1
            }
            while Self.isDigit(byte(at: cursor)) { cursor += 1 }
            value += fraction
        }
        guard value <= Int(Int32.max) else { throw failure("a smaller number of seconds", at: cursor) }
        return value
    }
}
