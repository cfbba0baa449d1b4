/// The command part of a crontab line, split as Debian's cron (3.0pl1) splits it before running
/// `$SHELL -c COMMAND` (crontab(5): "Percent-signs (%) in the command, unless escaped with
/// backslash (\), will be changed into newline characters, and all data after the first % will be
/// sent to the command as standard input").
///
/// In detail, as Debian's cron does it:
/// - Before the first unescaped `%`: `\%` is a `%` and `\\` is one backslash; any other backslash
///   stays as it is. That first `%` ends the command.
/// - After it (the standard input): a `%` is a newline, `\%` a `%`, and any other backslash stays
///   (so `\\%` gives `\%`). If anything was written and the last character written was not a
///   newline, a newline is added; a backslash at the very end is written without one.
package struct CronCommand: Sendable, Hashable {
    /// What the shell gets after `-c`.
    package var command: String
    /// The bytes cron writes to the command's standard input; `nil` without a `%`, empty when the
    /// line ends at its first `%` (cron then closes the pipe at once, like an empty file).
    package var standardInput: String?

    package init(command: String, standardInput: String?) {
        self.command = command
        self.standardInput = standardInput
    }

    /// Splits `text`, the rest of a crontab line after its schedule (and user field).
    package init(cronText text: String) {
        var command = ""
        var escaped = false
        var scalars = text.unicodeScalars[...]
        var input: Substring.UnicodeScalarView.SubSequence?
        while let scalar = scalars.popFirst() {
            if escaped {
                if scalar == "%" || scalar == "\\" { command.unicodeScalars.removeLast() }
                command.unicodeScalars.append(scalar)
                escaped = false
            } else if scalar == "%" {
                input = scalars
                break
            } else {
                escaped = scalar == "\\"
                command.unicodeScalars.append(scalar)
            }
        }
        self.command = command
        self.standardInput = input.map(Self.translateInput)
    }

    /// The text after the first `%`, as cron writes it to the pipe.
    private static func translateInput(_ text: Substring.UnicodeScalarView.SubSequence) -> String {
        var written = ""
        var pendingBackslash = false
        var needsNewline = false
        for original in text {
            var scalar = original
            if pendingBackslash {
                if scalar != "%" { written.unicodeScalars.append("\\") }
            } else if scalar == "%" {
                scalar = "\n"
            }
            pendingBackslash = scalar == "\\"
            if !pendingBackslash {
                written.unicodeScalars.append(scalar)
                needsNewline = scalar != "\n"
            }
        }
        if pendingBackslash { written.unicodeScalars.append("\\") }
        if needsNewline { written.unicodeScalars.append("\n") }
        return written
    }
}
