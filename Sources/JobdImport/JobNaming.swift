import JobdCalendar

/// Job names for imported cron lines: from a comment directly above the entry when there is one,
/// else derived from the command, so that the same crontab gives the same names; after a prefix
/// (`--prefix`), and made unique within one import by a `-2`, `-3`… in the order of the lines.
struct JobNaming {
    private var used: Set<String> = []
    private let prefix: String

    init(prefix: String = "") {
        self.prefix = prefix
    }

    /// Words that start a command without saying what it does; the word after them is the name.
    private static let wrappers: Set<String> = [
        "exec", "nice", "ionice", "nohup", "env", "sudo", "chronic", "flock", "timeout", "time", "setsid",
        "sh", "bash", "dash", "then", "do", "else", "!", "{", "(",
    ]
    /// Commands that only test or move: the name comes from what follows `&&`, `||` or `;`.
    private static let preambles: Set<String> = ["cd", "test", "[", "[[", "if", "sleep", "umask", "export"]

    /// A unique name for `command` (the shell command, without cron's `%` input), or for the
    /// `comment` line directly above it when that names it.
    mutating func name(for command: String, comment: String? = nil) -> String {
        let base = prefix + (comment.flatMap(Self.base(forComment:)) ?? Self.base(for: command))
        var name = base
        var counter = 2
        while used.contains(name) {
            name = "\(base)-\(counter)"
            counter += 1
        }
        used.insert(name)
        return name
    }

    /// Words of the column header Debian's crontab template has above the entries.
    private static let headerWords: Set<String> = ["m", "h", "dom", "mon", "dow", "user", "command", "min", "hour", "minute", "day", "month", "weekday"]

    /// A name from a comment line (`# Nightly backup` gives `nightly-backup`), or `nil` for a
    /// comment that names nothing: an entry commented out, cron's column header, a rule of `#`s.
    static func base(forComment line: String) -> String? {
        let text = line.drop { $0 == " " || $0 == "\t" || $0 == "#" }
        switch CrontabLine.parse(Substring(text), systemFormat: false) {
        case .environment: return nil
        case .job(let schedule, _, _) where (try? CronSpec.parse(schedule)) != nil: return nil
        default: break
        }
        let words = text.lowercased().split { !$0.isLetter && !$0.isNumber }
        if words.isEmpty || words.allSatisfy({ headerWords.contains(String($0)) }) { return nil }
        let name = sanitized(text.lowercased())
        return name.isEmpty ? nil : name
    }

    /// The program a command runs, by the first word that is not a wrapper, an option or its
    /// value, an assignment or a redirection; `run-parts DIR` is named after its directory.
    static func base(for command: String) -> String {
        var words: [Substring] = []
        for word in command.split(whereSeparator: { " \t\"'`".contains($0) }) {
            for (index, piece) in word.split(separator: ";", omittingEmptySubsequences: false).enumerated() {
                if index > 0 { words.append(";") }
                words.append(piece)
            }
        }
        var skippingPreamble = false
        var program: Substring?
        for (index, word) in words.enumerated() {
            if ["&&", "||", ";", "|"].contains(word) || word.isEmpty {
                skippingPreamble = false
                continue
            }
            if skippingPreamble { continue }
            let name = word.split(separator: "/").last ?? word
            if preambles.contains(String(name)) { skippingPreamble = true; continue }
            // A word starting with a digit is an option's value (`nice -n 19`, `timeout 5m`), not a program.
            if wrappers.contains(String(name)) || word.hasPrefix("-") || word.contains("=") || isRedirection(word)
                || word.first?.isNumber == true {
                continue
            }
            if name == "run-parts", let directory = words[(index + 1)...].last(where: { !$0.hasPrefix("-") && $0.contains("/") }) {
                program = "run-parts-" + (directory.split(separator: "/").last ?? "")
            } else {
                program = name
            }
            break
        }
        var stem = String(program ?? "cron-job")
        for suffix in [".sh", ".py", ".pl", ".rb", ".php"] where stem.hasSuffix(suffix) && stem.count > suffix.count {
            stem.removeLast(suffix.count)
        }
        let name = sanitized(stem)
        return name.isEmpty ? "cron-job" : name
    }

    /// `text` with runs of anything but ASCII letters, digits and `_.-` as one `-`, without `-`
    /// or `.` at either end, at most 48 characters.
    private static func sanitized(_ text: String) -> String {
        var sanitized = ""
        for scalar in text.unicodeScalars {
            let keep = scalar.isASCII && (scalar.properties.isAlphabetic || scalar.properties.numericType == .decimal || "_.-".unicodeScalars.contains(scalar))
            if keep {
                sanitized.unicodeScalars.append(scalar)
            } else if sanitized.last != "-" {
                sanitized += "-"
            }
        }
        let trimmed = sanitized.drop { $0 == "-" || $0 == "." }.prefix(48)
        return String(trimmed.reversed().drop { $0 == "-" || $0 == "." }.reversed())
    }

    /// `>file`, `<file`, `2>&1`, `&>file`.
    private static func isRedirection(_ word: Substring) -> Bool {
        let afterDigits = word.drop { $0.isASCII && $0.isNumber }
        return afterDigits.first == ">" || afterDigits.first == "<" || word.hasPrefix("&>")
    }
}
