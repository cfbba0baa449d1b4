/// When to give free memory back after a burst of runs (issue 39: after 1,000 runs in flight
/// ended, jobd's RSS stayed at its peak): once the runs in flight, having reached ``threshold``
/// or more since the last trim, fall to a quarter of that peak. A box whose runs come a few at a
/// time never trims; one burst trims once, as it drains.
struct BurstTrim {
    static let threshold = 64
    private(set) var inFlight = 0
    private var peak = 0

    mutating func started() {
        inFlight += 1
        peak = max(peak, inFlight)
    }

    /// A run ended; whether to trim now.
    mutating func ended() -> Bool {
        inFlight = max(0, inFlight - 1)
        guard peak >= Self.threshold, inFlight <= peak / 4 else { return false }
        peak = inFlight
        return true
    }
}
