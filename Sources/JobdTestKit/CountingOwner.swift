import JobdTimers
import Foundation
import Synchronization

/// Counts shared by a family of ``CountingOwner``s: deinits, fires, and any fire that reached an
/// owner after its `deinit` began (which must never happen).
public final class OwnerLedger: Sendable {
    private let deinits = Atomic<Int>(0)
    private let fires = Atomic<Int>(0)
    private let firesAfterDeinit = Atomic<Int>(0)
    private let deinitialized = Guarded<Set<Int>>([])

    public init() {}

    public var deinitCount: Int { deinits.load(ordering: .sequentiallyConsistent) }
    public var fireCount: Int { fires.load(ordering: .sequentiallyConsistent) }
    public var firesAfterDeinitCount: Int { firesAfterDeinit.load(ordering: .sequentiallyConsistent) }

    func ownerFired(_ serial: Int) {
        fires.add(1, ordering: .sequentiallyConsistent)
        if deinitialized.withLock({ $0.contains(serial) }) {
            firesAfterDeinit.add(1, ordering: .sequentiallyConsistent)
        }
    }

    /// Counts a fire delivered to a target that is not a ``CountingOwner``.
    public func recordExternalFire() {
        fires.add(1, ordering: .sequentiallyConsistent)
    }

    func ownerDeinitBegan(_ serial: Int) {
        deinitialized.withLock { _ = $0.insert(serial) }
        deinits.add(1, ordering: .sequentiallyConsistent)
    }
}

/// An owner in the shape jobd's job owners have: it holds its timer, is the timer's target, and
/// invalidates the timer in `deinit` (unless told not to, to play an owner that forgets).
public final class CountingOwner: TimerTarget {
    public let serial: Int
    public let timer: WeakTimer
    private let ledger: OwnerLedger
    private let invalidatesInDeinit: Bool

    public init(serial: Int, queue: TimerQueue, ledger: OwnerLedger, invalidatesInDeinit: Bool = true) {
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

    public func timerFired(_ timer: WeakTimer, at now: MonotonicInstant) {
        ledger.ownerFired(serial)
    }
}
