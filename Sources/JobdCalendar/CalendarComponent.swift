/// One element of a calendar field: a value, a range `start..stop`, or a repetition `start/repeat`
/// (optionally bounded by `stop`), as systemd's `CalendarComponent`.
///
/// Seconds are stored in microseconds so `05.250000` and `0/0.5` are plain integers. A field is a
/// list of these; an empty list is `*`.
struct CalendarComponent: Sendable, Hashable, Comparable {
    var start: Int
    /// -1 when there is no upper bound.
    var stop: Int = -1
    /// 0 when the element does not repeat.
    var repeatInterval: Int = 0

    static func < (lhs: CalendarComponent, rhs: CalendarComponent) -> Bool {
        (lhs.start, lhs.stop, lhs.repeatInterval) < (rhs.start, rhs.stop, rhs.repeatInterval)
    }

    /// systemd's `normalize_chain`: trim a range to a multiple of its repetition, drop repetitions
    /// that cannot fire twice, sort, and remove duplicates.
    static func normalize(_ field: [CalendarComponent]) -> [CalendarComponent] {
        var result = field.map { element -> CalendarComponent in
            var element = element
            if element.stop > element.start && element.repeatInterval > 0 {
                element.stop -= (element.stop - element.start) % element.repeatInterval
            }
            if (element.stop > element.start && element.start + element.repeatInterval > element.stop)
                || element.start == element.stop
            {
                element.repeatInterval = 0
                element.stop = -1
            }
            return element
        }
        guard result.count > 1 else { return result }
        result.sort()
        var unique: [CalendarComponent] = []
        unique.reserveCapacity(result.count)
        for element in result where unique.last != element {
            unique.append(element)
        }
        return unique
    }

    /// systemd's `chain_valid` for a field allowing `from...to`.
    static func isValid(_ field: [CalendarComponent], from: Int, to: Int, endOfMonth: Bool) -> Bool {
        // Counting from the end of the month, at most 28 days back.
        let to = endOfMonth ? to - 3 : to
        for element in field {
            if element.start < from || element.start > to { return false }
            // A repetition must be able to fire at least twice: forwards within the field, or
            // for days counted from the end of the month, backwards towards its last day.
            if element.repeatInterval > 0 && element.stop < 0 {
                if endOfMonth ? element.start - element.repeatInterval < from : element.start + element.repeatInterval > to {
                    return false
                }
            }
            if element.stop >= 0 {
                if element.stop < from || element.stop > to { return false }
                if element.start > element.stop { return false }
            }
        }
        return true
    }

    /// systemd's `format_chain`: zero-padded to `width`, seconds with six fractional digits when
    /// they have any.
    static func format(_ field: [CalendarComponent], width: Int, microseconds: Bool) -> String {
        let unit = microseconds ? 1_000_000 : 1
        if field.isEmpty {
            return "*"
        }
        // systemd 252's `chain_is_star`: seconds that include `0/1` anywhere in the list cover every
        // whole second, and the whole list prints as `*` (`*:4,30:0/1,3,5` is `*:04,30:*`).
        if microseconds && field.contains(where: { $0.start == 0 && $0.stop < 0 && $0.repeatInterval == unit }) {
            return "*"
        }
        func number(_ value: Int, padded: Bool) -> String {
            var text = String(value / unit)
            if padded && text.count < width {
                text = String(repeating: "0", count: width - text.count) + text
            }
            if microseconds && value % unit > 0 {
                let fraction = String(value % unit)
                text += "." + String(repeating: "0", count: 6 - fraction.count) + fraction
            }
            return text
        }
        var parts: [String] = []
        for element in field {
            var text = number(element.start, padded: true)
            if element.stop > 0 {
                text += ".." + number(element.stop, padded: true)
            }
            if element.repeatInterval > 0 && !(element.stop > 0 && element.repeatInterval == unit) {
                text += "/" + number(element.repeatInterval, padded: false)
            }
            parts.append(text)
        }
        return parts.joined(separator: ",")
    }
}
