import JobdTimers
import Foundation
import Synchronization

/// Counts shared by a family of ``CountingOwner``s: deinits, fires, and any fire that reached an
/// owner after its `deinit` began (which must never happen).
package final class OwnerLedger: Sendable {
    private let deinits = Atomic<Int>(0)
    private let fires = Atomic<Int>(0)
    private let firesAfterDeinit = Atomic<Int>(0)
    private let deinitialized = Guarded<Set<Int>>([])

    package init() {}

    package var deinitCount: Int { deinits.load(ordering: .sequentiallyConsistent) }
    package var fireCount: Int { fires.load(ordering: .sequentiallyConsistent) }
    package var firesAfterDeinitCount: Int { firesAfterDeinit.load(ordering: .sequentiallyConsistent) }

    func ownerFired(_ serial: Int) {
        fires.add(1, ordering: .sequentiallyConsistent)
        if deinitialized.withLock({ $0.contains(serial) }) {
            firesAfterDeinit.add(1, ordering: .sequentiallyConsistent)
        }
    }

    /// Counts a fire delivered to a target that is not a ``CountingOwner``.
    package func recordExternalFire() {
        fires.add(1, ordering: .sequentiallyConsistent)
    }

    func ownerDeinitBegan(_ serial: Int) {
        deinitialized.withLock { _ = $0.insert(serial) }
        deinits.add(1, ordering: .sequentiallyConsistent)
    }
}

/// An owner in the shape jobd's job owners have: it holds its timer, is the timer's target, and
/// invalidates the timer in `deinit` (unless told not to, to play an owner that forgets).
package final class CountingOwner: TimerTarget {
    package let serial: Int
    package let timer: WeakTimer
    private let ledger: OwnerLedger
    private let invalidatesInDeinit: Bool

    package init(serial: Int, queue: TimerQueue, ledger: OwnerLedger, invalidatesInDeinit: Bool = true) {
        self.serial = serial
        self.ledger = ledger
        self.invalidatesInDeinit = invalidatesInDeinit
        self.timer = queue.makeTimer(label: "owner-\(serial)")
        timer.bind(to: self)
    }

    deinit {
        ledger.ownerDeinitBegan(serial)
        if invalidatesInDeinit {
            timer.invalidate(reason: .ownerDeinit)
        }
    }

    package func timerFired(_ timer: WeakTimer, at now: MonotonicInstant) {
        ledger.ownerFired(serial)
    }
}
