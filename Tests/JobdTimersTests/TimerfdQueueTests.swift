import Dispatch
import Foundation
import JobdTestKit
import JobdTimers
import Synchronization
import Testing

/// The real timing thread on a timerfd. These await the fires themselves; the bounds on waiting
/// only turn a hang into a failure.
@Suite struct TimerfdQueueTests {
    @Test func timerFiresOnTheTimingThreadNoEarlierThanItsDeadline() throws {
        let queue = try TimerQueue()
        let target = SignallingTarget(queue: queue)
        let deadline = MonotonicInstant.now() + .milliseconds(20)
        target.timer.schedule(at: deadline)

        let firedAt = try target.nextFire()

        #expect(firedAt >= deadline)
        #expect(queue.armedCount == 0)
    }

    @Test func repeatingTimerFiresUntilItsOwnerIsReleased() throws {
        let observer = RecordingTimerObserver()
        let queue = try TimerQueue(observer: observer)
        var target: SignallingTarget? = SignallingTarget(queue: queue)
        let timer = target!.timer
        timer.schedule(after: .milliseconds(1), repeating: .milliseconds(2))
        for _ in 0..<5 { _ = try target!.nextFire() }

        target = nil

        // If a fire was being delivered at that moment, the delivery held the owner and its deinit
        // runs on the timing thread when the delivery returns: wait for it rather than assume it.
        #expect(observer.waitForInvalidations(1))
        #expect(timer.invalidationReason == .ownerDeinit)
        #expect(queue.armedCount == 0)
        #expect(observer.invalidations.map(\.reason) == [.ownerDeinit])
        let delivered = queue.statistics.firesDelivered
        #expect(queue.fireDue(now: .now() + .seconds(60)) == 0)
        #expect(queue.statistics.firesDelivered == delivered, "no fire after the owner's deinit")
    }

    @Test func anEarlierDeadlineRearmsTheKernelTimer() throws {
        let queue = try TimerQueue()
        let late = SignallingTarget(queue: queue)
        let early = SignallingTarget(queue: queue)
        late.timer.schedule(after: .seconds(3600))
        early.timer.schedule(after: .milliseconds(5))
        _ = try early.nextFire()
        #expect(late.timer.deadline != nil)
        #expect(queue.armedCount == 1)
    }
}

/// A target that hands each fire to a waiting test.
final class SignallingTarget: TimerTarget {
    let timer: WeakTimer
    private let fired = DispatchSemaphore(value: 0)
    private let fireTimes = Guarded<[MonotonicInstant]>([])

    init(queue: TimerQueue) {
        timer = queue.makeTimer(label: "signalling")
        timer.bind(to: self)
    }

    deinit { timer.invalidate(reason: .ownerDeinit) }

    func timerFired(_ timer: WeakTimer, at now: MonotonicInstant) {
        fireTimes.withLock { $0.append(now) }
        fired.signal()
    }

    struct NoFire: Error {}

    /// Waits for the next fire and returns when it happened; fails if none comes within ten seconds.
    func nextFire() throws -> MonotonicInstant {
        guard fired.wait(timeout: .now() + .seconds(10)) == .success else { throw NoFire() }
        return fireTimes.withLock { $0.removeFirst() }
    }
}
