import Glibc
package import Logging

/// One swift-log call, resolved into what both jobd handlers write: the merged metadata as strings,
/// the time it was made, and where it came from. ``JournalLogHandler`` turns it into journal fields,
/// ``ReadableLogHandler`` into a line.
package struct LogRecord: Sendable, Hashable {
    /// The level the call was made at.
    package var level: Logger.Level
    /// The message, rendered.
    package var message: String
    /// Metadata from the handler, the metadata provider and the call (later ones win), as text.
    package var metadata: [String: String]
    /// The logger's label, such as `jobd.scheduler`.
    package var label: String
    /// Seconds and nanoseconds since the Unix epoch (`CLOCK_REALTIME`) when the call was made.
    package var seconds: Int
    /// The fraction of the second, in nanoseconds.
    package var nanoseconds: Int
    /// The call site: `#fileID`, `#function` and `#line` of the log call.
    package var file: String
    package var function: String
    package var line: UInt
    /// The error passed with the call, described, if any.
    package var error: String?

    /// Makes a record directly, for tests and for handlers that resolve records themselves.
    package init(
        level: Logger.Level, message: String, metadata: [String: String], label: String,
        seconds: Int, nanoseconds: Int, file: String, function: String, line: UInt, error: String? = nil
    ) {
        self.level = level
        self.message = message
        self.metadata = metadata
        self.label = label
        self.seconds = seconds
        self.nanoseconds = nanoseconds
        self.file = file
        self.function = function
        self.line = line
        self.error = error
    }

    /// Resolves `event` as logged through a handler with `handlerMetadata` and `provider`.
    init(event: LogEvent, label: String, handlerMetadata: Logger.Metadata, provider: Logger.MetadataProvider?) {
        var merged: Logger.Metadata
        if handlerMetadata.isEmpty && provider == nil {
            // jobd's loggers carry no metadata of their own: the call's is the record's as it is.
            merged = event.metadata ?? [:]
        } else {
            merged = handlerMetadata
            if let provided = provider?.get() { merged.merge(provided) { _, new in new } }
            if let call = event.metadata { merged.merge(call) { _, new in new } }
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        self.init(
            level: event.level, message: event.message.description,
            metadata: merged.mapValues(Self.text), label: label,
            seconds: now.tv_sec, nanoseconds: now.tv_nsec,
            file: event.file, function: event.function, line: event.line,
            error: event.error.map { String(describing: $0) }
        )
    }

    /// The syslog priority journald and `journalctl -p` use for `level`.
    package static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    private static func text(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .array, .dictionary: value.description
        }
    }
}
