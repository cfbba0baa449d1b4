/// When to give free memory back after a burst of runs (issue 39: after 1,000 runs in flight
/// ended, jobd's RSS stayed at its peak): each time the runs in flight, having reached
/// ``threshold`` or more since the last trim, fall to half of that level, and once more when the
/// last run of such a burst ends. A trim at a quarter of the peak alone left what the last quarter
/// freed in the heap (`scripts/benchmark inflight`: +7.5 MiB of 26.7 after 1,000 runs, +27 MiB
/// after 6,000). A box whose runs come a few at a time never trims; a burst of N trims about
/// log2(N / 64) + 2 times, as it drains.
package struct BurstTrim: Sendable {
    package static let threshold = 64
    package private(set) var inFlight = 0
    /// The most runs in flight since the last trim.
    private var peak = 0
    /// A burst was trimmed and has runs left: its end trims once more.
    private var draining = false

    package init() {}

    package mutating func started() {
        inFlight += 1
        peak = max(peak, inFlight)
    }

    /// A run ended; whether to trim now.
    package mutating func ended() -> Bool {
        inFlight = max(0, inFlight - 1)
        if peak >= Self.threshold, inFlight <= peak / 2 {
            peak = inFlight
            draining = inFlight > 0
            return true
        }
        guard draining, inFlight == 0 else { return false }
        draining = false
        peak = 0
        return true
    }
}
