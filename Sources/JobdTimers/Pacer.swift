/// When a change is told, for what may be told at most once an interval while it keeps changing
/// (jobd's `STATUS=`): the first change after a quiet interval at once, and the changes that
/// follow it once, together, at the end of the interval since the last telling. A pure value: the
/// caller tells, and arms its timer where ``changed(now:)`` says.
package struct Pacer: Sendable {
    /// When a change is to be told.
    package enum Pace: Equatable, Sendable {
        /// Now: nothing was told in the last interval. The caller tells, and calls ``told(at:)``.
        case now
        /// At this instant, the end of the interval since the last telling: the caller arms its
        /// timer, and tells when ``isDue(now:)`` says so.
        case at(MonotonicInstant)
        /// With the change that waits already.
        case pending
    }

    package let interval: Duration
    private var lastTold: MonotonicInstant?
    /// When the change that waits is due, if one waits.
    private var pendingAt: MonotonicInstant?

    package init(interval: Duration) {
        self.interval = interval
    }

    /// Something changed at `now`: when to tell it.
    package mutating func changed(now: MonotonicInstant) -> Pace {
        if pendingAt != nil { return .pending }
        guard let lastTold, now < lastTold + interval else { return .now }
        pendingAt = lastTold + interval
        return .at(lastTold + interval)
    }

    /// The timer armed for ``Pace/at(_:)`` fired at `now`: whether the change that waited is to be
    /// told now (not when it was told since, or its time has not come).
    package mutating func isDue(now: MonotonicInstant) -> Bool {
        guard let pendingAt, now >= pendingAt else { return false }
        self.pendingAt = nil
        return true
    }

    /// It was told at `now`, with whatever waited.
    package mutating func told(at now: MonotonicInstant) {
        lastTold = now
        pendingAt = nil
    }
}
