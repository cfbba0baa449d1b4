/// A problem in a configuration file, in the form compilers use: `FILE:LINE: error: MESSAGE`,
/// followed by a hint saying what to do where there is one.
package struct ConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's path as jobd was given it.
    package var file: String
    /// The 1-based line the problem is on, or `nil` for a problem of the file as a whole.
    package var line: Int?
    /// What is wrong and what was expected.
    package var message: String
    /// What to do about it, such as the key that was probably meant.
    package var hint: String?

    package init(file: String, line: Int?, message: String, hint: String? = nil) {
        self.file = file
        self.line = line
        self.message = message
        self.hint = hint
    }

    package var location: String {
        line.map { "\(file):\($0)" } ?? file
    }

    package var description: String {
        var text = "\(location): error: \(message)"
        if let hint { text += "\n\(location): note: \(hint)" }
        return text
    }
}

/// Every error found in a configuration, not only the first: `jobctl check` reports them all,
/// and a reload that finds any keeps the running configuration.
package struct ConfigErrors: Error, Sendable, CustomStringConvertible {
    package var errors: [ConfigError]

    package init(_ errors: [ConfigError]) {
        self.errors = errors
    }

    package var description: String {
        errors.map(\.description).joined(separator: "\n")
    }
}
