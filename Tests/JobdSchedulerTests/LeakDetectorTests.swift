import InMemoryLogging
import JobdConfig
import JobdScheduler
import JobdTestKit
import JobdTimers
import Logging
import Testing

/// The live leak detector, with a leak planted by the test: it holds on to one owner through the
/// scheduler's `ownerCreated` hook, as a forgotten reference in real code would.
@Suite struct LeakDetectorTests {
    let start = MonotonicInstant(nanoseconds: 10_000_000_000)

    func job(_ name: String) -> JobDefinition {
        JobDefinition(name: name, path: "/j/\(name).job", triggers: [.unitActive(.seconds(60))],
                      command: try! ExecCommand.parse("/bin/true"))
    }

    func run(plant: Bool) -> (InMemoryLogHandler, Guarded<[JobOwner]>, LeakDetector, Scheduler) {
        let log = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in log }
        logger.logLevel = .debug  // as jobd logs: owner bookkeeping is at debug priority
        let scheduler = Scheduler(queue: .manual(), daemonStart: start, logger: logger) { _ in }
        let detector = LeakDetector(grace: .seconds(5), queue: nil, logger: logger) {}
        scheduler.leakDetector = detector
        let planted = Guarded<[JobOwner]>([])
        if plant {
            scheduler.ownerCreated = { owner in
                if owner.name == "leaky" { planted.withLock { $0.append(owner) } }
            }
        }
        scheduler.load([job("leaky"), job("fine")], now: start)
        scheduler.load([job("fine")], now: start + .seconds(1))  // a reload removes "leaky"
        return (log, planted, detector, scheduler)
    }

    func events(_ log: InMemoryLogHandler, _ kind: String) -> [InMemoryLogHandler.Entry] {
        log.entries.filter { $0.metadata["JOBD_EVENT"] == .string(kind) }
    }

    @Test func plantedLeakIsReportedAfterTheGraceAndItsLateReleaseToo() {
        let (log, planted, detector, _) = run(plant: true)
        detector.check(now: start + .seconds(3))
        #expect(events(log, "owner.leak").isEmpty, "within the grace it is not a leak yet")
        #expect(detector.retiredAlive == 1)

        detector.check(now: start + .seconds(7))
        let leak = events(log, "owner.leak")
        #expect(leak.count == 1)
        #expect(leak.first?.metadata["JOB"] == "leaky")
        #expect(leak.first?.level == .warning)
        #expect(leak.first?.metadata["JOBD_REASON"]?.description.hasPrefix("held outside jobd's generations and runs") == true)
        #expect(detector.leaked == 1)
        detector.check(now: start + .seconds(9))
        #expect(events(log, "owner.leak").count == 1, "reported once")

        planted.withLock { $0.removeAll() }
        detector.check(now: start + .seconds(12))
        #expect(events(log, "owner.late-deinit").map { $0.metadata["JOB"] } == ["leaky"])
        #expect(detector.retiredAlive == 0)
    }

    @Test func withoutThePlantNothingIsReported() {
        let (log, _, detector, scheduler) = run(plant: false)
        detector.check(now: start + .seconds(60))
        defer { withExtendedLifetime(scheduler) {} }
        #expect(events(log, "owner.leak").isEmpty)
        #expect(events(log, "owner.deinit").map { $0.metadata["JOB"] } == ["leaky"])
        #expect(detector.retiredAlive == 0)
    }

    /// Owners a reload let go are forgotten at once: across many reloads the watch holds only the
    /// owners still alive (here the planted one), not every owner of the last grace period.
    @Test func releasedOwnersAreNotWatchedAfterTheirReload() {
        let (_, planted, detector, scheduler) = run(plant: true)
        #expect(detector.watchedCount == 1, "the planted owner only: 'leaky' is still held")
        for reload in 0..<20 {
            // Each reload changes "fine": its owner is retired and let go.
            let changed = JobDefinition(name: "fine", path: "/j/fine.job", triggers: [.unitActive(.seconds(60 + UInt64(reload)))],
                                        command: try! ExecCommand.parse("/bin/true"))
            scheduler.load([changed], now: start + .seconds(2) + .milliseconds(100 * reload))
        }
        #expect(detector.watchedCount == 1)
        #expect(detector.retiredAlive == 1)
        planted.withLock { $0.removeAll() }
        scheduler.load([job("fine")], now: start + .seconds(4))
        #expect(detector.watchedCount == 0)
    }

    @Test func aLeakAtShutdownIsReportedAtOnce() {
        let (log, planted, _, scheduler) = run(plant: true)
        scheduler.ownerCreated = { owner in planted.withLock { $0.append(owner) } }
        scheduler.load([job("fine"), job("kept")], now: start + .seconds(2))
        scheduler.shutdown()
        #expect(Set(events(log, "owner.leak").compactMap { $0.metadata["JOB"]?.description }) == ["leaky", "kept"])
    }
}
