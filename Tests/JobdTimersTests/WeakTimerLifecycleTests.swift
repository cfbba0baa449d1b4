import Dispatch
import JobdTestKit
import JobdTimers
import Testing

/// The guarantees of WEAK-TARGET-TIMERS.md, proved with counts on a manual queue: time moves only
/// when a test calls `fireDue(now:)`, so nothing here depends on timing luck.
@Suite struct WeakTimerLifecycleTests {
    let start = MonotonicInstant(nanoseconds: 1_000_000_000)

    @Test func releasedOwnerIsDeinitializedAtOnceAndItsTimerInvalidated() {
        let observer = RecordingTimerObserver()
        let queue = TimerQueue.manual(observer: observer)
        let ledger = OwnerLedger()
        var owner: CountingOwner? = CountingOwner(serial: 1, queue: queue, ledger: ledger)
        let timer = owner!.timer
        timer.schedule(at: start + .seconds(10), repeating: .seconds(10))
        #expect(queue.armedCount == 1)

        owner = nil

        #expect(ledger.deinitCount == 1)
        #expect(timer.invalidationReason == .ownerDeinit)
        #expect(observer.invalidations(of: timer.id).map(\.reason) == [.ownerDeinit])
        #expect(queue.armedCount == 0)
        #expect(queue.fireDue(now: start + .seconds(100)) == 0)
        #expect(ledger.fireCount == 0)
    }

    @Test(arguments: 1...4)
    func ownerReleasedOnAnotherThreadIsDeinitializedBeforeTheReleaseReturns(threads: Int) {
        let observer = RecordingTimerObserver()
        let queue = TimerQueue.manual(observer: observer)
        let ledger = OwnerLedger()
        // The box holds the only references: no local may keep an owner alive.
        let box = OwnersBox((0..<threads).map { CountingOwner(serial: $0, queue: queue, ledger: ledger) })
        let timers = box.timers
        for timer in timers { timer.schedule(at: start + .seconds(1)) }

        DispatchQueue.concurrentPerform(iterations: threads) { index in
            box.release(index)
            // Deinit ran inside the release on this thread, not later on some other one.
            precondition(timers[index].invalidationReason == .ownerDeinit)
        }

        #expect(ledger.deinitCount == threads)
        #expect(timers.allSatisfy { $0.invalidationReason == .ownerDeinit })
        #expect(observer.count(.ownerDeinit) == threads)
        #expect(queue.fireDue(now: start + .seconds(5)) == 0)
        #expect(ledger.fireCount == 0)
    }

    @Test func timerWhoseTargetIsGoneInvalidatesItselfOnItsNextFire() {
        let observer = RecordingTimerObserver()
        let queue = TimerQueue.manual(observer: observer)
        let ledger = OwnerLedger()
        var owner: CountingOwner? = CountingOwner(
            serial: 1, queue: queue, ledger: ledger, invalidatesInDeinit: false)
        let timer = owner!.timer
        timer.schedule(at: start + .seconds(1), repeating: .seconds(1))
        owner = nil
        #expect(ledger.deinitCount == 1)
        #expect(timer.isValid, "an owner that forgets to invalidate leaves its timer armed until it fires")
        #expect(queue.armedCount == 1)

        #expect(queue.fireDue(now: start + .seconds(1)) == 1)

        #expect(timer.invalidationReason == .targetGone)
        #expect(observer.invalidations(of: timer.id).map(\.reason) == [.targetGone])
        #expect(queue.armedCount == 0)
        #expect(ledger.fireCount == 0)
        #expect(queue.statistics.firesDropped == 1)
    }

    @Test func tenThousandOwnersCreatedAndReleasedLeaveNoTimerBehind() {
        let observer = RecordingTimerObserver()
        let queue = TimerQueue.manual(observer: observer)
        let ledger = OwnerLedger()
        var owners: [CountingOwner] = []
        for serial in 0..<10_000 {
            let owner = CountingOwner(serial: serial, queue: queue, ledger: ledger)
            owner.timer.schedule(at: start + .milliseconds(serial % 997), repeating: .seconds(60))
            owners.append(owner)
        }
        #expect(queue.armedCount == 10_000)
        #expect(queue.statistics.liveTimers == 10_000)

        owners.removeAll()

        #expect(ledger.deinitCount == 10_000)
        #expect(queue.armedCount == 0)
        #expect(queue.nextDeadline == nil)
        #expect(queue.statistics.liveTimers == 0)
        #expect(observer.count(.ownerDeinit) == 10_000)
        #expect(queue.fireDue(now: start + .seconds(3600)) == 0)
    }

