import Dispatch
import Foundation
import InMemoryLogging
import JobdConfig
import JobdLogging
import JobdScheduler
import JobdTimers
import Logging
import Testing

/// A reload lets go of an owner whose fire the timing thread is delivering at that moment. The
/// delivery holds the owner until it returns; the reload waits for it, as shutdown does, so that
/// the owner is released by the reload and its `owner.deinit` comes before the reload's
/// `generation.load` (JournalContractTests saw it after `reload.done` once, under load).
@Suite struct ReloadDuringDeliveryTests {
    @Test func aReloadReleasesAnOwnerWhoseFireIsBeingDeliveredBeforeItReturns() throws {
        let start = MonotonicInstant(nanoseconds: 50_000_000_000)
        let log = InMemoryLogHandler()
        var logger = Logger(label: "test") { _ in log }
        logger.logLevel = .debug
        let events = OwnerEventBatch(logger: logger)
        let queue = TimerQueue.manual(observer: TimerEventLog(logger: logger, events: events))
        let inDelivery = DispatchSemaphore(value: 0), loaded = DispatchSemaphore(value: 0), delivered = DispatchSemaphore(value: 0)
        // The delivery goes on until the reload has returned, or for half a second: a reload that
        // waits for it returns only once it has.
        let scheduler = Scheduler(queue: queue, daemonStart: start, logger: logger, events: events) { _ in
            inDelivery.signal()
            _ = loaded.wait(timeout: .now() + .milliseconds(500))
        }
        let job = JobDefinition(name: "gone", path: "/etc/jobd/jobs.d/gone.job", triggers: [.startup(.seconds(1))],
                                command: try ExecCommand.parse("/bin/true"))
        scheduler.load([job], now: start)
        weak let owner = scheduler.generation.owners["gone"]
        #expect(owner != nil)

        Thread.detachNewThread {
            queue.fireDue(now: start + .seconds(2))
            delivered.signal()
        }
        inDelivery.wait()
        scheduler.load([], now: start + .seconds(2))
        let aliveAfterLoad = owner != nil
        loaded.signal()
        delivered.wait()

        #expect(!aliveAfterLoad, "the reload returned while a delivery still held the owner it let go")
        let order = log.entries.compactMap { entry -> String? in
            guard case .string(let event)? = entry.metadata[JobdField.event] else { return nil }
            return event
        }
        let released = try #require(order.lastIndex { $0 == JobdEvent.ownerDeinit.rawValue || $0 == JobdEvent.ownersDeinit.rawValue })
        let reloaded = try #require(order.lastIndex { $0 == JobdEvent.generationLoad.rawValue })
        #expect(released < reloaded, "\(order)")
    }
}
