/// One line of a crontab, read as Debian's cron reads it (crontab(5)).
package enum CrontabLine: Sendable, Hashable {
    /// A blank line or a comment (`#` as the first non-blank character).
    case ignored
    /// `NAME = value`: sets a variable for the commands on the lines below.
    case environment(name: String, value: String)
    /// A schedule (five fields or an `@` name), the user field in a system crontab, and the rest
    /// of the line, the command with its `%` input.
    case job(schedule: String, user: String?, commandText: String)
    /// Neither: cron would reject the crontab.
    case invalid(String)

    /// Reads `line`; `systemFormat` for `/etc/crontab` and `/etc/cron.d`, whose lines name the user
    /// after the schedule.
    package static func parse(_ line: Substring, systemFormat: Bool) -> CrontabLine {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        if trimmed.isEmpty || trimmed.first == "#" { return .ignored }
        if let (name, value) = environment(trimmed) { return .environment(name: name, value: value) }
        return job(trimmed, systemFormat: systemFormat)
    }

    /// cron's reading of an environment line: the name, optionally quoted (single or double,
    /// matching), white space optional around `=`, the value optionally quoted to keep leading and
    /// trailing blanks; an unquoted value loses its trailing blanks. `nil` when the line is not one.
    static func environment(_ line: Substring) -> (String, String)? {
        var rest = line[...]
        guard let name = quotedOrBare(&rest, stopAtEquals: true) else { return nil }
        rest = rest.drop { $0 == " " || $0 == "\t" }
        guard rest.first == "=" else { return nil }
        rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
        if let quote = rest.first, quote == "\"" || quote == "'" {
            let body = rest.dropFirst()
            // An unclosed quote makes it no environment line (and so a malformed job line).
            guard let close = body.firstIndex(of: quote) else { return nil }
            guard body[body.index(after: close)...].allSatisfy({ $0 == " " || $0 == "\t" }) else { return nil }
            return (name, String(body[..<close]))
        }
        return (name, String(trimmingTrailingBlanks(rest)))
    }

    private static func quotedOrBare(_ rest: inout Substring, stopAtEquals: Bool) -> String? {
        if let quote = rest.first, quote == "\"" || quote == "'" {
            let body = rest.dropFirst()
            guard let close = body.firstIndex(of: quote), !body[..<close].contains("=") else { return nil }
            rest = body[body.index(after: close)...]
            return String(body[..<close])
        }
        let name = rest.prefix { $0 != " " && $0 != "\t" && $0 != "=" }
        rest = rest[name.endIndex...]
        return name.isEmpty ? nil : String(name)
    }

    private static func trimmingTrailingBlanks(_ text: Substring) -> Substring {
        var text = text
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }

    private static func job(_ line: Substring, systemFormat: Bool) -> CrontabLine {
        var rest = line
        func field() -> Substring? {
            rest = rest.drop { $0 == " " || $0 == "\t" }
            let word = rest.prefix { $0 != " " && $0 != "\t" }
            rest = rest[word.endIndex...]
            return word.isEmpty ? nil : word
        }
        var schedule: [Substring] = []
        let count = line.first == "@" ? 1 : 5
        for _ in 0..<count {
            guard let word = field() else {
                return .invalid("expected \(count == 1 ? "an @ name" : "five time fields") and a command")
            }
            schedule.append(word)
        }
        var user: String?
        if systemFormat {
            guard let word = field() else { return .invalid("expected the user name after the schedule") }
            user = String(word)
        }
        let command = rest.drop { $0 == " " || $0 == "\t" }
        guard !command.isEmpty else { return .invalid("the line has a schedule but no command") }
        return .job(schedule: schedule.joined(separator: " "), user: user, commandText: String(command))
    }
}
