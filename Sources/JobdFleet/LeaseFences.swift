import Glibc

/// Where a node keeps the deadlines of the claimed runs it runs: each run's fence file, which the
/// run's supervisor in `jobd-cgexec` watches, so that the run stops when its lease may end even
/// while jobd is stopped or stalled. ``FleetDatabase`` calls these on its own thread, after the
/// claim and after each renewal.
package struct LeaseFences: Sendable {
    /// Sets a run's deadline (``boottime()`` microseconds; 0: stop the run now).
    package var extend: @Sendable (_ runID: String, _ deadline: Int64) -> Void
    /// Removes a run's fence: the run ended.
    package var remove: @Sendable (_ runID: String) -> Void
    /// The clock of deadlines: ``boottime()``, or a test's.
    package var now: @Sendable () -> Int64
    /// A run's deadline as its fence file has it now (`nil`: no fence): what an earlier jobd set
    /// for a run this one adopts (issue 36).
    package var read: @Sendable (_ runID: String) -> Int64?

    package init(extend: @escaping @Sendable (String, Int64) -> Void, remove: @escaping @Sendable (String) -> Void,
                 now: @escaping @Sendable () -> Int64 = LeaseFences.boottime, read: @escaping @Sendable (String) -> Int64? = { _ in nil }) {
        self.extend = extend
        self.remove = remove
        self.now = now
        self.read = read
    }

    /// `CLOCK_BOOTTIME` now, in microseconds: the clock of fences, which counts the time a
    /// suspended machine slept (`CLOCK_MONOTONIC` does not).
    package static func boottime() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }
}
