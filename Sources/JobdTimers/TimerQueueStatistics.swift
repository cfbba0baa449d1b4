import Synchronization

/// Counters of a ``TimerQueue``'s life, kept with relaxed atomics: cheap enough for every fire.
public final class TimerQueueStatistics: Sendable {
    private let created = Atomic<Int>(0)
    private let deinitialized = Atomic<Int>(0)
    private let delivered = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    private let ownerDeinit = Atomic<Int>(0)
    private let targetGone = Atomic<Int>(0)
    private let shutdown = Atomic<Int>(0)

    /// Timers created and not yet deinitialized.
    public var liveTimers: Int {
        created.load(ordering: .relaxed) - deinitialized.load(ordering: .relaxed)
    }
    /// Timers ever created on this queue.
    public var timersCreated: Int { created.load(ordering: .relaxed) }
    /// Fires delivered to a live target.
    public var firesDelivered: Int { delivered.load(ordering: .relaxed) }
    /// Fires dropped: the timer was invalidated after it fell due, or its target was gone.
    public var firesDropped: Int { dropped.load(ordering: .relaxed) }

    /// Invalidations with `reason`.
    public func invalidations(_ reason: InvalidationReason) -> Int {
        switch reason {
        case .ownerDeinit: ownerDeinit.load(ordering: .relaxed)
        case .targetGone: targetGone.load(ordering: .relaxed)
        case .shutdown: shutdown.load(ordering: .relaxed)
        }
    }

    func recordTimerCreated() { created.add(1, ordering: .relaxed) }
    func recordTimerDeinit() { deinitialized.add(1, ordering: .relaxed) }
    func recordDelivered() { delivered.add(1, ordering: .relaxed) }
    func recordDropped() { dropped.add(1, ordering: .relaxed) }
    func recordInvalidation(_ reason: InvalidationReason) {
        switch reason {
        case .ownerDeinit: ownerDeinit.add(1, ordering: .relaxed)
        case .targetGone: targetGone.add(1, ordering: .relaxed)
        case .shutdown: shutdown.add(1, ordering: .relaxed)
        }
    }
}
