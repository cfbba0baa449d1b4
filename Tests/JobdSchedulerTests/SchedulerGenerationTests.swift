import InMemoryLogging
import JobdConfig
import JobdLogging
import JobdScheduler
import JobdTestKit
import JobdTimers
import Logging
import Testing

/// Generations: what a reload keeps, replaces and releases, with a manual timer queue.
@Suite struct SchedulerGenerationTests {
    let start = MonotonicInstant(nanoseconds: 50_000_000_000)
    let log = InMemoryLogHandler()
    let observer = RecordingTimerObserver()
    let queue: TimerQueue
    let scheduler: Scheduler
    let due = Guarded<[DueJob]>([])

    init() {
        queue = TimerQueue.manual(observer: observer)
        let handler = log
        let due = self.due
        // Debug, as jobd logs: the owner bookkeeping is logged at debug priority.
        var logger = Logger(label: "test") { _ in handler }
        logger.logLevel = .debug
        scheduler = Scheduler(queue: queue, daemonStart: start, logger: logger) { job in
            due.withLock { $0.append(job) }
        }
    }

    func job(_ name: String, every seconds: UInt64, command: String = "/bin/true") -> JobDefinition {
        JobDefinition(
            name: name, path: "/etc/jobd/jobs.d/\(name).job",
            triggers: [.unitActive(.seconds(seconds))], command: try! ExecCommand.parse(command))
    }

    func events(_ kind: String, job: String? = nil) -> [InMemoryLogHandler.Entry] {
        log.entries.filter {
            $0.metadata["JOBD_EVENT"] == .string(kind) && (job == nil || $0.metadata["JOB"] == .string(job!))
        }
    }

