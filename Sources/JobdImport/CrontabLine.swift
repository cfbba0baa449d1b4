/// One line of a crontab, read as Debian's cron (3.0pl1-162) reads it (crontab(5), and cron's
/// `load_env` and `load_entry`).
///
/// Read by Unicode scalars, as cron reads bytes: a `Character` can join a blank with the combining
/// mark after it, and cron would still see the blank.
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

    typealias Scalars = Substring.UnicodeScalarView

    /// Reads `line`; `systemFormat` for `/etc/crontab` and `/etc/cron.d`, whose lines name the user
    /// after the schedule.
    package static func parse(_ line: Substring, systemFormat: Bool) -> CrontabLine {
        let trimmed = line.unicodeScalars.drop(while: isBlank)
        if trimmed.isEmpty || trimmed.first == "#" { return .ignored }
        if let (name, value) = environment(trimmed) { return .environment(name: name, value: value) }
        return job(trimmed, systemFormat: systemFormat)
    }

    static func isBlank(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }

    /// cron's reading of an environment line: the name, optionally quoted (single or double,
    /// matching, without `=`), white space optional around `=`, then the value, quoted or not, and
    /// nothing but blanks after a closing quote. The value then loses its trailing blanks, also
    /// inside quotes, and one more pair of matching quotes around it (`strdtb` and what follows
    /// it in `load_env`). An empty unquoted value makes no environment line. `nil` when the line
    /// is not one.
    static func environment(_ line: Scalars) -> (String, String)? {
        var rest = line
        guard let name = quotedOrBare(&rest) else { return nil }
        rest = rest.drop(while: isBlank)
        guard rest.first == "=" else { return nil }
        rest = rest.dropFirst().drop(while: isBlank)
        var value: Scalars
        if let quote = rest.first, quote == "\"" || quote == "'" {
            let body = rest.dropFirst()
            // An unclosed quote makes it no environment line (and so a malformed job line).
            guard let close = body.firstIndex(of: quote) else { return nil }
            guard body[body.index(after: close)...].allSatisfy(isBlank) else { return nil }
            value = body[..<close]
        } else {
            guard !rest.isEmpty else { return nil }
            value = rest
        }
        value = trimmingTrailingBlanks(value)
        if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
            value = value.dropFirst().dropLast()
        }
        return (String(Substring(name)), String(Substring(value)))
    }

    private static func quotedOrBare(_ rest: inout Scalars) -> Scalars? {
        if let quote = rest.first, quote == "\"" || quote == "'" {
            let body = rest.dropFirst()
            guard let close = body.firstIndex(of: quote), !body[..<close].contains("=") else { return nil }
            rest = body[body.index(after: close)...]
            return body[..<close]
        }
        let name = rest.prefix { !isBlank($0) && $0 != "=" }
        rest = rest[name.endIndex...]
        return name.isEmpty ? nil : name
    }

    private static func trimmingTrailingBlanks(_ text: Scalars) -> Scalars {
        var text = text
        while let last = text.last, isBlank(last) { text = text.dropLast() }
        return text
    }

    private static func job(_ line: Scalars, systemFormat: Bool) -> CrontabLine {
        var rest = line
        func field() -> Scalars? {
            rest = rest.drop(while: isBlank)
            let word = rest.prefix { !isBlank($0) }
            rest = rest[word.endIndex...]
            return word.isEmpty ? nil : word
        }
        var schedule: [String] = []
        let count = line.first == "@" ? 1 : 5
        for _ in 0..<count {
            guard let word = field() else {
                return .invalid("expected \(count == 1 ? "an @ name" : "five time fields") and a command")
            }
            schedule.append(String(Substring(word)))
        }
        var user: String?
        if systemFormat {
            guard let word = field() else { return .invalid("expected the user name after the schedule") }
            user = String(Substring(word))
        }
        let command = rest.drop(while: isBlank)
        guard !command.isEmpty else { return .invalid("the line has a schedule but no command") }
        return .job(schedule: schedule.joined(separator: " "), user: user, commandText: String(Substring(command)))
    }
}
