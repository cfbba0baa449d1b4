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
        var file = UnitFile(path: path)
        var errors: [ConfigError] = []
        var section: String?
        // The logical line being joined, grown in place: one copy per physical line would make
        // 250,000 continuation lines cost seconds.
        var logicalText = ""
        var logicalLine: Int?

        // Lines are split on the byte "\n" (faster than by Character, where "\r\n" is one
        // Character); a "\r" before it is dropped.
        let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (index, rawLine) in lines.enumerated() {
            let lineNumber = index + 1
            // A NUL would cut the value where it becomes a C string (an argument, a variable).
            if rawLine.contains(0) {
                errors.append(ConfigError(
                    file: path, line: lineNumber, message: "the line holds a NUL byte, which no value can hold",
                    hint: "remove the NUL byte (it is often left by an editor or a binary copied into the file)"))
                continue
            }
            var line = Substring(rawLine)
            if line.utf8.last == UInt8(ascii: "\r") { line = Substring(line.utf8.dropLast()) }
            let trimmed = line.trimmingWhitespace()

            if logicalLine != nil, trimmed.first == "#" || trimmed.first == ";" {
                continue
            }
            if logicalLine != nil {
                logicalText += " "
                logicalText += trimmed
            } else {
                if trimmed.isEmpty || trimmed.first == "#" || trimmed.first == ";" { continue }
                logicalText = String(trimmed)
                logicalLine = lineNumber
            }
            if logicalText.hasSuffix("\\") {
                logicalText.removeLast()
                if index < lines.count - 1 { continue }
            }
            guard let startLine = logicalLine else { continue }
            logicalLine = nil
            let logical = (text: logicalText, line: startLine)
            let content = Substring(logical.text).trimmingWhitespace()

            if content.first == "[" {
                guard content.last == "]", content.count > 2 else {
                    errors.append(ConfigError(
                        file: path, line: logical.line,
                        message: "malformed section header '\(content)'; expected a name in brackets, such as [Job]"))
                    continue
                }
                let name = String(content.dropFirst().dropLast())
                section = name
                file.sections.append(Section(name: name, line: logical.line))
                continue
            }
            guard let equals = content.firstIndex(of: "=") else {
                errors.append(ConfigError(
                    file: path, line: logical.line,
                    message: "expected an assignment 'Key=value', found '\(content)'",
                    hint: ForeignSyntax.looksLikeCronLine(content) ? ForeignSyntax.cronHint : nil))
                continue
            }
            let key = String(content[..<equals].trimmingWhitespace())
            let value = String(content[content.index(after: equals)...].trimmingWhitespace())
            guard let section else {
                errors.append(ConfigError(
                    file: path, line: logical.line,
                    message: "assignment '\(key)=' is outside any section",
                    hint: ForeignSyntax.looksLikeCronLine(content) ? ForeignSyntax.cronHint : "put it under a section header such as [Job]"))
                continue
            }
            guard !key.isEmpty else {
                errors.append(ConfigError(
                    file: path, line: logical.line, message: "assignment has no key before '='"))
                continue
            }
            file.assignments.append(Assignment(section: section, key: key, value: value, line: logical.line))
        }
        return (file, errors)
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
