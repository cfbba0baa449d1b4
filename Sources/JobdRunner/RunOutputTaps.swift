import JobdLocks

/// Who follows a run's output as it is logged (`jobctl run --wait`), by run id. The runner hands
/// each line to the run's tap, if it has one, right after logging it; a tap must not block (the
/// control reply behind it queues a bounded number of lines and counts what it drops).
package final class RunOutputTaps: Sendable {
    /// Called with each line and whether it came from standard output (else standard error).
    package typealias Tap = @Sendable (_ line: String, _ standardOutput: Bool) -> Void

    private let taps = LockedBox<[UInt64: Tap]>([:])

    package init() {}

    package func add(runID: UInt64, _ tap: @escaping Tap) {
        taps.withLock { $0[runID] = tap }
    }

    package func remove(runID: UInt64) {
        _ = taps.withLock { $0.removeValue(forKey: runID) }
    }

    package func deliver(runID: UInt64, line: String, standardOutput: Bool) {
        taps.withLock { $0[runID] }?(line, standardOutput)
    }
}
