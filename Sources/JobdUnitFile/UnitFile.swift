/// A file in systemd's unit-file syntax (systemd.syntax(7)), read into sections and assignments
/// with the line each came from. It knows the syntax only; what keys mean is ``JobFileReader``'s.
///
/// - `#` and `;` start comment lines; blank lines are ignored.
/// - `[Section]` headers; `Key=Value` assignments, with white space around both trimmed.
/// - A line ending in `\` continues on the next (the backslash becomes a space); comment lines
///   between continued lines are skipped, as systemd does.
package struct UnitFile: Sendable {
    package struct Assignment: Sendable, Equatable {
        package var section: String
        package var key: String
        package var value: String
        /// The line the assignment starts on.
        package var line: Int
    }

    package struct Section: Sendable, Equatable {
        package var name: String
        package var line: Int
    }

    package var path: String
    package var sections: [Section] = []
    package var assignments: [Assignment] = []

    /// Reads `text` as the contents of `path`. Syntax errors are collected, not thrown: the caller
    /// reports them together with the errors in the keys' values.
    package static func parse(_ text: String, path: String) -> (UnitFile, [ConfigError]) {
        var text = text
        return text.withUTF8 { parse($0, path: path) }
    }

    /// As ``parse(_:path:)``, on the UTF-8 bytes of a text: lines, comments, brackets, `=` and the
    /// white space trimmed are all ASCII, so a line is read without a string of its own, and only
    /// a section's name, a key and a value become strings (issue 19).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, path: String) -> (UnitFile, [ConfigError]) {
        var file = UnitFile(path: path)
        var errors: [ConfigError] = []
        var section: String?
        // The logical line of continued lines, grown in place: one copy per physical line would
        // make 250,000 continuation lines cost seconds.
        var joined: [UInt8] = []
        var joinedLine: Int?

        /// Reads one logical line, `content`, which starts on line `line`.
        func logical(_ content: UnsafeBufferPointer<UInt8>, line: Int) {
            let content = content.trimmingWhitespace()
            func text() -> String { String(decoding: content, as: UTF8.self) }
            if content.first == UInt8(ascii: "[") {
                guard content.last == UInt8(ascii: "]"), content.count > 2 else {
                    errors.append(ConfigError(
                        file: path, line: line,
                        message: "malformed section header '\(text())'; expected a name in brackets, such as [Job]"))
                    return
                }
                let name = String(decoding: UnsafeBufferPointer(rebasing: content.dropFirst().dropLast()), as: UTF8.self)
                section = name
                file.sections.append(Section(name: name, line: line))
                return
            }
            guard let equals = content.firstIndex(of: UInt8(ascii: "=")) else {
                errors.append(ConfigError(
                    file: path, line: line,
                    message: "expected an assignment 'Key=value', found '\(text())'",
                    hint: ForeignSyntax.looksLikeCronLine(Substring(text())) ? ForeignSyntax.cronHint : nil))
                return
            }
            let key = String(decoding: UnsafeBufferPointer(rebasing: content[..<equals]).trimmingWhitespace(), as: UTF8.self)
            let value = String(decoding: UnsafeBufferPointer(rebasing: content[(equals + 1)...]).trimmingWhitespace(), as: UTF8.self)
            guard let section else {
                errors.append(ConfigError(
                    file: path, line: line,
                    message: "assignment '\(key)=' is outside any section",
                    hint: ForeignSyntax.looksLikeCronLine(Substring(text())) ? ForeignSyntax.cronHint : "put it under a section header such as [Job]"))
                return
            }
            guard !key.isEmpty else {
                errors.append(ConfigError(file: path, line: line, message: "assignment has no key before '='"))
                return
            }
            file.assignments.append(Assignment(section: section, key: key, value: value, line: line))
        }

        // Lines end at the byte "\n" (a "\r" before it is dropped); the text after the last "\n"
        // is a line too, empty when the text ends with one.
        var start = 0
        var lineNumber = 0
        while start <= bytes.count {
            lineNumber += 1
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let isLastLine = end == bytes.count
            var line = UnsafeBufferPointer(rebasing: bytes[start..<end])
            start = end + 1
            // A NUL would cut the value where it becomes a C string (an argument, a variable).
            if line.contains(0) {
                errors.append(ConfigError(
                    file: path, line: lineNumber, message: "the line holds a NUL byte, which no value can hold",
                    hint: "remove the NUL byte (it is often left by an editor or a binary copied into the file)"))
                continue
            }
            if line.last == UInt8(ascii: "\r") { line = UnsafeBufferPointer(rebasing: line.dropLast()) }
            let trimmed = line.trimmingWhitespace()
            let isComment = trimmed.first == UInt8(ascii: "#") || trimmed.first == UInt8(ascii: ";")

            if let startLine = joinedLine {
                if isComment { continue }
                joined.append(UInt8(ascii: " "))
                joined.append(contentsOf: trimmed)
                if joined.last == UInt8(ascii: "\\") {
                    joined.removeLast()
                    if !isLastLine { continue }
                }
                joinedLine = nil
                joined.withUnsafeBufferPointer { logical($0, line: startLine) }
                continue
            }
            if trimmed.isEmpty || isComment { continue }
            guard trimmed.last == UInt8(ascii: "\\") else {
                logical(trimmed, line: lineNumber)
                continue
            }
            let withoutBackslash = UnsafeBufferPointer(rebasing: trimmed.dropLast())
            if isLastLine {
                logical(withoutBackslash, line: lineNumber)
            } else {
                joined.removeAll(keepingCapacity: true)
                joined.append(contentsOf: withoutBackslash)
                joinedLine = lineNumber
            }
        }
        return (file, errors)
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Without the spaces and tabs at either end.
    func trimmingWhitespace() -> UnsafeBufferPointer<UInt8> {
        var start = startIndex, end = endIndex
        while start < end, self[start] == UInt8(ascii: " ") || self[start] == UInt8(ascii: "\t") { start += 1 }
        while end > start, self[end - 1] == UInt8(ascii: " ") || self[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        return UnsafeBufferPointer(rebasing: self[start..<end])
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
