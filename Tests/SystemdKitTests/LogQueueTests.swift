import Glibc
import JobdLocks
import JobdLogging
import Logging
import Testing

/// The log queue's decisions (``LogBacklog``) by table, and its thread with a writer the test holds
/// up, as a stalled journald would: log calls never wait, drops are counted and reported.
@Suite struct LogQueueTests {
    static func record(_ event: JobdEvent?, _ message: String = "m", instance: String = "i1") -> LogRecord {
        var metadata = [JobdField.instance: instance]
        if let event { metadata[JobdField.event] = event.rawValue }
        return LogRecord(level: .info, message: message, metadata: metadata, label: "jobd", seconds: 0, nanoseconds: 0,
                         file: "F.swift", function: "f()", line: 1)
    }

    struct Offer: Sendable, CustomTestStringConvertible {
        var events: [JobdEvent?]
        var limits: LogBacklog.Limits
        /// Which were queued.
        var queued: [Bool]
        var dropped: String
        var testDescription: String { "\(events.map { $0?.rawValue ?? "none" }) -> \(dropped)" }
    }

    static let small = LogBacklog.Limits(entries: 4, bytes: 1 << 20, outputShare: 50)

    @Test(arguments: [
        Offer(events: [.runStart, .runExit, .timerFire, .ownerInit], limits: small, queued: [true, true, true, true], dropped: ""),
        // Full: the fifth entry is dropped and counted by its event.
        Offer(events: [.runStart, .runExit, .timerFire, .ownerInit, .runExit], limits: small,
              queued: [true, true, true, true, false], dropped: "run.exit=1"),
        // A job's output takes half at most; jobd's own events still find room after it.
        Offer(events: [.runOutput, .runOutput, .runOutput, .runExit, .runStart, .runOutput], limits: small,
              queued: [true, true, false, true, true, false], dropped: "run.output=2"),
        // Entries of no event count as `other`; most first, then by name.
        Offer(events: [.runStart, .runStart, .runStart, .runStart, nil, .runExit, nil], limits: small,
              queued: [true, true, true, true, false, false, false], dropped: "other=2,run.exit=1"),
    ])
    func offersFitOrAreCounted(_ offer: Offer) {
        var backlog = LogBacklog(limits: offer.limits)
        let queued = offer.events.map { backlog.offer(Self.record($0)) }
        #expect(queued == offer.queued)
        #expect(backlog.dropped.eventsText == offer.dropped)
        #expect(backlog.dropped.total == offer.queued.count { !$0 })
    }

    @Test func bytesBoundTheBacklogToo() {
        let message = String(repeating: "x", count: 1_000)
        let outputCost = LogBacklog.cost(of: Self.record(.runOutput, message))
        let cost = LogBacklog.cost(of: Self.record(.runExit, message))
        var backlog = LogBacklog(limits: .init(entries: 100, bytes: outputCost * 2, outputShare: 50))
        let offers = [
            backlog.offer(Self.record(.runOutput, message)),
            backlog.offer(Self.record(.runOutput, message)),  // output may have half the bytes, already taken
            backlog.offer(Self.record(.runExit, message)),
            backlog.offer(Self.record(.runExit, message)),
        ]
        #expect(offers == [true, false, true, false])
        #expect(backlog.bytes == outputCost + cost && backlog.outputEntries == 1)
        let first = backlog.take()
        #expect(first?.metadata[JobdField.event] == "run.output")
        #expect(backlog.bytes == cost && backlog.outputEntries == 0)
        let afterTake = backlog.offer(Self.record(.runExit, message))
        #expect(afterTake)
    }

    /// Issue 39, item 4: the lines of a burst of runs (thousands at once) grow the backlog; once
    /// they are all taken, it keeps room for the usual trickle only, so the trim can give the rest
    /// back. A backlog that never grew beyond that keeps its room: no allocation per entry.
    @Test func aDrainedBurstGivesTheBacklogsRoomBack() {
        var backlog = LogBacklog(limits: .jobd)
        for index in 0..<3_000 { _ = backlog.offer(Self.record(.runStart, "\(index)")) }
        #expect(backlog.count == 3_000 && backlog.capacity >= 3_000)
        var taken = 0
        while backlog.take() != nil { taken += 1 }
        #expect(taken == 3_000 && backlog.capacity <= LogBacklog.capacityKept)
        for index in 0..<100 { _ = backlog.offer(Self.record(.runExit, "\(index)")) }
        let trickle = backlog.capacity
        while backlog.take() != nil {}
        #expect(trickle >= 100 && backlog.capacity == trickle)
    }

