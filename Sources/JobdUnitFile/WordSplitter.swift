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
package struct WordSplitter {
    package enum Part: Sendable, Hashable {
        case literal(String)
        /// `${NAME}`: the value, as part of this word.
        case variable(String)
        /// `$NAME` as a whole word: the value split at white space into several words.
        case splitVariable(String)
    }

    package struct SplitError: Error {
        package var message: String
    }

    package static func split(_ text: String, variables: Bool = false) throws(SplitError) -> [[Part]] {
        var text = text
        return try text.withUTF8 { bytes in Result { () throws(SplitError) in try split(bytes, variables: variables) } }.get()
    }

    /// As ``split(_:variables:)``, on the UTF-8 bytes of a text: every byte that the rules act on
    /// is ASCII, so the rest passes through as it is, and a literal costs one string at its end
    /// rather than one append per character (issue 19). Only the first `keeping` words are
    /// returned; the rest are checked all the same (a command's are, at load, then read at each run).
    static func split(
        _ bytes: UnsafeBufferPointer<UInt8>, variables: Bool = false, keeping: Int = .max
    ) throws(SplitError) -> [[Part]] {
        var words: [[Part]] = []
        var parts: [Part] = []
        var wordCount = 0
        var literal: [UInt8] = []
        var inWord = false
        var reader = ByteReader(bytes)

        func flushLiteral() {
            if !literal.isEmpty {
                if wordCount < keeping { parts.append(.literal(String(decoding: literal, as: UTF8.self))) }
                literal.removeAll(keepingCapacity: true)
            }
        }
        func endWord() {
            flushLiteral()
            if wordCount < keeping { words.append(parts) }
            parts = []
            wordCount += 1
        }

        while let byte = reader.next() {
            switch byte {
            case .space, .tab, .newline:
                if inWord {
                    endWord()
                    inWord = false
                }
            case .doubleQuote, .singleQuote:
                inWord = true
                var closed = false
                while let inner = reader.next() {
                    if inner == byte { closed = true; break }
                    if inner == .backslash {
                        try unescape(&reader, into: &literal)
                    } else if variables, inner == .dollar, reader.peek() == .dollar {
                        reader.skip()
                        literal.append(.dollar)
                    } else if variables, inner == .dollar, reader.peek() == .openBrace, let part = try variable(&reader, wholeWord: false) {
                        flushLiteral()
                        parts.append(part)
                    } else {
                        literal.append(inner)
                    }
                }
                guard closed else { throw SplitError(message: "unbalanced \(byte == .doubleQuote ? "double" : "single") quote") }
            case .backslash:
                inWord = true
                try unescape(&reader, into: &literal)
            case .dollar where variables:
                let startsWord = !inWord
                inWord = true
                guard let part = try variable(&reader, wholeWord: true) else {
                    literal.append(.dollar)
                    continue
                }
                // `$NAME` is a reference only as the whole word; within a word it is literal text.
                if case .splitVariable(let name) = part, !startsWord || !(reader.peek().map { $0 == .space || $0 == .tab || $0 == .newline } ?? true) {
                    literal.append(.dollar)
                    literal.append(contentsOf: name.utf8)
                } else {
                    flushLiteral()
                    parts.append(part)
                }
            default:
                inWord = true
                literal.append(byte)
            }
        }
        if inWord { endWord() }
        return words
    }

    /// Reads what follows a `$`: `{NAME}`, `NAME`, or `$` (a literal dollar, returned as nil).
    private static func variable(_ reader: inout ByteReader, wholeWord: Bool) throws(SplitError) -> Part? {
        if reader.peek() == .dollar {
            reader.skip()
            return nil
        }
        if reader.peek() == .openBrace {
            reader.skip()
            let start = reader.position
            while let next = reader.next() {
                if next == .closeBrace {
                    let name = reader.text(start..<reader.position - 1)
                    guard isVariableName(name) else {
                        throw SplitError(message: "invalid variable name '${\(name)}': jobd expands ${NAME} itself, "
                                         + "also inside quotes, as systemd does; write '$${\(name)}' to leave it to a shell")
                    }
                    return .variable(name)
                }
            }
            throw SplitError(message: "'${' without a closing '}'")
        }
        let start = reader.position
        while let next = reader.peek(), next == .underscore || next.isASCIILetter || (reader.position > start && next.isASCIIDigit) {
            reader.skip()
        }
        guard reader.position > start else { throw SplitError(message: "'$' must be followed by a variable name, '{NAME}' or '$'") }
        let name = reader.text(start..<reader.position)
        return wholeWord ? .splitVariable(name) : .variable(name)
    }

    package static func isVariableName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first == .underscore || first.isASCIILetter else { return false }
        return name.utf8.allSatisfy { $0 == .underscore || $0.isASCIILetter || $0.isASCIIDigit }
    }

    /// Reads the escape after a `\` and appends the character it stands for.
    private static func unescape(_ reader: inout ByteReader, into literal: inout [UInt8]) throws(SplitError) {
        let start = reader.position
        guard let escaped = reader.next() else { throw SplitError(message: "a '\\' at the end of the value escapes nothing") }
        let scalar: Unicode.Scalar
        switch escaped {
        case UInt8(ascii: "a"): scalar = "\u{07}"
        case UInt8(ascii: "b"): scalar = "\u{08}"
        case UInt8(ascii: "f"): scalar = "\u{0C}"
        case UInt8(ascii: "n"): scalar = "\n"
        case UInt8(ascii: "r"): scalar = "\r"
        case UInt8(ascii: "t"): scalar = "\t"
        case UInt8(ascii: "v"): scalar = "\u{0B}"
        case UInt8(ascii: "s"): scalar = " "
        case .backslash, .doubleQuote, .singleQuote, UInt8(ascii: ";"), .dollar: scalar = Unicode.Scalar(escaped)
        case UInt8(ascii: "x"): scalar = try hexScalar(&reader, digits: 2)
        case UInt8(ascii: "u"): scalar = try hexScalar(&reader, digits: 4)
        case UInt8(ascii: "U"): scalar = try hexScalar(&reader, digits: 8)
        case UInt8(ascii: "0")...UInt8(ascii: "7"):
            var value = UInt32(escaped) - 48
            for _ in 0..<2 {
                guard let digit = reader.next(), (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(digit) else {
                    throw SplitError(message: "an octal escape takes three digits, as in \\040")
                }
                value = value * 8 + UInt32(digit) - 48
            }
            guard let octal = Unicode.Scalar(value), value != 0 else { throw SplitError(message: "invalid octal escape") }
            scalar = octal
        default:
            let character = reader.text(start..<reader.count).unicodeScalars.first.map(String.init) ?? ""
            throw SplitError(message: "unknown escape '\\\(character)'; write '\\\\' for a backslash")
        }
        literal.append(contentsOf: String(scalar).utf8)
    }

    private static func hexScalar(_ reader: inout ByteReader, digits: Int) throws(SplitError) -> Unicode.Scalar {
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let digit = reader.next(), let nibble = digit.hexValue else {
                throw SplitError(message: "a hexadecimal escape takes \(digits) hex digits")
            }
            value = value * 16 + nibble
        }
        guard value != 0, let scalar = Unicode.Scalar(value) else { throw SplitError(message: "invalid escape for code point \(value)") }
        return scalar
    }
}
