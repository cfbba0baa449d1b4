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
