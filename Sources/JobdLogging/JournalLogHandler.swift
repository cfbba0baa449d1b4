import Glibc
package import Logging
package import SystemdKit

/// Writes each log record as one journal entry, with jobd's metadata as journal fields.
///
/// An entry has `MESSAGE`, `PRIORITY` (trace and debug 7, info 6, notice 5, warning 4, error 3,
/// critical 2), `SYSLOG_IDENTIFIER`, `MESSAGE_ID` when the `JOBD_EVENT` metadata names a
/// ``JobdEvent`` (so `journalctl -x` shows its catalog text), `CODE_FILE`, `CODE_LINE`, `CODE_FUNC`,
/// `JOBD_LOGGER` (the logger's label), `JOBD_ERROR` when an error was logged, and one field per
/// metadata key.
///
/// Metadata keys are meant to be journal field names already (``JobdField``). Any other key is
/// normalized (ASCII letters uppercased, every other character but digits and `_` turned into `_`,
/// leading `_` removed: `jobd.owner` becomes `JOBD_OWNER`) and then dropped when it is still not a
/// name journald stores (empty, starting with a digit, longer than 64), when it names a field this
/// handler sets itself (a caller must not override `PRIORITY` or fake `MESSAGE_ID`), or when it
/// collides with another key that was valid as given. Dropped keys are never silent: the entry gets
/// `JOBD_DROPPED_FIELDS` with their original names, comma-separated.
///
/// When no journald is reachable, or sending fails, the record goes to stderr as a readable line
/// instead (see ``ReadableLogHandler``), so nothing is lost. Sending waits for journald: a thread
/// that must not wait logs through a ``LogQueue`` instead (``QueuedLogHandler``).
package struct JournalLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .info
    package var metadataProvider: Logger.MetadataProvider?
    /// The logger's label, written as `JOBD_LOGGER`.
    package let label: String
    /// `SYSLOG_IDENTIFIER` of every entry: what `journalctl -t` selects.
    package let identifier: String
    private let fallback: @Sendable (String) -> Void

    /// Fields this handler sets itself; metadata cannot override them.
    package static let reservedFields: Set<String> = [
        "MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "MESSAGE_ID", "CODE_FILE", "CODE_LINE", "CODE_FUNC",
        "JOBD_LOGGER", "JOBD_ERROR", "JOBD_DROPPED_FIELDS",
    ]

    /// - Parameters:
    ///   - fallback: where readable lines go when the journal is unreachable; stderr by default.
    package init(
        label: String, identifier: String = "jobd", metadataProvider: Logger.MetadataProvider? = nil,
        fallback: @escaping @Sendable (String) -> Void = ReadableLogHandler.standardError
    ) {
        self.label = label
        self.identifier = identifier
        self.metadataProvider = metadataProvider
        self.fallback = fallback
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes the entry on the caller's thread, which waits as long as journald does: jobd itself
    /// logs through a ``LogQueue`` (``QueuedLogHandler``), whose thread calls ``write(_:identifier:fallback:)``.
    package func log(event: LogEvent) {
        Self.write(LogRecord(event: event, label: label, handlerMetadata: metadata, provider: metadataProvider),
                   identifier: identifier, fallback: fallback)
    }

    /// Writes `record` as one journal entry, or as a readable line through `fallback` when the
    /// journal does not take it.
    package static func write(
        _ record: LogRecord, identifier: String,
        fallback: @Sendable (String) -> Void = ReadableLogHandler.standardError
    ) {
        do {
            try Journal().send(fields(for: record, identifier: identifier))
        } catch {
            fallback(ReadableLogHandler.line(record, identifier: identifier, pid: getpid()) + "\n")
        }
    }

    /// The journal fields of `record`, in the order they are sent (fixed fields first, then metadata
    /// sorted by key).
    package static func fields(for record: LogRecord, identifier: String) -> [JournalField] {
        func field(_ name: String, _ value: String) -> JournalField {
            // The names used here are literals that satisfy the journal's rules.
            JournalField(JournalFieldName(checked: name), value)
        }
        // A job's output is the job's own line: it goes under the job's name (or its
        // SyslogIdentifier=) and the command's pid, so that `journalctl -t backup` selects it and
        // `journalctl -u jobd` reads `backup[4242]: …`. JOB= stays the job's name.
        let isOutput = record.metadata[JobdField.event] == JobdEvent.runOutput.rawValue
        let job = isOutput ? record.metadata[JobdField.syslogIdentifier] ?? record.metadata[JobdField.job] : nil
        var fields = [
            field("MESSAGE", record.message),
            field("PRIORITY", String(LogRecord.priority(record.level))),
            field("SYSLOG_IDENTIFIER", job ?? identifier),
        ]
        if job != nil, let pid = record.metadata[JobdField.pid] { fields.append(field("SYSLOG_PID", pid)) }
        if let kind = record.metadata[JobdField.event].flatMap(JobdEvent.init(rawValue:)) {
            fields.append(field("MESSAGE_ID", kind.messageID))
        }
        fields += [
            field("CODE_FILE", record.file),
            field("CODE_LINE", String(record.line)),
            field("CODE_FUNC", record.function),
            field("JOBD_LOGGER", record.label),
        ]
        if let error = record.error { fields.append(field("JOBD_ERROR", error)) }

        let metadata = record.metadata.filter { $0.key != JobdField.syslogIdentifier }.sorted { $0.key < $1.key }
        // jobd's own keys (``JobdField``) are field names as they are, which cannot collide.
        if metadata.allSatisfy({ JournalFieldName.isValid($0.key) && !reservedFields.contains($0.key) }) {
            fields += metadata.map { JournalField(JournalFieldName(checked: $0.key), $0.value) }
            return fields
        }
        let (names, dropped) = metadataFieldNames(metadata.map(\.key))
        for (key, value) in metadata {
            if let name = names[key] { fields.append(JournalField(name, value)) }
        }
        if !dropped.isEmpty { fields.append(field("JOBD_DROPPED_FIELDS", dropped.joined(separator: ","))) }
        return fields
    }

    /// The journal field name for each metadata key that has one, and the keys dropped, sorted.
    static func metadataFieldNames(_ keys: some Collection<String>) -> (names: [String: JournalFieldName], dropped: [String]) {
        var names: [String: JournalFieldName] = [:]
        var dropped: [String] = []
        // Keys that are valid as given claim their names first, so a normalized key cannot displace them.
        var used = Set(keys.filter { JournalFieldName.isValid($0) && !reservedFields.contains($0) })
        for key in keys.sorted() {
            let candidate = JournalFieldName.isValid(key) ? key : normalized(key)
            let collides = candidate != key && used.contains(candidate)
            if !reservedFields.contains(candidate), !collides, let name = try? JournalFieldName(candidate) {
                names[key] = name
                used.insert(candidate)
            } else {
                dropped.append(key)
            }
        }
        return (names, dropped)
    }

    /// `key` uppercased, with every character outside `[A-Z0-9_]` turned into `_` and leading `_` removed.
    static func normalized(_ key: String) -> String {
        let mapped = key.utf8.map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - 32
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): byte
            default: UInt8(ascii: "_")
            }
        }
        return String(decoding: mapped.drop { $0 == UInt8(ascii: "_") }, as: UTF8.self)
    }
}