    @Test func invalidationIsIdempotentAndTheFirstReasonStands() {
        let observer = RecordingTimerObserver()
        let queue = TimerQueue.manual(observer: observer)
        let timer = queue.makeTimer(label: "t")
        timer.schedule(at: start)
        #expect(timer.invalidate(reason: .shutdown))
        #expect(!timer.invalidate(reason: .ownerDeinit))
        #expect(!timer.schedule(at: start + .seconds(1)), "an invalidated timer cannot be re-armed")
        #expect(timer.invalidationReason == .shutdown)
        #expect(observer.invalidations.map(\.reason) == [.shutdown])
        #expect(queue.armedCount == 0)
    }

    @Test func invalidatedAfterFallingDueIsDropped() {
        // The window between a timer leaving the heap and its delivery: an invalidation there wins.
        let queue = TimerQueue.manual()
        let ledger = OwnerLedger()
        let owner = InvalidatingNeighbour(queue: queue, ledger: ledger)
        owner.first.schedule(at: start)
        owner.second.schedule(at: start)
        queue.fireDue(now: start)
        #expect(ledger.fireCount == 1, "the first fire invalidated the second timer before its delivery")
        #expect(queue.statistics.firesDropped == 1)
    }

    @Test func repeatingTimerKeepsItsPhaseAndSkipsMissedPeriods() {
        let queue = TimerQueue.manual()
        let ledger = OwnerLedger()
        let owner = CountingOwner(serial: 1, queue: queue, ledger: ledger)
        owner.timer.schedule(at: start + .seconds(1), repeating: .seconds(1))
        queue.fireDue(now: start + .seconds(1))
        #expect(owner.timer.deadline == start + .seconds(2))
        queue.fireDue(now: start + .milliseconds(5_500))
        #expect(ledger.fireCount == 2, "missed periods fire once, not as a burst")
        #expect(owner.timer.deadline == start + .seconds(6))
    }

    @Test func timersFireInDeadlineOrderThenCreationOrder() {
        let queue = TimerQueue.manual()
        let order = OrderRecorder()
        var generator = SplitMix64(seed: 42)
        var targets: [OrderRecorder.Target] = []
        for index in 0..<2_000 {
            let target = OrderRecorder.Target(recorder: order, queue: queue, index: index)
            target.timer.schedule(at: start + .milliseconds(Int64(generator.next() % 50)))
            targets.append(target)
        }
        // Re-arm and cancel a few, as owners do, to exercise moves and removals inside the heap.
        for index in stride(from: 0, to: 2_000, by: 7) {
            targets[index].timer.schedule(at: start + .milliseconds(Int64(generator.next() % 50)))
        }
        for index in stride(from: 3, to: 2_000, by: 11) { targets[index].timer.cancel() }
        let expected = targets.filter { $0.timer.deadline != nil }
            .sorted { ($0.timer.deadline!, $0.timer.id) < ($1.timer.deadline!, $1.timer.id) }
            .map(\.index)

        for millisecond in 0..<50 { queue.fireDue(now: start + .milliseconds(millisecond)) }

        #expect(order.fired == expected)
        #expect(queue.armedCount == 0)
    }
}

/// Holds the only references to a set of owners, one slot each, so that concurrent threads can
/// each drop their own. Slots are separate allocations: no two threads ever write the same memory.
final class OwnersBox: @unchecked Sendable {
    private final class Slot { var owner: CountingOwner?; init(_ owner: CountingOwner) { self.owner = owner } }
    private let slots: [Slot]
    init(_ owners: consuming [CountingOwner]) {
        slots = owners.map(Slot.init)
    }
    var timers: [WeakTimer] { slots.map { $0.owner!.timer } }
    /// Each index is released by exactly one thread.
    func release(_ index: Int) { slots[index].owner = nil }
}

/// Two timers on one target; the first fire invalidates the second.
final class InvalidatingNeighbour: TimerTarget {
    let first: WeakTimer
    let second: WeakTimer
    let ledger: OwnerLedger
    init(queue: TimerQueue, ledger: OwnerLedger) {
        first = queue.makeTimer(label: "first")
        second = queue.makeTimer(label: "second")
        self.ledger = ledger
        first.bind(to: self)
        second.bind(to: self)
    }
    func timerFired(_ timer: WeakTimer, at now: MonotonicInstant) {
        ledger.recordExternalFire()
        let other = timer === first ? second : first
        other.invalidate(reason: .shutdown)
    }
}

final class OrderRecorder: @unchecked Sendable {
    // Only the test thread fires a manual queue here.
    private(set) var fired: [Int] = []

    final class Target: TimerTarget, @unchecked Sendable {
        let recorder: OrderRecorder
        let timer: WeakTimer
        let index: Int
        init(recorder: OrderRecorder, queue: TimerQueue, index: Int) {
            self.recorder = recorder
            self.index = index
            timer = queue.makeTimer(label: "\(index)")
            timer.bind(to: self)
        }
        func timerFired(_ timer: WeakTimer, at now: MonotonicInstant) { recorder.fired.append(index) }
    }
}