    @Test func takenInOrderAndDropsReportedOnce() throws {
        var backlog = LogBacklog(limits: Self.small)
        for index in 0..<6 { _ = backlog.offer(Self.record(.runExit, "\(index)", instance: "first")) }
        var taken: [String] = []
        while let record = backlog.take() { taken.append(record.message) }
        #expect(taken == ["0", "1", "2", "3"] && backlog.count == 0)
        let tally = backlog.takeDropped()
        let again = backlog.takeDropped()
        let dropped = try #require(tally)
        #expect(again == nil)
        let report = dropped.report(seconds: 5, nanoseconds: 0)
        #expect(report.metadata[JobdField.event] == "log.dropped")
        #expect(report.metadata[JobdField.droppedCount] == "2")
        #expect(report.metadata[JobdField.droppedEvents] == "run.exit=2")
        #expect(report.metadata[JobdField.instance] == "first", "the report belongs to the instance whose entries were lost")
        #expect(report.level == .warning && report.message.contains("2 log entries were dropped"))
    }

    /// A writer held up like a SIGSTOPped journald: a thousand log calls return at once, what does
    /// not fit is counted, and once the writer moves the first entry is followed by `log.dropped`;
    /// the stop writes everything that waited.
    @Test func aStalledWriterNeverHoldsUpLogCalls() throws {
        let gate = Gate()
        let written = LockedBox<[LogRecord]>([])
        let queue = LogQueue(limits: .init(entries: 10, bytes: 1 << 20, outputShare: 75)) { record in
            gate.pass()
            written.withLock { $0.append(record) }
        }
        try queue.start()
        for index in 0..<1_000 { queue.submit(Self.record(index % 2 == 0 ? .runOutput : .runExit, "\(index)")) }
        let pending = queue.pending
        // The writer holds one entry; 10 wait; the rest were dropped.
        #expect(pending.waiting + pending.dropped >= 989 && pending.waiting <= 10, "\(pending)")
        for _ in 0..<20 { gate.open() }
        #expect(queue.stop(within: .seconds(30)))
        let records = written.withLock { $0 }
        let reports = records.filter { $0.metadata[JobdField.event] == "log.dropped" }
        #expect(reports.count == 1)
        #expect(records.firstIndex { $0.metadata[JobdField.event] == "log.dropped" } == 1, "right after the first entry written")
        let total = try #require(reports.first?.metadata[JobdField.droppedCount].flatMap(Int.init))
        #expect(total + records.count - 1 == 1_000, "every call is written or counted")
        let events = reports.first?.metadata[JobdField.droppedEvents] ?? ""
        #expect(events.contains("run.output=") && events.contains("run.exit="), "\(events)")
        // After the stop, a log call writes on its own thread.
        gate.open()
        queue.submit(Self.record(.daemonExit, "late"))
        #expect(written.withLock { $0.last?.message } == "late")
    }

    /// While the writer writes (journald slower than the job, not stalled), a job's output line
    /// waits for room instead of being dropped: nothing is lost.
    @Test func outputWaitsForRoomWhileTheWriterWrites() throws {
        let gate = Gate()
        let written = LockedBox<[String]>([])
        let queue = LogQueue(limits: .init(entries: 4, bytes: 1 << 20, outputShare: 50), outputPatience: .seconds(600)) {
            record in
            gate.pass()
            written.withLock { $0.append(record.message) }
        }
        try queue.start()
        // The writer finishes one entry, so it is known to write; then each entry waits for the gate.
        queue.submit(Self.record(.daemonStart, "start"))
        gate.open()
        while written.withLock({ $0.isEmpty }) { sched_yield() }
        // The writer may go on (12 permits); two lines fill the output's share, so most of the
        // twelve find it full and wait until the writer has taken one.
        for _ in 0..<12 { gate.open() }
        for index in 0..<12 { queue.submit(Self.record(.runOutput, "line \(index)")) }
        #expect(queue.stop(within: .seconds(30)))
        #expect(written.withLock { $0 } == ["start"] + (0..<12).map { "line \($0)" })
        #expect(queue.pending.dropped == 0)
    }

    @Test func aStopWaitsOnlyAsLongAsItMay() throws {
        let gate = Gate()
        let queue = LogQueue { _ in
            gate.pass()
        }
        try queue.start()
        queue.submit(Self.record(.daemonExit))
        #expect(!queue.stop(within: .milliseconds(50)), "the writer never moves: the stop gives up")
        gate.open()
        #expect(queue.stop(within: .seconds(30)), "once it moves, a later stop sees the thread end")
    }
}

/// What holds the test's writer up, as a stalled journald would: each entry passes once opened.
final class Gate: @unchecked Sendable {
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init() { sem_init(semaphore, 0, 0) }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Lets one more entry pass.
    func open() { sem_post(semaphore) }

    /// Waits until an entry may pass.
    func pass() { while sem_wait(semaphore) != 0 && errno == EINTR {} }
}
