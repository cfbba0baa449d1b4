import JobdTimers
import Testing

/// A ``Pacer`` tells the first change after a quiet interval at once, and the changes after it
/// together, at the end of the interval since the last telling.
struct PacerTests {
    private let start = MonotonicInstant(nanoseconds: 5_000_000_000)

    private func at(_ milliseconds: Int64) -> MonotonicInstant { start + .milliseconds(milliseconds) }

    @Test func aChangeAfterAQuietIntervalIsToldAtOnceAndTheNextOnesAtTheIntervalsEnd() {
        var pacer = Pacer(interval: .milliseconds(100))
        let first = pacer.changed(now: at(0))
        pacer.told(at: at(0))
        let (second, third) = (pacer.changed(now: at(10)), pacer.changed(now: at(60)))
        let (early, due) = (pacer.isDue(now: at(99)), pacer.isDue(now: at(100)))
        pacer.told(at: at(100))
        let (again, later) = (pacer.isDue(now: at(100)), pacer.changed(now: at(250)))
        #expect(first == .now)
        #expect(second == .at(at(100)))
        #expect(third == .pending, "one timer for every change of the interval")
        #expect(!early && due)
        #expect(!again, "what waited was told")
        #expect(later == .now, "a quiet interval since")
    }

    @Test func aTellingInBetweenTakesTheChangeThatWaited() {
        var pacer = Pacer(interval: .milliseconds(100))
        pacer.told(at: at(0))
        let waiting = pacer.changed(now: at(30))
        pacer.told(at: at(40))
        let (due, next) = (pacer.isDue(now: at(100)), pacer.changed(now: at(120)))
        #expect(waiting == .at(at(100)))
        #expect(!due, "told at 40 ms, with what waited")
        #expect(next == .at(at(140)))
    }
}
