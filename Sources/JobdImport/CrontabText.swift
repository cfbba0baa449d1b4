/// A crontab's bytes cut into lines as cron reads them: at each byte `\n` (never at Swift's
/// `Character`s, where `"\r\n"` is one), without one `\r` at the end of a line.
///
/// Debian's cron (3.0pl1-162) reads a file up to each `\n` byte. On an environment line it trims
/// white space, a CR included, after the value; on a command line it hands a CR to the shell as
/// part of the command (its changelog: "one can insert characters \r and \b into a crontab's shell
/// command"). A CR LF crontab's commands therefore end in a CR under cron, which usually breaks
/// them; jobd's jobs run them without it, and the import says so.
///
/// A line that is not a comment must be text a job file can carry exactly: valid UTF-8 with no
/// control character but the tab. Anything else (a CR before the end of the line, a NUL, `\b`,
/// an escape) is a crontab that hides something or is damaged, and the line is refused.
package enum CrontabText {
    package struct Line: Sendable, Hashable {
        /// 1-based.
        package var number: Int
        /// The line without its `\n` and one `\r` before it.
        package var text: String
        /// Whether a `\r` was dropped from its end.
        package var endedInCarriageReturn: Bool
        /// The file's last line, with no `\n` after it: cron never reads it as an entry.
        package var isUnterminated: Bool
        /// A blank line or a comment, which cron skips.
        package var isComment: Bool
        /// Why the line cannot be carried over, if it cannot.
        package var problem: String?
    }

    package static func lines(_ bytes: [UInt8]) -> [Line] {
        var lines: [Line] = []
        var start = 0
        var number = 0
        while start < bytes.count {
            number += 1
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            var content = bytes[start..<end]
            start = end + 1
            let endedInCarriageReturn = content.last == UInt8(ascii: "\r")
            if endedInCarriageReturn { content = content.dropLast() }
            let firstNonBlank = content.first { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
            let isComment = firstNonBlank == nil || firstNonBlank == UInt8(ascii: "#")
            let decoded = String(validating: content, as: UTF8.self)
            lines.append(Line(
                number: number, text: decoded ?? String(decoding: content, as: UTF8.self),
                endedInCarriageReturn: endedInCarriageReturn, isUnterminated: end == bytes.count, isComment: isComment,
                problem: isComment ? nil : decoded.map(problem(in:)) ?? invalidUTF8(content)))
        }
        return lines
    }

    /// The first control character other than the tab, described.
    static func problem(in text: String) -> String? {
        guard let scalar = text.unicodeScalars.first(where: isRefusedControl) else { return nil }
        switch scalar {
        case "\r":
            return "the line holds a carriage return (\\r) before its end: cron would hand it to the command as text, "
                + "and a terminal shows the line without what precedes it; remove it"
        case "\0":
            return "the line holds a NUL byte: cron would cut the line there; remove it"
        default:
            return "the line holds the control character \(escaped(scalar)), which no one reading the crontab sees; remove it"
        }
    }

    private static func invalidUTF8(_ bytes: ArraySlice<UInt8>) -> String {
        var column = 1
        var rest = bytes
        while !rest.isEmpty {
            let length = (1...min(4, rest.count)).first { String(validating: rest.prefix($0), as: UTF8.self) != nil }
            guard let length else { break }
            rest = rest.dropFirst(length)
            column += 1
        }
        let byte = rest.first.map { String($0, radix: 16, uppercase: true) } ?? "?"
        return "the line is not valid UTF-8 (byte 0x\(byte) at character \(column)); convert the crontab to UTF-8, "
            + "for example with iconv -f latin1 -t utf-8"
    }

    /// C0 and C1 control characters and DEL, except the tab: what a crontab line must not hold.
    static func isRefusedControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "\t" && scalar.properties.generalCategory == .control
    }

    /// `\xNN` (or `\u{NNNN}` above 0xFF) for a control character in a message or a comment.
    static func escaped(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return scalar.value <= 0xFF ? "\\x" + String(repeating: "0", count: 2 - hex.count) + hex : "\\u{\(hex)}"
    }
}
