import InMemoryLogging
import JobdConfig
import JobdLogging
import JobdScheduler
import JobdTestKit
import JobdTimers
import Logging
import Testing

/// Start-up, shutdown and large reloads log owners and timers compactly, as owners really come and
/// go; few owners still get one entry each.
@Suite struct OwnerEventBatchTests {
    let start = MonotonicInstant(nanoseconds: 50_000_000_000)
    let log = InMemoryLogHandler()
    let events: OwnerEventBatch
    let queue: TimerQueue
    let scheduler: Scheduler

    init() {
        let handler = log
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = .debug
        events = OwnerEventBatch(logger: logger)
        queue = TimerQueue.manual(observer: TimerEventLog(logger: logger, events: events))
        scheduler = Scheduler(queue: queue, daemonStart: start, logger: logger, events: events) { _ in }
    }

    func jobs(_ count: Int, every seconds: UInt64 = 60) -> [JobDefinition] {
        (0..<count).map { index in
            JobDefinition(
                name: "job\(index)", path: "/etc/jobd/jobs.d/job\(index).job",
                triggers: [.unitActive(.seconds(seconds))], command: try! ExecCommand.parse("/bin/true"))
        }
    }

    func entries(_ kind: JobdEvent) -> [[String: String]] {
        log.entries.compactMap { entry in
            guard entry.metadata[JobdField.event] == .string(kind.rawValue) else { return nil }
            return entry.metadata.compactMapValues { if case .string(let text) = $0 { text } else { nil } }
        }
    }

    /// The owners the compact entries of `kind` name, in the order they name them.
    func named(_ kind: JobdEvent) -> [UInt64] {
        entries(kind).flatMap { entry in
            let ranges = OwnerIDRanges(entry[JobdField.owners]!)!
            #expect(entry[JobdField.ownerCount] == String(ranges.count))
            return Array(ranges.ids)
        }
    }

    @Test func startAndStopOfManyJobsLogAFewEntriesNamingEveryOwner() throws {
        scheduler.load(jobs(1_500), now: start)
        // Ids and names only: a reference to an owner here would keep it from its release.
        let names = Dictionary(uniqueKeysWithValues: scheduler.generation.owners.values.map { ($0.id, $0.name) })
        let ids = names.keys.sorted()

        #expect(entries(.ownerInit).isEmpty)
        let inits = entries(.ownersInit)
        #expect(inits.count == 2, "at most 1,000 owners per entry")
        #expect(named(.ownersInit) == ids)
        let jobs = inits.flatMap { $0[JobdField.jobs]!.split(separator: " ").map(String.init) }
        #expect(jobs == ids.map { names[$0]! }, "each owner's job, in the order of the ids")
        #expect(inits.allSatisfy { $0[JobdField.generation] == "1" })

        log.clear()
        weak let someOwner = scheduler.generation.owners["job7"]
        scheduler.shutdown()
        #expect(someOwner == nil, "released for real, not only logged")
        #expect(entries(.timerInvalidate).isEmpty && entries(.ownerDeinit).isEmpty)
        #expect(named(.timersInvalidate) == ids)
        #expect(entries(.timersInvalidate).allSatisfy { $0[JobdField.reason] == "shutdown" })
        #expect(named(.ownersDeinit) == ids)
        // Ranges of ids, at most 1,000 per entry: one entry each here, unless other tests' owners
        // (ids are process-wide) split this test's into more ranges.
        let pieces = OwnerIDRanges(ids).chunked(maxRanges: OwnerEventBatch.maxOwnersPerEntry).count
        #expect(entries(.timersInvalidate).count == pieces && entries(.ownersDeinit).count == pieces)
        #expect(log.entries.count == 1 + 2 * pieces, "generation.retire and the compact entries, nothing per owner")
        #expect(queue.statistics.liveTimers == 0)
    }

    @Test func aReloadThatReplacesManyJobsLogsThemCompactlyAndOneThatReplacesFewOneByOne() throws {
        scheduler.load(jobs(200), now: start)
        let before = scheduler.generation.owners.values.map(\.id).sorted()
        log.clear()

        // Every job changes: 200 new owners, 200 released (their timers invalidated by their deinits).
        scheduler.load(jobs(200, every: 120), now: start + .seconds(1))
        #expect(named(.ownersInit).count == 200)
        #expect(named(.ownersDeinit) == before)
        #expect(named(.timersInvalidate) == before)
        #expect(entries(.timersInvalidate).first?[JobdField.reason] == "owner-deinit")
        #expect(log.entries.map { $0.metadata[JobdField.event] }.last == .string("generation.load"),
                "the bookkeeping is logged before generation.load, as the owners went")

        log.clear()
        var changed = jobs(200, every: 120)
        changed[3] = jobs(4, every: 30)[3]
        scheduler.load(changed, now: start + .seconds(2))
        #expect(entries(.ownerInit).map { $0[JobdField.job] } == ["job3"])
        #expect(entries(.ownerDeinit).map { $0[JobdField.job] } == ["job3"])
        #expect(entries(.timerInvalidate).map { $0[JobdField.reason] } == ["owner-deinit"])
        #expect(entries(.ownersInit).isEmpty && entries(.ownersDeinit).isEmpty && entries(.timersInvalidate).isEmpty)
    }

    /// An owner someone else holds is not released by the shutdown, so the batch does not name it;
    /// its release, later, logs an entry of its own.
    @Test func anOwnerReleasedAfterTheBatchLogsItsOwnDeinit() throws {
        var held: JobOwner?
        scheduler.ownerCreated = { owner in if owner.name == "job5" { held = owner } }
        scheduler.load(jobs(100), now: start)
        scheduler.ownerCreated = nil
        let heldID = try #require(held?.id)
        log.clear()

        scheduler.shutdown()
        #expect(named(.ownersDeinit).count == 99)
        #expect(!named(.ownersDeinit).contains(heldID))
        #expect(named(.timersInvalidate).contains(heldID), "its timer was invalidated at shutdown all the same")
        #expect(entries(.ownerDeinit).isEmpty)

        held = nil
        #expect(entries(.ownerDeinit).map { $0[JobdField.owner] } == [String(heldID)])
        #expect(entries(.ownerDeinit).first?[JobdField.job] == "job5")
    }

    @Test func piecesBoundTheOwnersAndTheJobsTextOfEachEntry() {
        let long = String(repeating: "x", count: 200)
        let notes = (1...300).reversed().map { OwnerEventBatch.Note(owner: UInt64($0), job: "\(long)\($0)", generation: 1, timer: 0) }
        let pieces = OwnerEventBatch.pieces(notes)
        #expect(pieces.allSatisfy { $0.jobs.utf8.count <= OwnerEventBatch.maxJobsTextPerEntry })
        #expect(pieces.count == 4, "16,384 characters hold about 80 names of 201 to 203 and their spaces")
        #expect(pieces.flatMap { Array($0.owners.ids) } == Array(1...300))
        #expect(pieces.flatMap { $0.jobs.split(separator: " ") }.map(String.init) == (1...300).map { "\(long)\($0)" })

        let many = (1...2_500).map { OwnerEventBatch.Note(owner: UInt64($0), job: "j", generation: 1, timer: 0) }
        #expect(OwnerEventBatch.pieces(many).map(\.owners.count) == [1_000, 1_000, 500])
        #expect(OwnerEventBatch.pieces([]).isEmpty)
    }
}
