import JobdTestKit
import JobdTimers
import Testing

/// `bind(to:andScheduleAt:)`: an owner's target and deadline set under one lock, and a repeating
/// timer's period kept by the queue only while the timer is armed.
@Suite struct BindAndScheduleTests {
    let start = MonotonicInstant(nanoseconds: 1_000_000_000)

    /// A target that is not bound at creation: its first arm binds it.
    final class LateBound: TimerTarget {
        let timer: WeakTimer
        let ledger: OwnerLedger
        init(queue: TimerQueue, ledger: OwnerLedger) {
            self.ledger = ledger
            timer = queue.makeTimer(label: "late", tag: 7)
        }
        deinit { timer.invalidate(reason: .ownerDeinit) }
        func timerFired(_ timer: WeakTimer, at now: MonotonicInstant) { ledger.recordExternalFire() }
    }

    @Test func bindingAndSchedulingArmsTheTimerForItsTarget() {
        let observer = RecordingTimerObserver()
        let queue = TimerQueue.manual(observer: observer)
        let ledger = OwnerLedger()
        let owner = LateBound(queue: queue, ledger: ledger)
        #expect(owner.timer.bind(to: owner, andScheduleAt: start + .seconds(1)))
        #expect(owner.timer.deadline == start + .seconds(1))
        #expect(queue.fireDue(now: start + .seconds(1)) == 1)
        #expect(ledger.fireCount == 1)
        #expect(owner.timer.deadline == nil, "a one-shot fire leaves the timer unarmed")
    }

    @Test func aNilDeadlineDisarmsAndKeepsTheTimerValid() {
        let queue = TimerQueue.manual()
        let ledger = OwnerLedger()
        let owner = LateBound(queue: queue, ledger: ledger)
        owner.timer.bind(to: owner, andScheduleAt: start + .seconds(1))
        #expect(owner.timer.bind(to: owner, andScheduleAt: nil))
        #expect(queue.armedCount == 0 && owner.timer.isValid)
        #expect(queue.fireDue(now: start + .seconds(5)) == 0)
        owner.timer.bind(to: owner, andScheduleAt: start + .seconds(6))
        #expect(queue.fireDue(now: start + .seconds(6)) == 1 && ledger.fireCount == 1)
    }

    @Test func anInvalidatedTimerIsNeitherBoundNorArmed() {
        let queue = TimerQueue.manual()
        let ledger = OwnerLedger()
        let owner = LateBound(queue: queue, ledger: ledger)
        owner.timer.invalidate(reason: .shutdown)
        #expect(!owner.timer.bind(to: owner, andScheduleAt: start + .seconds(1)))
        #expect(queue.armedCount == 0)
        #expect(queue.fireDue(now: start + .seconds(2)) == 0 && ledger.fireCount == 0)
    }

    @Test func theOwnerStillGoesAtOnceAndItsTimerWithIt() {
        let observer = RecordingTimerObserver()
        let queue = TimerQueue.manual(observer: observer)
        let ledger = OwnerLedger()
        var owner: LateBound? = LateBound(queue: queue, ledger: ledger)
        let timer = owner!.timer
        timer.bind(to: owner!, andScheduleAt: start + .seconds(1), repeating: .seconds(1))
        weak let weakOwner = owner
        owner = nil
        #expect(weakOwner == nil, "the timer holds its target weakly")
        #expect(observer.invalidations(of: timer.id).map(\.reason) == [.ownerDeinit])
        #expect(queue.armedCount == 0)
    }

    /// A period belongs to one arming: re-arming without one makes the timer one-shot again, and a
    /// cancelled repeating timer re-armed once fires once.
    @Test func aPeriodLastsOnlyUntilTheTimerIsReArmedOrCancelled() {
        let queue = TimerQueue.manual()
        let ledger = OwnerLedger()
        let owner = LateBound(queue: queue, ledger: ledger)
        owner.timer.bind(to: owner, andScheduleAt: start + .seconds(1), repeating: .seconds(1))
        queue.fireDue(now: start + .seconds(1))
        #expect(owner.timer.deadline == start + .seconds(2))
        owner.timer.schedule(at: start + .seconds(3))
        queue.fireDue(now: start + .seconds(3))
        #expect(owner.timer.deadline == nil, "re-armed without a period: one-shot")

        owner.timer.schedule(at: start + .seconds(4), repeating: .seconds(1))
        owner.timer.cancel()
        owner.timer.schedule(at: start + .seconds(5))
        queue.fireDue(now: start + .seconds(5))
        #expect(owner.timer.deadline == nil, "cancelling dropped the period")
        #expect(ledger.fireCount == 3)
    }
}
