import Logging

/// The entries waiting for the logging thread, and what did not fit: the decisions of ``LogQueue``,
/// without its thread or its lock, so that a table can test them.
///
/// The backlog is bounded in entries and in bytes of text. An entry that does not fit is dropped
/// and counted by its `JOBD_EVENT` (``DroppedEntries``). A job's output (`run.output`) may fill only
/// ``Limits/outputShare`` of it, so that a job that writes fast while journald is slow cannot crowd
/// out jobd's own events, which the audit reads.
package struct LogBacklog: Sendable {
    /// How much may wait.
    package struct Limits: Sendable, Hashable {
        /// At most this many entries.
        package var entries: Int
        /// At most this many bytes of text (``cost(of:)`` of each entry).
        package var bytes: Int
        /// The fraction of both that a job's output may take, in percent.
        package var outputShare: Int

        package init(entries: Int, bytes: Int, outputShare: Int) {
            self.entries = entries
            self.bytes = bytes
            self.outputShare = outputShare
        }

        /// jobd's: 8,192 entries and 4 MiB of text, a job's output at most three quarters of that.
        /// A start or reload of 10,000 jobs logs a few dozen compact entries and one per broken
        /// file; a minute of journald stalled costs a handful of entries per run that ends. Memory
        /// stays below about 8 MiB however much waits (the text, and a few hundred bytes of
        /// bookkeeping per entry).
        package static let jobd = Limits(entries: 8_192, bytes: 4 << 20, outputShare: 75)
    }

    /// Entries dropped since the last report, by event.
    package struct DroppedEntries: Sendable, Hashable {
        /// How many of each `JOBD_EVENT`; entries without one count as `other`.
        package var byEvent: [String: Int] = [:]
        /// `JOBD_INSTANCE` of the first entry dropped: the report belongs to the same jobd run.
        package var instance: String?

        package var total: Int { byEvent.values.reduce(0, +) }
        package var isEmpty: Bool { byEvent.isEmpty }

        /// `run.output=12,run.exit=1`: most first, then by name.
        package var eventsText: String {
            byEvent.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                .map { "\($0.key)=\($0.value)" }.joined(separator: ",")
        }

        /// The `log.dropped` entry that reports them (`JOBD_DROPPED_COUNT`, `JOBD_DROPPED_EVENTS`).
        package func report(seconds: Int, nanoseconds: Int) -> LogRecord {
            var metadata = [
                JobdField.event: JobdEvent.logDropped.rawValue,
                JobdField.droppedCount: String(total),
                JobdField.droppedEvents: eventsText,
            ]
            if let instance { metadata[JobdField.instance] = instance }
            return LogRecord(
                level: .warning,
                message: "\(total) log entr\(total == 1 ? "y was" : "ies were") dropped while the journal took none: \(eventsText)",
                metadata: metadata, label: "jobd.log", seconds: seconds, nanoseconds: nanoseconds,
                file: #fileID, function: #function, line: #line)
        }
    }

    package let limits: Limits
    private var entries: [LogRecord] = []
    /// Where the oldest waiting entry is in ``entries``: taken entries are cleared in batches.
    private var head = 0
    private var costs: [Int] = []
    private(set) package var bytes = 0
    private(set) package var outputEntries = 0
    private var outputBytes = 0
    private(set) package var dropped = DroppedEntries()

    package init(limits: Limits) {
        self.limits = limits
    }

    /// Entries waiting.
    package var count: Int { entries.count - head }

    /// The entries the backlog keeps room for once it has drained.
    package static let capacityKept = 256

    /// The entries the backlog has room for without growing.
    package var capacity: Int { entries.capacity }

    /// What an entry weighs against ``Limits/bytes``: its text, and a little for each field.
    package static func cost(of record: LogRecord) -> Int {
        var cost = 64 + record.message.utf8.count + record.label.utf8.count + (record.error?.utf8.count ?? 0)
        for (key, value) in record.metadata { cost += 16 + key.utf8.count + value.utf8.count }
        return cost
    }

    /// Whether `record` is a job's output line (`run.output`), which may fill only ``Limits/outputShare``.
    package static func isOutput(_ record: LogRecord) -> Bool {
        record.metadata[JobdField.event] == JobdEvent.runOutput.rawValue
    }

    /// Whether ``offer(_:)`` would queue `record` now.
    package func fits(_ record: LogRecord) -> Bool {
        fits(cost: Self.cost(of: record), isOutput: Self.isOutput(record))
    }

    private func fits(cost: Int, isOutput: Bool) -> Bool {
        var fits = count < limits.entries && bytes + cost <= limits.bytes
        if isOutput {
            fits = fits && (outputEntries + 1) * 100 <= limits.entries * limits.outputShare
                && (outputBytes + cost) * 100 <= limits.bytes * limits.outputShare
        }
        // An entry larger than the whole budget still goes alone into an empty backlog.
        return fits || (count == 0 && !isOutput)
    }

    /// Queues `record`, or counts it as dropped when it does not fit; returns whether it was queued.
    package mutating func offer(_ record: LogRecord) -> Bool {
        let cost = Self.cost(of: record)
        let isOutput = Self.isOutput(record)
        guard fits(cost: cost, isOutput: isOutput) else {
            if dropped.isEmpty { dropped.instance = record.metadata[JobdField.instance] }
            dropped.byEvent[record.metadata[JobdField.event] ?? "other", default: 0] += 1
            return false
        }
        entries.append(record)
        costs.append(cost)
        bytes += cost
        if isOutput {
            outputEntries += 1
            outputBytes += cost
        }
        return true
    }

    /// Takes the oldest waiting entry.
    package mutating func take() -> LogRecord? {
        guard head < entries.count else { return nil }
        let record = entries[head]
        let cost = costs[head]
        head += 1
        bytes -= cost
        if Self.isOutput(record) {
            outputEntries -= 1
            outputBytes -= cost
        }
        if head == entries.count {
            // Room for the usual trickle stays; what a burst grew (a line per run that starts and
            // ends, thousands at once) goes back once it has drained, for the trim to return.
            let keep = entries.capacity <= Self.capacityKept
            entries.removeAll(keepingCapacity: keep)
            costs.removeAll(keepingCapacity: keep)
            head = 0
        } else if head >= 1_024 && head * 2 >= entries.count {
            entries.removeFirst(head)
            costs.removeFirst(head)
            head = 0
        }
        return record
    }

    /// The drops since the last call, which are then forgotten; `nil` when there were none.
    package mutating func takeDropped() -> DroppedEntries? {
        guard !dropped.isEmpty else { return nil }
        defer { dropped = DroppedEntries() }
        return dropped
    }
}
