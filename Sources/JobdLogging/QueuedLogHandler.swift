package import Logging

/// jobd's log handler: resolves each call into a ``LogRecord`` on the caller's thread (its time is
/// the call's) and hands it to a ``LogQueue``, whose thread writes it to the journal or stderr. The
/// caller never waits for journald or for whoever reads stderr.
package struct QueuedLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .info
    package var metadataProvider: Logger.MetadataProvider?
    /// The logger's label, written as `JOBD_LOGGER` (or shown when a line has no `JOB`).
    package let label: String
    private let queue: LogQueue

    package init(label: String, queue: LogQueue, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.queue = queue
        self.metadataProvider = metadataProvider
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        queue.submit(LogRecord(event: event, label: label, handlerMetadata: metadata, provider: metadataProvider))
    }
}
