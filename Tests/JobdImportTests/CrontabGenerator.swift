import JobdTestKit

/// Seeded crontabs for the round trip: schedules (five fields and `@` names), environment lines in
/// cron's quoting forms, and commands that show their standard input, variables and exit status,
/// written with `%`, `\%` and backslashes in both the command and its input.
struct CrontabGenerator {
    private var random: SplitMix64

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    mutating func below(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
    mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

    mutating func schedule() -> String {
        if chance(20) { return pick(["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly", "@reboot"]) }
        let minute = field(0, 59, names: [])
        let hour = field(0, 23, names: [])
        let day = field(1, 31, names: [])
        let month = field(1, 12, names: ["jan", "feb", "mar", "Apr", "jun", "DEC"])
        let weekday = field(0, 7, names: ["sun", "mon", "Tue", "fri", "sat"])
        return [minute, hour, day, month, weekday].joined(separator: pick([" ", "  ", "\t"]))
    }

    private mutating func field(_ low: Int, _ high: Int, names: [String]) -> String {
        switch below(8) {
        case 0, 1: return "*"
        case 2: return "*/\(1 + below(high - low))"
        case 3:
            let start = low + below(high - low)
            return "\(start)-\(start + below(high - start + 1))"
        case 4:
            let start = low + below(high - low)
            return "\(start)-\(high)/\(1 + below(4))"
        case 5 where !names.isEmpty: return pick(names)
        default:
            return (0..<(1 + below(3))).map { _ in String(low + below(high - low + 1)) }.joined(separator: ",")
        }
    }

    /// `NAME=value` in one of cron's forms; returns the line.
    mutating func environmentLine(name: String) -> String {
        let value = pick(["plain", "two words", "it's", "say \"hi\"", "a$b", "x;y", "back\\slash", "", "100%", "  padded  "])
        let space = pick(["", " "])
        switch below(3) {
        case 0 where !value.contains("\""): return "\(name)\(space)=\(space)\"\(value)\""
        case 1 where !value.contains("'"): return "\(name)\(space)=\(space)'\(value)'"
        case _ where value.isEmpty:
            // An empty value needs quotes: `NAME=` is no setting to cron.
            return "\(name)\(space)=\(space)\"\""
        default:
            // Unquoted: cron drops leading and trailing blanks.
            return "\(name)\(space)=\(space)\(value.drop { $0 == " " })" + pick(["", "  "])
        }
    }

    static let variables = ["GREETING", "SUBJECT", "EMPTY_ONE"]

    /// The command part: one or two pieces, and sometimes `%` input.
    mutating func command() -> String {
        var text = piece()
        if chance(40) { text += pick(["; ", " && ", " || ", ";"]) + piece() }
        if chance(50) { text += "%" + input() }
        return text
    }

    private mutating func piece() -> String {
        switch below(12) {
        case 0: return "echo \(word())"
        case 1: return "cat"
        case 2: return "od -An -c"
        case 3: return "read first; echo \"first=$first\"; exit \(below(4))"
        case 4: return "printf '[\\%s]' \"$\(pick(Self.variables))\""
        case 5: return "echo \"$HOME:$SHELL:$PATH:$LOGNAME\"; pwd"
        case 6: return "head -c \(1 + below(6)) | od -An -c; exit \(below(3))"
        case 7: return "echo 'a\\\\b' \"c\\\\%d\""
        case 8: return "test -t 0 && echo tty || echo notty"
        case 9: return "wc -l"
        case 10: return "exit \(below(5))"
        default: return "echo \"${\(pick(Self.variables)):-unset}\" $((\(below(9)) \\% 4))"
        }
    }

    private mutating func word() -> String {
        (0..<(1 + below(3))).map { _ in pick(["x", "100\\%", "a\\\\b", "'q w'", "\\$HOME", "\"$GREETING\"", "t\\tab"]) }.joined()
    }

    /// cron input text: lines joined by `%`, with escapes and shell-looking text that must stay
    /// data.
    private mutating func input() -> String {
        (0..<(1 + below(4))).map { _ in
            (0..<below(4)).map { _ in pick(["data", " ", "\\%", "\\\\%", "\\", "'", "\"", "$HOME", ";", "JOBD_STDIN", "é"]) }.joined()
        }.joined(separator: "%") + pick(["", "", "%", "\\"])
    }
}
