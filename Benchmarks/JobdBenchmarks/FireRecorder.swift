import Dispatch
import JobdTimers
import Synchronization

/// Where the owners of a timer benchmark note when their timer fired: one slot per owner, written
/// once from whichever thread delivers the fire, and a signal when every owner has fired once.
final class FireRecorder: @unchecked Sendable {
    /// When each owner's timer was due, on `CLOCK_MONOTONIC`.
    let deadlines: [MonotonicInstant]
    // Slot i is written only by owner i's first fire, and read only after `waitForAll` returned.
    private let fires: UnsafeMutableBufferPointer<UInt64>
    private let fired = Atomic<Int>(0)
    private let armed = Atomic<Int>(0)
    private let allFired = DispatchSemaphore(value: 0)
    private let allArmed = DispatchSemaphore(value: 0)

    init(deadlines: [MonotonicInstant]) {
        self.deadlines = deadlines
        fires = .allocate(capacity: deadlines.count)
        fires.initialize(repeating: 0)
    }

    deinit {
        fires.deallocate()
    }

    var count: Int { deadlines.count }

    /// Owner `index`'s timer fired now. Later fires of the same owner are ignored.
    func recordFire(_ index: Int) {
        let now = MonotonicInstant.now().nanoseconds
        guard fires[index] == 0 else { return }
        fires[index] = now
        if fired.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == count { allFired.signal() }
    }

    /// Owner `index`'s timer is armed (for contenders that arm asynchronously, such as tasks).
    func recordArmed() {
        if armed.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == count { allArmed.signal() }
    }

    /// Waits until every owner recorded that it armed; `false` after `timeout`.
    func waitUntilAllArmed(timeout: Duration) -> Bool {
        allArmed.wait(timeout: .now() + .nanoseconds(Int(timeout.nanosecondsSaturated))) == .success
    }

    /// Waits until every owner's timer fired once; `false` after `timeout` (then some never fired).
    func waitForAll(timeout: Duration) -> Bool {
        allFired.wait(timeout: .now() + .nanoseconds(Int(timeout.nanosecondsSaturated))) == .success
    }

    /// How late each fire was, in nanoseconds (fires that never came are left out).
    var lateness: [Int64] {
        (0..<count).compactMap { index in
            fires[index] == 0 ? nil : Int64(fires[index]) - Int64(deadlines[index].nanoseconds)
        }
    }

    var firedCount: Int { fired.load(ordering: .acquiring) }
}
