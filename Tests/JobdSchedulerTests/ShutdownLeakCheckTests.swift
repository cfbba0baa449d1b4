import Dispatch
import Glibc
import InMemoryLogging
import JobdConfig
import JobdScheduler
import JobdTimers
import Logging
import Testing

/// The shutdown leak check must not mistake an owner that the timing thread is still delivering a
/// fire to (held in a strong local for the call) for a leak: 1,000 stops, each with a fire in flight.
@Suite struct ShutdownLeakCheckTests {
    @Test func noFalseLeakWhenAFireIsInFlightAtShutdown() throws {
        let queue = try TimerQueue()
        var leaks = 0
        for _ in 0..<1_000 {
            let log = InMemoryLogHandler()
            var logger = Logger(label: "test") { _ in log }
            logger.logLevel = .debug
            let entered = DispatchSemaphore(value: 0)
            // The fire reaches the owner, says so, and takes a moment before it returns: the
            // stop happens while the timing thread holds the owner for this delivery.
            let scheduler = Scheduler(queue: queue, daemonStart: .now(), logger: logger) { _ in
                entered.signal()
                usleep(300)
            }
            scheduler.leakDetector = LeakDetector(grace: .seconds(5), queue: nil, logger: logger) {}
            var definition = JobDefinition(
                name: "soon", path: "/j/soon.job", triggers: [.startup(.zero)], command: try ExecCommand.parse("/bin/true"))
            definition.accuracy = TimeSpan(microseconds: 1)
            scheduler.load([definition])
            entered.wait()
            scheduler.shutdown()
            leaks += log.entries.count { $0.metadata["JOBD_EVENT"] == "owner.leak" }
        }
        #expect(leaks == 0, "an owner in a fire's delivery was reported as leaked \(leaks) time(s)")
    }
}
