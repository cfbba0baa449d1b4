import Glibc
package import JobdSystem

extension EnvironmentFile {
    /// What an environment file holds: its assignments in order, and the lines that were skipped.
    package struct Contents: Sendable, Equatable {
        package var variables: [EnvironmentVariable] = []
        /// Lines that are not an assignment `NAME=value`: skipped, as systemd skips them. The
        /// messages name the file and line, never a value (these files hold secrets).
        package var skipped: [ConfigError] = []

        package init(variables: [EnvironmentVariable] = [], skipped: [ConfigError] = []) {
            self.variables = variables
            self.skipped = skipped
        }
    }

    /// Reads the file now, as systemd reads it just before each start. A missing optional file
    /// (`-` prefix) reads as empty.
    package func read() -> Result<Contents, ConfigError> {
        contents(of: FileSystem.readTextFile(path, limit: Self.sizeLimit))
    }

    /// The most an environment file may hold, as any file jobd reads.
    package static let sizeLimit = 1 << 20

    /// What was read from the file (by jobd, or as a `User=` job's user by `jobd-cgexec`), parsed,
    /// or the error that names the file.
    package func contents(of read: Result<String, FileAccessError>) -> Result<Contents, ConfigError> {
        switch read {
        case .success(let text):
            return .success(Self.parse(text, path: path))
        case .failure(let error) where optional && error.errno == ENOENT:
            return .success(Contents())
        case .failure(let error):
            return .failure(ConfigError(
                file: path, line: nil, message: "EnvironmentFile=: \(error.message)",
                hint: "create the file, or write EnvironmentFile=-\(path) if it may be missing"))
        }
    }

    /// Parses the text of an environment file as systemd does: `NAME=value` lines; blank lines and
    /// lines starting with `#` or `;` are skipped; white space around the name and the value is
    /// dropped; `'single'` quotes keep everything, `"double"` quotes and unquoted text take `\`
    /// escapes; a `\` at the end of a line continues the value on the next.
    package static func parse(_ text: String, path: String) -> Contents {
        var contents = Contents()
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)[...]
        var lineNumber = 0
        while let first = lines.popFirst() {
            lineNumber += 1
            let startLine = lineNumber
            let trimmed = first.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(";") { continue }
            guard let equals = trimmed.firstIndex(of: "=") else {
                contents.skipped.append(ConfigError(file: path, line: startLine, message: "not an assignment NAME=value; skipped"))
                continue
            }
            let name = String(trimmed[..<equals].trimmingWhitespace())
            var value = ValueScanner()
            var rest = trimmed[trimmed.index(after: equals)...]
            while value.scan(rest), let next = lines.popFirst() {
                lineNumber += 1
                rest = next[...]
            }
            guard WordSplitter.isVariableName(name) else {
                contents.skipped.append(ConfigError(
                    file: path, line: startLine, message: "'\(name)' is not a valid variable name; skipped"))
                continue
            }
            let text = value.finish()
            guard !text.utf8.contains(0) else {
                // The environment is C strings: a NUL would cut the value without a word.
                contents.skipped.append(ConfigError(
                    file: path, line: startLine, message: "the value of '\(name)' holds a NUL byte; skipped"))
                continue
            }
            contents.variables.append(EnvironmentVariable(name: name, value: text))
        }
        return contents
    }

    /// The value part of one assignment, fed a line at a time.
    private struct ValueScanner {
        enum Quote { case none, single, double }
        var text = ""
        var quote = Quote.none
        /// Unquoted white space seen but not yet kept: kept only if more text follows.
        var pendingSpace = ""

        /// Scans `line`; returns whether the value continues on the next line.
        mutating func scan(_ line: Substring) -> Bool {
            var characters = line.makeIterator()
            while let character = characters.next() {
                switch (quote, character) {
                case (.single, "'"), (.double, "\""):
                    quote = .none
                case (.single, _):
                    text.append(character)
                case (.double, "\\"), (.none, "\\"):
                    guard let escaped = characters.next() else { return true }  // continuation
                    flushSpace()
                    if quote == .double, !"\"\\`$".contains(escaped) { text.append("\\") }
                    text.append(escaped)
                case (.double, _):
                    text.append(character)
                case (.none, "'"), (.none, "\""):
                    flushSpace()
                    quote = character == "'" ? .single : .double
                case (.none, " "), (.none, "\t"):
                    if !text.isEmpty { pendingSpace.append(character) }
                case (.none, _):
                    flushSpace()
                    text.append(character)
                }
            }
            if quote != .none {
                text.append("\n")  // a quoted value spans lines
                return true
            }
            return false
        }

        private mutating func flushSpace() {
            text += pendingSpace
            pendingSpace = ""
        }

        func finish() -> String {
            quote == .none ? text : String(text.dropLast())
        }
    }
}
