/// The five fields of a cron schedule, as bit sets, plus which fields started with `*`.
///
/// See ``CronSpec`` for the syntax and the rules this follows.
package struct CronSchedule: Sendable, Hashable {
    /// Bit n set: minute n matches.
    var minutes: UInt64 = 0
    var hours: UInt64 = 0
    /// Bits 1...31.
    var daysOfMonth: UInt64 = 0
    /// Bits 1...12.
    var months: UInt64 = 0
    /// Bits 0...6, Sunday = 0 (a 7 in the text sets bit 0).
    var daysOfWeek: UInt64 = 0
    var minuteIsStar = false
    var hourIsStar = false
    var dayOfMonthIsStar = false
    var dayOfWeekIsStar = false
    /// The text as written.
    package let original: String
    /// The zone named after the fields (`0 6 * * * Europe/Berlin`), in which the schedule is
    /// matched as cronie matches a job under `CRON_TZ=` (see ``CronSpec``); `nil`: the local zone,
    /// with Debian's rules.
    package internal(set) var zone: TimeZoneRules?

    /// A job whose minute or hour field starts with `*`: cron runs it as the clock says across DST
    /// changes instead of catching up or suppressing repeats.
    package var isWildcard: Bool { minuteIsStar || hourIsStar }

    private struct FieldKind {
        var name: String
        var range: ClosedRange<Int>
        var names: [String]
    }

    private static let fieldKinds = [
        FieldKind(name: "minute", range: 0...59, names: []),
        FieldKind(name: "hour", range: 0...23, names: []),
        FieldKind(name: "day of month", range: 1...31, names: []),
        FieldKind(
            name: "month", range: 1...12,
            names: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]),
        FieldKind(name: "day of week", range: 0...7, names: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]),
    ]

    init(fields text: String, original: String) throws(CalendarError) {
        self.original = original
        let bytes = Array(text.utf8)
        var fields: [(start: Int, end: Int)] = []
        var index = 0
        while index < bytes.count {
            while index < bytes.count && (bytes[index] == 0x20 || bytes[index] == 0x09) { index += 1 }
            guard index < bytes.count else { break }
            let start = index
            while index < bytes.count && bytes[index] != 0x20 && bytes[index] != 0x09 { index += 1 }
            fields.append((start, index))
        }
        guard fields.count == 5 else {
            throw CalendarError(
                code: .invalidCronExpression, input: original, column: nil,
                expected: "five fields (minute hour day-of-month month day-of-week), found \(fields.count)")
        }
        var sets: [UInt64] = []
        var stars: [Bool] = []
        for (kind, field) in zip(Self.fieldKinds, fields) {
            sets.append(try Self.parseField(bytes[field.start..<field.end], kind: kind, offset: field.start, original: original))
            stars.append(bytes[field.start] == UInt8(ascii: "*"))
        }
        minutes = sets[0]
        hours = sets[1]
        daysOfMonth = sets[2]
        months = sets[3]
        // 0 and 7 are both Sunday.
        daysOfWeek = (sets[4] | (sets[4] >> 7)) & 0x7F
        minuteIsStar = stars[0]
        hourIsStar = stars[1]
        dayOfMonthIsStar = stars[2]
        dayOfWeekIsStar = stars[4]
    }

    private static func parseField(
        _ field: ArraySlice<UInt8>, kind: FieldKind, offset: Int, original: String
    ) throws(CalendarError) -> UInt64 {
        var bits: UInt64 = 0
        var position = field.startIndex
        func fail(_ expected: String) -> CalendarError {
            CalendarError(
                code: .invalidCronExpression, input: original, column: position + 1,
                expected: "\(expected) in the \(kind.name) field")
        }
        func number(allowNames: Bool) throws(CalendarError) -> Int {
            let start = position
            if position < field.endIndex, field[position] >= 0x30, field[position] <= 0x39 {
                var value = 0
                while position < field.endIndex, field[position] >= 0x30, field[position] <= 0x39 {
                    value = value * 10 + Int(field[position] - 0x30)
                    position += 1
                    if value > 1000 { throw fail("a number from \(kind.range.lowerBound) to \(kind.range.upperBound)") }
                }
                return value
            }
            while position < field.endIndex, (field[position] | 0x20) >= 0x61, (field[position] | 0x20) <= 0x7A {
                position += 1
            }
            let word = String(decoding: field[start..<position], as: UTF8.self).lowercased()
            if allowNames, let index = kind.names.firstIndex(of: word) {
                return kind.range.lowerBound == 0 ? index : index + 1
            }
            position = start
            if kind.names.isEmpty || !allowNames {
                throw fail("a number")
            }
            throw fail("a number or a three-letter name (\(kind.names.joined(separator: ", ")))")
        }
        while true {
            var low: Int
            var high: Int
            if position < field.endIndex, field[position] == UInt8(ascii: "*") {
                position += 1
                low = kind.range.lowerBound
                high = kind.range.upperBound
            } else {
                let lowStart = position
                low = try number(allowNames: true)
                guard kind.range.contains(low) else {
                    position = lowStart
                    throw fail("a value from \(kind.range.lowerBound) to \(kind.range.upperBound), not \(low)")
                }
                high = low
                if position < field.endIndex, field[position] == UInt8(ascii: "-") {
                    position += 1
                    let highStart = position
                    high = try number(allowNames: true)
                    guard kind.range.contains(high) else {
                        position = highStart
                        throw fail("a value from \(kind.range.lowerBound) to \(kind.range.upperBound), not \(high)")
                    }
                    guard low <= high else { throw fail("a range from low to high, not \(low)-\(high)") }
                } else if position < field.endIndex, field[position] == UInt8(ascii: "/") {
                    // cron takes a single number followed by a step as an error.
                    throw fail("',' or the end of the field (a step needs a range or '*')")
                }
            }
            var step = 1
            if position < field.endIndex, field[position] == UInt8(ascii: "/") {
                position += 1
                step = try number(allowNames: false)
                guard step > 0 else { throw fail("a step greater than zero") }
            }
            var value = low
            while value <= high {
                bits |= 1 << UInt64(value)
                value += step
            }
            if position == field.endIndex { return bits }
            guard field[position] == UInt8(ascii: ",") else { throw fail("',', '-', '/' or the end of the field") }
            position += 1
        }
    }

    // MARK: Normalized text

    var normalized: String {
        [
            Self.format(minutes, range: 0...59, star: minuteIsStar),
            Self.format(hours, range: 0...23, star: hourIsStar),
            Self.format(daysOfMonth, range: 1...31, star: dayOfMonthIsStar),
            Self.format(months, range: 1...12, star: false, starMatters: false),
            Self.format(daysOfWeek, range: 0...6, star: dayOfWeekIsStar),
        ].joined(separator: " ") + (zone.map { " " + $0.identifier } ?? "")
    }

    /// `starMatters`: whether the field's leading `*` changes a rule (the day rule, the DST rule).
    private static func format(_ bits: UInt64, range: ClosedRange<Int>, star: Bool, starMatters: Bool = true) -> String {
        let values = range.filter { bits & (1 << UInt64($0)) != 0 }
        // A full field prints as `*` only when that keeps its rules: `0-7` for the day of week stays
        // restricted for the day rule, and `0-59` for the minute keeps a job fixed-time for DST.
        if values.count == range.count && (star || !starMatters) {
            return "*"
        }
        if star {
            // Keep the leading '*' the day rule depends on: `*/n` when the values are exactly a
            // progression from the field's start, otherwise `*/width` (the start alone) plus a list.
            for step in 2...range.count {
                let progression = Array(stride(from: range.lowerBound, through: range.upperBound, by: step))
                if progression == values {
                    return "*/\(step)"
                }
            }
            let rest = values.dropFirst()
            return "*/\(range.count)" + (rest.isEmpty ? "" : "," + list(Array(rest)))
        }
        return list(values)
    }

    private static func list(_ values: [Int]) -> String {
        var parts: [String] = []
        var index = 0
        while index < values.count {
            var end = index
            while end + 1 < values.count && values[end + 1] == values[end] + 1 { end += 1 }
            if end - index >= 2 {
                parts.append("\(values[index])-\(values[end])")
            } else {
                for value in values[index...end] { parts.append(String(value)) }
            }
            index = end + 1
        }
        return parts.joined(separator: ",")
    }
}
