import Dispatch
import Foundation
package import JobdTimers
import Synchronization

/// A ``TimerObserver`` that records every schedule and invalidation, for assertions by count.
package final class RecordingTimerObserver: TimerObserver {
    package struct Invalidation: Sendable, Equatable {
        package var timerID: UInt64
        package var label: String
        package var reason: InvalidationReason
    }

    private let invalidationLog = Guarded<[Invalidation]>([])
    private let scheduleCount = Atomic<Int>(0)
    private let invalidated = DispatchSemaphore(value: 0)

    package init() {}

    package func timerScheduled(_ timer: WeakTimer, deadline: MonotonicInstant) {
        scheduleCount.add(1, ordering: .relaxed)
    }

    package func timerInvalidated(_ timer: WeakTimer, reason: InvalidationReason) {
        invalidationLog.withLock { $0.append(Invalidation(timerID: timer.id, label: timer.label, reason: reason)) }
        invalidated.signal()
    }

    /// Waits until `count` invalidations have been recorded in all; `false` if they do not come
    /// within `timeout`. For timers on a real timing thread, where an owner released while one of
    /// its fires is being delivered is deinitialized when that delivery returns.
    package func waitForInvalidations(_ count: Int, timeout: Duration = .seconds(10)) -> Bool {
        while invalidations.count < count {
            let (seconds, attoseconds) = timeout.components
            let deadline = DispatchTime.now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
            if invalidated.wait(timeout: deadline) == .timedOut { return invalidations.count >= count }
        }
        return true
    }

    package var invalidations: [Invalidation] { invalidationLog.withLock { $0 } }
    package var schedules: Int { scheduleCount.load(ordering: .relaxed) }

    package func invalidations(of timerID: UInt64) -> [Invalidation] {
        invalidations.filter { $0.timerID == timerID }
    }

    package func count(_ reason: InvalidationReason) -> Int {
        invalidations.filter { $0.reason == reason }.count
    }
}
