/// A job's `ExecStart=`: an argv, never a shell (a job that wants one writes `/bin/sh -c '…'`).
///
/// Read with systemd's rules for command lines: quoting and escapes as in systemd.syntax(7),
/// `${NAME}` and whole-word `$NAME` expanded from the job's environment when it runs (the latter
/// split at white space), `$$` for a dollar, `%%` for a percent sign, and the `-` prefix (a failing
/// exit status is logged but not counted as a failure). The executable is an absolute path or a
/// bare name looked up in the job's `PATH`.
package struct ExecCommand: Sendable, Hashable, CustomStringConvertible {
    package enum Part: Sendable, Hashable {
        case literal(String)
        case variable(String)
        case splitVariable(String)
    }

    /// The command as written, for logs and `jobctl status`; its words are read from it again
    /// when they are needed (``words``), once per run: a job keeps one string rather than an array
    /// per word (issue 19: 100,000 jobs held 0.5 KB each of parsed words).
    package let text: String
    /// `-` prefix: a non-zero exit is not a failure.
    package let ignoresFailure: Bool

    package struct ParseError: Error, Sendable {
        package var message: String
        package var hint: String?
    }

    private init(text: String, ignoresFailure: Bool) {
        self.text = text
        self.ignoresFailure = ignoresFailure
    }

    package static func parse(_ text: String) throws(ParseError) -> ExecCommand {
        let ignoresFailure = try split(text, keeping: 1).ignoresFailure
        return ExecCommand(text: text, ignoresFailure: ignoresFailure)
    }

    /// The words, the first being the executable; each word is a list of parts.
    package var words: [[Part]] {
        // `text` was read when this command was made, so it reads again.
        (try? Self.split(text).words) ?? []
    }

    /// Reads `text` as ``parse(_:)`` does: its words (the first `keeping`, all checked), and whether
    /// it has the `-` prefix.
    /// The error for `%` followed by `next` (not another `%`): the specifier it names, and what a
    /// job has instead where there is something.
    private static func specifierError(_ next: UInt8?) -> ParseError {
        guard let next, next >= 0x21, next < 0x7f else {
            return ParseError(message: "a lone '%' in ExecStart=", hint: "write '%%' for a literal percent sign")
        }
        let specifier = "%" + String(UnicodeScalar(next))
        let instead: String? = switch next {
        case UInt8(ascii: "n"), UInt8(ascii: "N"), UInt8(ascii: "p"), UInt8(ascii: "P"): "$JOBD_JOB holds the job's name"
        case UInt8(ascii: "u"), UInt8(ascii: "U"): "$USER holds the run's user"
        case UInt8(ascii: "h"): "$HOME holds the run's user's home"
        case UInt8(ascii: "i"), UInt8(ascii: "I"), UInt8(ascii: "j"), UInt8(ascii: "J"): "jobd has no template instances"
        default: nil
        }
        return ParseError(
            message: "the specifier '\(specifier)' is not supported by jobd",
            hint: (instead.map { $0 + "; " } ?? "") + "write '%%' for a literal percent sign")
    }

    private static func split(_ text: String, keeping: Int = .max) throws(ParseError) -> (words: [[Part]], ignoresFailure: Bool) {
        var body = Substring(text).trimmingWhitespace()
        var ignoresFailure = false
        while let prefix = body.first, "-@:+!".contains(prefix) {
            switch prefix {
            case "-": ignoresFailure = true
            default:
                throw ParseError(
                    message: "the '\(prefix)' prefix of ExecStart= is not supported by jobd",
                    hint: "jobd supports only '-' (ignore a failing exit status); use User= and Group= for privileges")
            }
            body = body.dropFirst()
        }
        // `%%` is a percent sign; any other specifier is refused. On bytes: `%` is ASCII.
        var unescaped: [UInt8] = []
        unescaped.reserveCapacity(body.utf8.count)
        var bytes = body.utf8.makeIterator()
        while let byte = bytes.next() {
            if byte == UInt8(ascii: "%") {
                let next = bytes.next()
                guard next == UInt8(ascii: "%") else {
                    throw Self.specifierError(next)
                }
            }
            unescaped.append(byte)
        }
        let split: [[WordSplitter.Part]]
        do {
            split = try unescaped.withUnsafeBufferPointer { bytes throws(WordSplitter.SplitError) in
                try WordSplitter.split(bytes, variables: true, keeping: keeping)
            }
        } catch {
            throw ParseError(message: "cannot read the command line: \(error.message)")
        }
        guard let first = split.first else {
            throw ParseError(message: "ExecStart= names no command", hint: "give the program's absolute path and its arguments")
        }
        guard first.count == 1, case .literal(let executable) = first[0] else {
            throw ParseError(message: "the executable must be written literally, not through a variable")
        }
        if executable.contains("/"), !executable.hasPrefix("/") {
            throw ParseError(
                message: "the executable '\(executable)' is a relative path",
                hint: "use an absolute path, or a bare name to look it up in PATH")
        }
        if unescaped.contains(UInt8(ascii: ";")),
           String(decoding: unescaped, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\t" }).contains(";") {
            throw ParseError(
                message: "a lone ';' would separate commands, and jobd runs one command per job",
                hint: "write '\\;' for a literal semicolon, or run a script")
        }
        let words = split.map { word in
            word.map { part -> Part in
                switch part {
                case .literal(let text): .literal(text)
                case .variable(let name): .variable(name)
                case .splitVariable(let name): .splitVariable(name)
                }
            }
        }
        return (words, ignoresFailure)
    }

    /// The executable as written: an absolute path or a bare name.
    package var executable: String {
        if case .literal(let text) = words[0][0] { return text }
        return ""
    }

    /// The argv after expanding variables from `environment` (unset variables expand to nothing;
    /// a whole-word `$NAME` that is unset or empty gives no word at all, as in systemd).
    package func argv(environment: [String: String]) -> [String] {
        var argv: [String] = []
        for word in words {
            if word.count == 1, case .splitVariable(let name) = word[0] {
                argv += (environment[name] ?? "").split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
                continue
            }
            var text = ""
            for part in word {
                switch part {
                case .literal(let literal): text += literal
                case .variable(let name), .splitVariable(let name): text += environment[name] ?? ""
                }
            }
            argv.append(text)
        }
        return argv
    }

    package var description: String { text }
}
