import JobdTestKit
import JobdTimers
import Testing

/// `bind(to:_:)`, the closure form: the closure gets its owner for the call only, so the owner is
/// never kept alive by its timer, and a timer whose owner is gone invalidates itself.
@Suite struct ClosureBindingTests {
    let start = MonotonicInstant(nanoseconds: 1_000_000_000)

    final class Poller: Sendable {
        let timer: WeakTimer
        let polls = Guarded(0)
        let released: Guarded<Int>

        init(queue: TimerQueue, released: Guarded<Int>) {
            self.released = released
            timer = queue.makeTimer(label: "poller")
            // No capture of self: the closure gets the owner as its parameter.
            timer.bind(to: self) { owner, _, _ in owner.polls.withLock { $0 += 1 } }
        }

        deinit { released.withLock { $0 += 1 } }
    }

    @Test func theClosureGetsItsOwnerAndTheOwnerIsReleasedAtOnce() {
        let observer = RecordingTimerObserver()
        let queue = TimerQueue.manual(observer: observer)
        let released = Guarded(0)
        var poller: Poller? = Poller(queue: queue, released: released)
        let timer = poller!.timer
        timer.schedule(at: start + .seconds(1), repeating: .seconds(1))
        #expect(queue.fireDue(now: start + .seconds(1)) == 1)
        #expect(queue.fireDue(now: start + .seconds(2)) == 1)
        #expect(poller?.polls.withLock { $0 } == 2)

        poller = nil
        #expect(released.withLock { $0 } == 1, "the timer and its closure did not keep the owner alive")
        // It forgot to invalidate in deinit: the next fire finds the owner gone and says so.
        #expect(queue.fireDue(now: start + .seconds(3)) == 1)
        #expect(timer.invalidationReason == .targetGone)
        #expect(observer.invalidations(of: timer.id).map(\.reason) == [.targetGone])
        #expect(queue.armedCount == 0)
    }

    @Test func rebindingToAnObjectDropsTheClosure() {
        final class Target: TimerTarget {
            let fires = Guarded(0)
            func timerFired(_ timer: WeakTimer, at now: MonotonicInstant) { fires.withLock { $0 += 1 } }
        }
        let queue = TimerQueue.manual()
        let released = Guarded(0)
        let poller = Poller(queue: queue, released: released)
        let target = Target()
        poller.timer.bind(to: target)
        poller.timer.schedule(at: start)
        queue.fireDue(now: start)
        #expect(target.fires.withLock { $0 } == 1 && poller.polls.withLock { $0 } == 0)
    }
}
