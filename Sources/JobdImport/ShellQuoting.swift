import JobdCalendar

/// Writes words for a POSIX shell (dash, /bin/sh on Debian).
enum ShellQuoting {
    /// `text` as one shell word that the shell neither splits, globs nor expands.
    static func word(_ text: String) -> String {
        // `=` is left out: a plain first word with `=` would be a variable assignment.
        if !text.isEmpty, text.unicodeScalars.allSatisfy({ SystemdQuoting.isPlain($0) && $0 != "=" }) { return text }
        return "'" + text.replacingEvery("'", with: "'\\''") + "'"
    }
}

