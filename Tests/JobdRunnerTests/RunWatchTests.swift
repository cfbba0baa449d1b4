import JobdConfig
@testable import JobdRunner
import JobdTestKit
import Testing

/// The watch beside a run's process, without a task (issue 39): which reason to stop the run is
/// posted to it, and when.
struct RunWatchTests {
    /// A watch, what it posted, and how many of its driver watches were cancelled.
    struct Watched {
        let posted = Guarded<[StopReason]>([])
        let cancelled = Guarded(0)
        let watch: RunWatch

        init() {
            let posted = posted
            watch = RunWatch { reason in posted.withLock { $0.append(reason) } }
        }

        func driverWatch() -> RunDriverWatch {
            let cancelled = cancelled
            return RunDriverWatch { cancelled.withLock { $0 += 1 } }
        }
    }

    @Test func theFirstReasonIsPostedOnceAndItsTimersAreCancelled() {
        let watched = Watched()
        watched.watch.begin([watched.driverWatch(), watched.driverWatch()])
        #expect(watched.posted.withLock { $0 }.isEmpty)
        watched.watch.stop(.requested)
        watched.watch.stop(.runtimeExceeded)
        #expect(watched.posted.withLock { $0 } == [.requested], "the first reason only, as a watcher task returned it")
        #expect(watched.cancelled.withLock { $0 } == 2, "RuntimeMaxSec='s timer and the OOM watch go with the first reason")
    }

    @Test func onlyTheNewestRequestBeforeTheWatchWaitsForIt() {
        let watched = Watched()
        watched.watch.stop(.replaced)
        watched.watch.stop(.shutdown)
        #expect(watched.posted.withLock { $0 }.isEmpty, "nothing is posted while the run is prepared")
        watched.watch.begin([watched.driverWatch()])
        #expect(watched.posted.withLock { $0 } == [.shutdown])
        #expect(watched.cancelled.withLock { $0 } == 1)
    }

    @Test func nothingIsPostedOnceTheProcessIsReaped() {
        let watched = Watched()
        watched.watch.begin([watched.driverWatch()])
        watched.watch.end()
        #expect(watched.cancelled.withLock { $0 } == 1)
        watched.watch.stop(.requested)
        #expect(watched.posted.withLock { $0 }.isEmpty)
        #expect(watched.cancelled.withLock { $0 } == 1, "cancelled once")
    }
}
