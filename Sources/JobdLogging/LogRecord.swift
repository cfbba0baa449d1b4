import Glibc
import Logging

/// One swift-log call, resolved into what both jobd handlers write: the merged metadata as strings,
/// the time it was made, and where it came from. ``JournalLogHandler`` turns it into journal fields,
/// ``ReadableLogHandler`` into a line.
public struct LogRecord: Sendable, Hashable {
    /// The level the call was made at.
    public var level: Logger.Level
    /// The message, rendered.
    public var message: String
    /// Metadata from the handler, the metadata provider and the call (later ones win), as text.
    public var metadata: [String: String]
    /// The logger's label, such as `jobd.scheduler`.
    public var label: String
    /// Seconds and nanoseconds since the Unix epoch (`CLOCK_REALTIME`) when the call was made.
    public var seconds: Int
    /// The fraction of the second, in nanoseconds.
    public var nanoseconds: Int
    /// The call site: `#fileID`, `#function` and `#line` of the log call.
    public var file: String
    public var function: String
    public var line: UInt
    /// The error passed with the call, described, if any.
    public var error: String?

    /// Makes a record directly, for tests and for handlers that resolve records themselves.
    public init(
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
        var merged = handlerMetadata
        if let provided = provider?.get() { merged.merge(provided) { _, new in new } }
        if let call = event.metadata { merged.merge(call) { _, new in new } }
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
    public static func priority(_ level: Logger.Level) -> Int {
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
