import JobdConfig
@testable import JobdRunner
import JobdTestKit
import Testing

/// The one timer thread of every run's `RuntimeMaxSec=` and `TimeoutStopSec=` (issue 39).
struct RunTimersTests {
    @Test func aTimerFiresOnceAndOneCancelledOrInfiniteNever() async {
        let timers = RunTimers()
        let fired = Guarded<[String]>([])
        let held = Guarded<[RunDriverWatch]>([])
        let cancelled = timers.schedule(after: TimeSpan(microseconds: 1_000)) { fired.withLock { $0.append("cancelled") } }
        cancelled.cancel()
        held.withLock { $0.append(timers.schedule(after: .infinity) { fired.withLock { $0.append("infinite") } }) }
        // Due after the cancelled one: by the time it fires, the cancelled one would have.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let later = timers.schedule(after: TimeSpan(microseconds: 20_000)) {
                fired.withLock { $0.append("later") }
                done.resume()
            }
            held.withLock { $0.append(later) }
        }
        #expect(fired.withLock { $0 } == ["later"])
    }
}
