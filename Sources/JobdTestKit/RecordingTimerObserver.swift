import JobdTimers
import Dispatch
import Foundation
import Synchronization

/// A ``TimerObserver`` that records every schedule and invalidation, for assertions by count.
public final class RecordingTimerObserver: TimerObserver {
    public struct Invalidation: Sendable, Equatable {
        public var timerID: UInt64
        public var label: String
        public var reason: InvalidationReason
    }

    private let invalidationLog = Guarded<[Invalidation]>([])
    private let scheduleCount = Atomic<Int>(0)
    private let invalidated = DispatchSemaphore(value: 0)

    public init() {}

    public func timerScheduled(_ timer: WeakTimer, deadline: MonotonicInstant) {
        scheduleCount.add(1, ordering: .relaxed)
    }

    public func timerInvalidated(_ timer: WeakTimer, reason: InvalidationReason) {
        invalidationLog.withLock { $0.append(Invalidation(timerID: timer.id, label: timer.label, reason: reason)) }
        invalidated.signal()
    }

    /// Waits until `count` invalidations have been recorded in all; `false` if they do not come
    /// within `timeout`. For timers on a real timing thread, where an owner released while one of
    /// its fires is being delivered is deinitialized when that delivery returns.
    public func waitForInvalidations(_ count: Int, timeout: Duration = .seconds(10)) -> Bool {
        while invalidations.count < count {
            let (seconds, attoseconds) = timeout.components
            let deadline = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            if invalidated.wait(timeout: deadline) == .timedOut { return invalidations.count >= count }
        }
        return true
    }

    public var invalidations: [Invalidation] { invalidationLog.withLock { $0 } }
    public var schedules: Int { scheduleCount.load(ordering: .relaxed) }

    public func invalidations(of timerID: UInt64) -> [Invalidation] {
        invalidations.filter { $0.timerID == timerID }
    }

    public func count(_ reason: InvalidationReason) -> Int {
        invalidations.filter { $0.reason == reason }.count
    }
}
