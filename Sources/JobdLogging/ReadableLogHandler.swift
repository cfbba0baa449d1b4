package import Glibc
import JobdLocks
package import Logging
import JobdSystem
import SystemPackage

/// Writes each log record as one readable line on stderr, for people and for `grep`:
///
/// ```
/// 2026-11-22 05:40:00.123 jobd[1234] <info> backup: run.exit EXIT_CODE=exited EXIT_STATUS=0 — job exited
/// ```
///
/// Local time to the millisecond, identifier and pid, the level, the subject (the `JOB` field, or the
/// logger's label when there is none), the `JOBD_EVENT` kind, every other field as `KEY=value`
/// sorted by key, and the message after an em dash. Values with spaces, quotes, `=` or control
/// characters are quoted with C escapes, and newlines in the message become `\n`, so that one record
/// is always one line.
package struct ReadableLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .info
    package var metadataProvider: Logger.MetadataProvider?
    /// The logger's label, shown when a record has no `JOB` field.
    package let label: String
    /// The name shown before the pid, like `SYSLOG_IDENTIFIER`.
    package let identifier: String
    private let output: @Sendable (String) -> Void

    /// - Parameters:
    ///   - output: where lines go (each with its newline); stderr by default. Tests capture it.
    package init(
        label: String, identifier: String = "jobd", metadataProvider: Logger.MetadataProvider? = nil,
        output: @escaping @Sendable (String) -> Void = ReadableLogHandler.standardError
    ) {
        self.label = label
        self.identifier = identifier
        self.metadataProvider = metadataProvider
        self.output = output
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        Self.write(LogRecord(event: event, label: label, handlerMetadata: metadata, provider: metadataProvider),
                   identifier: identifier, output: output)
    }

    /// Writes `record` as one line to `output`.
    package static func write(
        _ record: LogRecord, identifier: String, output: @Sendable (String) -> Void = ReadableLogHandler.standardError
    ) {
        output(line(record, identifier: identifier, pid: getpid()) + "\n")
    }

    /// The line for `record`, without its newline.
    package static func line(_ record: LogRecord, identifier: String, pid: pid_t) -> String {
        var fields = record.metadata
        // The subject is the job, and appears only when there is one: a `name:` after the level
        // always names a job, never the logger.
        let subject = fields.removeValue(forKey: "JOB")
        let event = fields.removeValue(forKey: "JOBD_EVENT")
        // The PID already tells one jobd run from another in a terminal; the journal keeps the field.
        fields.removeValue(forKey: "JOBD_INSTANCE")
        if let error = record.error { fields["JOBD_ERROR"] = error }
        var parts = [timestamp(seconds: record.seconds, nanoseconds: record.nanoseconds), "\(identifier)[\(pid)]",
                     "<\(record.level)>"]
        if let subject { parts.append("\(quoted(subject)):") }
        if let event { parts.append(quoted(event)) }
        for key in fields.keys.sorted() { parts.append("\(quoted(key))=\(quoted(fields[key]!))") }
        parts.append("—")
        parts.append(escaped(record.message))
        return parts.joined(separator: " ")
    }

    /// Writes `text` to file descriptor 2 in one `write` per call, under a lock, so that lines from
    /// different threads never interleave.
    package static let standardError: @Sendable (String) -> Void = { text in
        stderrLock.withLock {
            // Nowhere left to report a failing stderr: give up on this line, keep the process.
            try? FileDescriptor.standardError.writeEvery(Array(text.utf8))
        }
    }

    private static let stderrLock = Lock()
    /// The bytes ``escaped(_:quote:)`` rewrites: control characters, and with `quote` `"` and `\`.
    private static let specials = String((1..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }) + "\u{7F}"
    private static let quotedSpecials = specials + "\"\\"

    static func timestamp(seconds: Int, nanoseconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        localtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = nanoseconds / 1_000_000
        let milliText = String(repeating: "0", count: 3 - String(millis).count) + String(millis)
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(milliText)"
    }

    /// `value` as is when it is one plain word, else in double quotes with C escapes.
    static func quoted(_ value: String) -> String {
        let plain = !value.isEmpty && value.unicodeScalars.allSatisfy {
            $0.value > 0x20 && $0.value != 0x7F && $0 != "\"" && $0 != "=" && $0 != "\\"
        }
        return plain ? value : "\"\(escaped(value, quote: true))\""
    }

    /// `value` with control characters (and, inside quotes, `"` and `\`) escaped, so it stays on one line.
    static func escaped(_ value: String, quote: Bool = false) -> String {
        // Most text has nothing to escape: strcspn finds that at C speed, which matters for a job
        // that writes a lot (a NUL byte stops it early, and is then escaped below).
        if value.withCString({ strcspn($0, quote ? quotedSpecials : specials) }) == value.utf8.count { return value }
        var result = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\"" where quote: result += "\\\""
            case "\\" where quote: result += "\\\\"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    result += "\\x" + (hex.count < 2 ? "0" : "") + hex
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
