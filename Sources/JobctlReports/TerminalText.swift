import SystemdKit

/// What of the journal and of job files jobctl shows on a terminal, and how.
package enum TerminalText {
    /// `text` with every control character but tab written as `\xNN`, as journalctl escapes what it
    /// shows: a job's output cannot retitle the terminal, erase lines or paint fake text. (`-o json`
    /// and `jobctl run --wait` stay raw: one is for programs, the other stands for the command.)
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                let hex = String(scalar.value, radix: 16)
                result += scalar.value < 0x100 ? "\\x" + (hex.count < 2 ? "0" + hex : hex) : "\\u{\(hex)}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// As ``escaped(_:)``, but the newlines of a text of several lines (an error and its hint) stay.
    package static func escapedLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { escaped(String($0)) }.joined(separator: "\n")
    }

    /// C0 controls but tab, DEL, and the C1 controls (which some terminals obey as escapes too).
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || (0x7f...0x9f).contains(scalar.value)
    }
}

extension JournalEntry {
    /// Whether jobd, which runs as root, wrote this entry, by journald's own `_UID` (which no client
    /// can set): anyone may write `SYSLOG_IDENTIFIER=jobd`, `JOB=` or `JOBD_RUN_ID=`. An entry
    /// without `_UID` (a journal exported without trusted fields) is taken as it is.
    package var writtenByRoot: Bool { fields["_UID"].map { $0 == "0" } ?? true }
}