    @Test func reloadKeepsUnchangedOwnersAndReleasesChangedAndRemovedOnes() throws {
        scheduler.load([job("keep", every: 3600), job("change", every: 60), job("remove", every: 60)], now: start)
        let kept = try #require(scheduler.generation.owners["keep"])
        let keptDeadline = kept.timer.deadline
        let oldChangedTimerID = try #require(scheduler.generation.owners["change"]?.timer.id)
        weak let oldChangedOwner = scheduler.generation.owners["change"]

        let summary = scheduler.load([job("keep", every: 3600), job("change", every: 120), job("add", every: 5)], now: start + .seconds(30))

        #expect(summary == Scheduler.ReloadSummary(
            generation: 2, added: ["add"], changed: ["change"], removed: ["remove"], kept: ["keep"]))
        #expect(scheduler.generation.owners["keep"] === kept, "an unchanged job keeps its owner")
        #expect(kept.timer.deadline == keptDeadline, "and its next elapse")
        #expect(oldChangedOwner == nil, "the replaced owner is gone, not merely unreferenced by the generation")
        #expect(observer.invalidations(of: oldChangedTimerID).map(\.reason) == [.ownerDeinit])
        #expect(events("owner.deinit", job: "change").count == 1)
        #expect(events("owner.deinit", job: "remove").count == 1)
        #expect(events("owner.deinit", job: "keep").isEmpty)
        let retains = events("owner.retain")
        #expect(retains.count == 1)
        #expect(retains.first?.metadata["JOBD_OWNERS"] == .string("\(kept.id)"))
        #expect(retains.first?.metadata["JOBD_GENERATION"] == .string("2"))
        #expect(scheduler.generation.owners["change"]?.timer.deadline == start + .seconds(150), "a changed schedule counts from the change")
        #expect(queue.armedCount == 3)
        #expect(queue.statistics.liveTimers == 3)
    }

    /// A reload that only removes a job: the generation keeps the others' owners and lets the
    /// removed job's go, though no job was added or changed.
    @Test func aReloadThatOnlyRemovesAJobReleasesItsOwner() throws {
        scheduler.load([job("a", every: 60), job("b", every: 60), job("c", every: 60)], now: start)
        let a = try #require(scheduler.generation.owners["a"])
        weak let removed = scheduler.generation.owners["b"]

        let summary = scheduler.load([job("a", every: 60), job("c", every: 60)], now: start + .seconds(1))

        #expect(summary == Scheduler.ReloadSummary(generation: 2, removed: ["b"], kept: ["a", "c"]))
        #expect(scheduler.generation.owners.keys.sorted() == ["a", "c"])
        #expect(scheduler.generation.owners["a"] === a)
        #expect(removed == nil, "the removed job's owner is gone")
        #expect(queue.armedCount == 2)
    }

    /// Reloads that add, change and remove jobs at random, in name order or not: every reload's
    /// summary and owners are what a look-up of each job in the generation before says (the
    /// scheduler finds unchanged jobs by a walk beside the last load instead).
    @Test func randomReloadsKeepExactlyTheUnchangedOwners() throws {
        var random = SplitMix64(seed: 19)
        var definitions = (0..<40).map { job("job\($0)", every: 60) }
        scheduler.load(definitions.shuffled(using: &random), now: start)
        for reload in 1...60 {
            let before = scheduler.generation.owners
            var next: [JobDefinition] = []
            for definition in definitions {
                switch Int.random(in: 0..<10, using: &random) {
                case 0: continue
                case 1: next.append(job(definition.name, every: UInt64.random(in: 1...90, using: &random)))
                case 2: next.append(job(definition.name, every: definition.triggers == [.unitActive(.seconds(60))] ? 60 : 61))
                default: next.append(definition)
                }
            }
            next += (0..<Int.random(in: 0...3, using: &random)).map { job("new\(reload)-\($0)", every: 30) }
            next.sort { $0.name < $1.name }
            if reload % 7 == 0 { next.shuffle(using: &random) }
            definitions = next

            let summary = scheduler.load(next, now: start + .seconds(Int64(reload)))

            let kept = next.filter { before[$0.name]?.definition == $0 }.map(\.name)
            #expect(Set(summary.kept) == Set(kept) && summary.kept.count == kept.count, "reload \(reload)")
            #expect(Set(summary.changed) == Set(next.filter { new in before[new.name].map { $0.definition != new } ?? false }.map(\.name)))
            #expect(Set(summary.added) == Set(next.map(\.name).filter { before[$0] == nil }))
            #expect(summary.removed == before.keys.filter { name in !next.contains { $0.name == name } }.sorted())
            #expect(scheduler.generation.owners.keys.sorted() == next.map(\.name).sorted())
            for name in kept { #expect(scheduler.generation.owners[name] === before[name], "\(name) keeps its owner") }
            for definition in next { #expect(scheduler.generation.owners[definition.name]?.definition == definition) }
        }
    }

    @Test func aChangedJobKeepsItsLastRunTime() throws {
        scheduler.load([job("j", every: 60)], now: start)
        let owner = try #require(scheduler.generation.owners["j"])
        queue.fireDue(now: start + .seconds(60))
        let fell = try #require(due.withLock { $0.first })
        #expect(scheduler.jobDue(fell, now: start + .seconds(60)) != .ownerRetired)
        #expect(owner.definition.name == "j")
        scheduler.runStarted(job: "j", cause: "timer", now: start + .seconds(60))
        scheduler.runFinished(RunOutcome(runID: 1, invocationID: "0", job: "j", termination: .exited(0), result: .success,
                                         duration: .seconds(1)), now: start + .seconds(61))
        scheduler.settle(active: [])

        scheduler.load([job("j", every: 60, command: "/bin/echo changed")], now: start + .seconds(100))

        #expect(scheduler.generation.owners["j"]?.definition.command.text == "/bin/echo changed")
        #expect(scheduler.generation.owners["j"]?.timer.deadline == start + .seconds(120),
                "the new owner counts from the last start, not from the reload")
    }

    @Test func fireOfARetiredOwnerIsSkipped() throws {
        scheduler.load([job("j", every: 60)], now: start)
        queue.fireDue(now: start + .seconds(60))
        let stale = try #require(due.withLock { $0.first })
        scheduler.load([job("j", every: 30)], now: start + .seconds(60))
        #expect(scheduler.jobDue(stale, now: start + .seconds(60)) == .ownerRetired, "a fire of a retired owner runs nothing")
    }

    @Test func aFireReArmsTheTimerFromTheTrigger() throws {
        scheduler.load([job("j", every: 1)], now: start)
        queue.fireDue(now: start + .seconds(1))
        queue.fireDue(now: start + .seconds(2))
        let fires = due.withLock { $0 }
        #expect(fires.count == 1, "the timer is re-armed by the scheduler, not by itself")
        #expect(scheduler.jobDue(fires[0], now: start + .seconds(1)) != .ownerRetired)
        #expect(scheduler.generation.owners["j"]?.timer.deadline == nil, "armed once the event is done, not at each step")
        scheduler.settle(active: [])
        #expect(scheduler.generation.owners["j"]?.timer.deadline == start + .seconds(2))
    }

    /// The journal grows with what a reload changed: one owner.retain names every kept owner as
    /// id ranges; only changed, added and removed jobs get entries of their own.
    @Test func aReloadLogsOneRetainForEverythingItKept() throws {
        scheduler.load((0..<1_000).map { job("job\($0)", every: 60) }, now: start)
        let ids = (0..<1_000).map { scheduler.generation.owners["job\($0)"]!.id }
        log.clear()

        // Change job 10 and 500, remove 999, add one.
        let changed = (0..<999).map { job("job\($0)", every: $0 == 10 || $0 == 500 ? 120 : 60) } + [job("new", every: 5)]
        scheduler.load(changed, now: start + .seconds(1))

        let retains = events("owner.retain")
        #expect(retains.count == 1)
        let ranges = try #require(retains.first?.metadata["JOBD_OWNERS"].map { "\($0)" })
        // Owner ids are process-wide and other tests make owners meanwhile: compare with the ranges
        // of the kept ids (in jobd alone they are 3 ranges here).
        let keptIDs = ids.enumerated().filter { ![10, 500, 999].contains($0.offset) }.map(\.element)
        #expect(ranges == OwnerIDRanges(keptIDs).description)
        #expect(retains.first?.metadata["JOBD_OWNER_COUNT"] == .string("997"))
        #expect(events("owner.init").count == 3)
        #expect(events("owner.deinit").count == 3)
        #expect(log.entries.count == 3 + 3 + 1 + 1, "inits, deinits, the retain, generation.load: nothing per kept job")
    }

    @Test func aReloadThatKeepsNothingLogsNoRetain() {
        scheduler.load([job("a", every: 60)], now: start)
        scheduler.load([job("a", every: 120)], now: start + .seconds(1))
        #expect(events("owner.retain").isEmpty)
    }

    @Test func shutdownInvalidatesEveryTimerThenReleasesEveryOwner() {
        scheduler.load((0..<50).map { job("job\($0)", every: 60) }, now: start)
        scheduler.shutdown()
        #expect(observer.count(.shutdown) == 50)
        // 50 at once: one owners.deinit names them all (OwnerEventBatchTests).
        #expect(events("owners.deinit").map { $0.metadata["JOBD_OWNER_COUNT"] } == [.string("50")])
        #expect(queue.armedCount == 0)
        #expect(queue.statistics.liveTimers == 0)
    }
}

/// Spans at the top of what a definition can hold (built in code, so not bounded by the parser):
/// arming saturates instead of trapping.
@Suite struct SchedulerArithmeticTests {
    @Test func hugeAccuracyAndRandomizedDelayDoNotTrap() throws {
        let start = MonotonicInstant(nanoseconds: 50_000_000_000)
        let queue = TimerQueue.manual(observer: RecordingTimerObserver())
        let scheduler = Scheduler(queue: queue, daemonStart: start, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }) { _ in }
        var jobs: [JobDefinition] = []
        for (index, span) in [TimeSpan(microseconds: .max - 1), TimeSpan(microseconds: UInt64(Int64.max)), TimeSpan.maximum].enumerated() {
            var job = JobDefinition(
                name: "j\(index)", path: "/j\(index).job", triggers: [.unitActive(.seconds(60))],
                command: try ExecCommand.parse("/bin/true"))
            job.accuracy = span
            job.randomizedDelay = span
            jobs.append(job)
        }
        scheduler.load(jobs, now: start)
        for job in jobs {
            let deadline = try #require(scheduler.generation.owners[job.name]?.timer.deadline)
            #expect(deadline >= start + .seconds(60))
        }
    }
}
