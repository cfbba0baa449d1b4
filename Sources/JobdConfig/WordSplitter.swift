/// Splits a value into words by systemd's quoting rules (systemd.syntax(7), "Quoting"): words are
/// separated by white space; single and double quotes group, also in the middle of a word
/// (`a"b c"` is one word `ab c`); C-style escapes (`\n`, `\t`, `\\`, `\"`, `\'`, `\s`, `\xNN`,
/// `\NNN` octal, `\uNNNN`, `\UNNNNNNNN`) work inside and outside quotes.
///
/// With `variables`, references are kept for expansion at run time as systemd 252 expands them
/// (systemd.service(5), "Command lines"; `replace_env_argv`): `${NAME}` anywhere, also inside
/// quotes of either kind; `$NAME` only as a whole word (split at white space); `$$` is a literal
/// `$` anywhere. Any other `$` inside quotes, and `$NAME` within a word, stay literal, so that
/// `ExecStart=/bin/sh -c 'echo $$HOME; awk "{ print $2 }"'` reaches the shell as written there.
struct WordSplitter {
    enum Part: Sendable, Hashable {
        case literal(String)
        /// `${NAME}`: the value, as part of this word.
        case variable(String)
        /// `$NAME` as a whole word: the value split at white space into several words.
        case splitVariable(String)
    }

    struct SplitError: Error {
        var message: String
    }

    static func split(_ text: String, variables: Bool = false) throws(SplitError) -> [[Part]] {
        var words: [[Part]] = []
        var parts: [Part] = []
        var literal = ""
        var inWord = false
        var scalars = Substring(text).unicodeScalars[...]

        func flushLiteral() {
            if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
        }

        while let scalar = scalars.popFirst() {
            switch scalar {
            case " ", "\t", "\n":
                if inWord {
                    flushLiteral()
                    words.append(parts)
                    parts = []
                    inWord = false
                }
            case "\"", "'":
                inWord = true
                var closed = false
                while let inner = scalars.popFirst() {
                    if inner == scalar { closed = true; break }
                    if inner == "\\" {
                        literal.unicodeScalars.append(try unescape(&scalars))
                    } else if variables, inner == "$", scalars.first == "$" {
                        scalars = scalars.dropFirst()
                        literal += "$"
                    } else if variables, inner == "$", scalars.first == "{", let part = try variable(&scalars, wholeWord: false) {
                        flushLiteral()
                        parts.append(part)
                    } else {
                        literal.unicodeScalars.append(inner)
                    }
                }
                guard closed else { throw SplitError(message: "unbalanced \(scalar == "\"" ? "double" : "single") quote") }
            case "\\":
                inWord = true
                literal.unicodeScalars.append(try unescape(&scalars))
            case "$" where variables:
                let startsWord = !inWord
                inWord = true
                guard let part = try variable(&scalars, wholeWord: true) else {
                    literal += "$"
                    continue
                }
                // `$NAME` is a reference only as the whole word; within a word it is literal text.
                if case .splitVariable(let name) = part, !startsWord || !(scalars.first.map { $0 == " " || $0 == "\t" || $0 == "\n" } ?? true) {
                    literal += "$" + name
                } else {
                    flushLiteral()
                    parts.append(part)
                }
            default:
                inWord = true
                literal.unicodeScalars.append(scalar)
            }
        }
        if inWord {
            flushLiteral()
            words.append(parts)
        }
        return words
    }

    /// Reads what follows a `$`: `{NAME}`, `NAME`, or `$` (a literal dollar, returned as nil).
    private static func variable(
        _ scalars: inout Substring.UnicodeScalarView.SubSequence, wholeWord: Bool
    ) throws(SplitError) -> Part? {
        if scalars.first == "$" {
            scalars = scalars.dropFirst()
            return nil
        }
        if scalars.first == "{" {
            scalars = scalars.dropFirst()
            var name = ""
            while let next = scalars.popFirst() {
                if next == "}" {
                    guard isVariableName(name) else {
                        throw SplitError(message: "invalid variable name '${\(name)}': jobd expands ${NAME} itself, "
                                         + "also inside quotes, as systemd does; write '$${\(name)}' to leave it to a shell")
                    }
                    return .variable(name)
                }
                name.unicodeScalars.append(next)
            }
            throw SplitError(message: "'${' without a closing '}'")
        }
        var name = ""
        while let next = scalars.first, next == "_" || (next.isASCII && next.properties.isAlphabetic)
            || (!name.isEmpty && next.isASCII && next.properties.numericType == .decimal) {
            name.unicodeScalars.append(next)
            scalars = scalars.dropFirst()
        }
        guard !name.isEmpty else { throw SplitError(message: "'$' must be followed by a variable name, '{NAME}' or '$'") }
        return wholeWord ? .splitVariable(name) : .variable(name)
    }

    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType == .decimal))
        }
    }

    private static func unescape(_ scalars: inout Substring.UnicodeScalarView.SubSequence) throws(SplitError) -> Unicode.Scalar {
        guard let escaped = scalars.popFirst() else { throw SplitError(message: "a '\\' at the end of the value escapes nothing") }
        switch escaped {
        case "a": return "\u{07}"
        case "b": return "\u{08}"
        case "f": return "\u{0C}"
        case "n": return "\n"
        case "r": return "\r"
        case "t": return "\t"
        case "v": return "\u{0B}"
        case "s": return " "
        case "\\", "\"", "'", ";", "$": return escaped
        case "x": return try hexScalar(&scalars, digits: 2)
        case "u": return try hexScalar(&scalars, digits: 4)
        case "U": return try hexScalar(&scalars, digits: 8)
        case "0"..."7":
            var value = escaped.value - 48
            for _ in 0..<2 {
                guard let digit = scalars.popFirst(), ("0"..."7").contains(digit) else {
                    throw SplitError(message: "an octal escape takes three digits, as in \\040")
                }
                value = value * 8 + digit.value - 48
            }
            guard let scalar = Unicode.Scalar(value), value != 0 else { throw SplitError(message: "invalid octal escape") }
            return scalar
        default:
            throw SplitError(message: "unknown escape '\\\(escaped)'; write '\\\\' for a backslash")
        }
    }

    private static func hexScalar(_ scalars: inout Substring.UnicodeScalarView.SubSequence, digits: Int) throws(SplitError) -> Unicode.Scalar {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let digit = scalars.popFirst(), let nibble = UInt32(String(digit), radix: 16) else {
                throw SplitError(message: "a hexadecimal escape takes \(digits) hex digits")
            }
            value = value * 16 + nibble
        }
        guard value != 0, let scalar = Unicode.Scalar(value) else { throw SplitError(message: "invalid escape for code point \(value)") }
        return scalar
    }
}
