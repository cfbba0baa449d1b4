import Foundation
package import JobdTimers
import Synchronization

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
