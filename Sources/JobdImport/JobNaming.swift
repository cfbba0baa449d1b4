/// Job names for imported cron lines: derived from the command, so that the same crontab gives the
/// same names, and made unique within one import by a `-2`, `-3`… in the order of the lines.
struct JobNaming {
    private var used: Set<String> = []

    /// Words that start a command without saying what it does; the word after them is the name.
    private static let wrappers: Set<String> = [
        "exec", "nice", "ionice", "nohup", "env", "sudo", "chronic", "flock", "timeout", "time", "setsid",
        "sh", "bash", "dash", "then", "do", "else", "!", "{", "(",
    ]
    /// Commands that only test or move: the name comes from what follows `&&`, `||` or `;`.
    private static let preambles: Set<String> = ["cd", "test", "[", "[[", "if", "sleep", "umask", "export"]

    /// A unique name for `command` (the shell command, without cron's `%` input).
    mutating func name(for command: String) -> String {
        let base = Self.base(for: command)
        var name = base
        var counter = 2
        while used.contains(name) {
            name = "\(base)-\(counter)"
            counter += 1
        }
        used.insert(name)
        return name
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
        var sanitized = ""
        for scalar in stem.unicodeScalars {
            let keep = scalar.isASCII && (scalar.properties.isAlphabetic || scalar.properties.numericType == .decimal || "_.-".unicodeScalars.contains(scalar))
            if keep {
                sanitized.unicodeScalars.append(scalar)
            } else if sanitized.last != "-" {
                sanitized += "-"
            }
        }
        let trimmed = sanitized.drop { $0 == "-" || $0 == "." }.prefix(48)
        let name = String(trimmed.reversed().drop { $0 == "-" || $0 == "." }.reversed())
        return name.isEmpty ? "cron-job" : name
    }

    /// `>file`, `<file`, `2>&1`, `&>file`.
    private static func isRedirection(_ word: Substring) -> Bool {
        let afterDigits = word.drop { $0.isASCII && $0.isNumber }
        return afterDigits.first == ">" || afterDigits.first == "<" || word.hasPrefix("&>")
    }
}
