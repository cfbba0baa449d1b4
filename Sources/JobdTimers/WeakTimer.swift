/// A timer that holds its target weakly, so it can never keep its owner alive.
///
/// The pattern it exists for: an owner holds its timer strongly and binds itself as the timer's
/// target; the queue holds the timer only while it is armed. When the owner is released its
/// `deinit` runs (nothing else holds it), and it invalidates the timer there:
///
/// ```swift
/// final class Owner: TimerTarget {
///     let timer: WeakTimer
///     init(queue: TimerQueue) {
///         timer = queue.makeTimer(label: "owner")
///         timer.bind(to: self, andScheduleAt: .now() + .seconds(5), repeating: .seconds(5))
///     }
///     deinit { timer.invalidate(reason: .ownerDeinit) }
///     func timerFired(_ timer: WeakTimer, at now: MonotonicInstant) { /* short work */ }
/// }
/// ```
///
/// A fire reads the target once into a strong local and calls only that, under the same lock that
/// invalidation takes: a fire racing with the owner's release on another thread is either delivered
/// to a live owner or dropped, never delivered to one that has begun deinitializing (Swift's weak
/// references read as `nil` from the moment `deinit` begins). A fire that finds the target gone
/// invalidates the timer with ``InvalidationReason/targetGone``, so even an owner that forgot to
/// invalidate in `deinit` leaves no timer behind.
///
/// Every method is thread-safe. Invalidation is idempotent: the first reason wins and is reported
/// to the queue's ``TimerObserver`` exactly once.
///
/// Kept small, as there is one per job: 78 bytes of fields (a 96-byte allocation). The target is
/// one weak word, cast back to ``TimerTarget`` only when the timer fires; a repeating timer's
/// period lives in its queue, only while the timer is armed. The weak reference costs the target a
/// side table (about 48 bytes, once per object however many weak references it has): the price of
/// a timer that cannot keep its owner alive.
public final class WeakTimer: Sendable, CustomStringConvertible {
    /// Unique within the process, increasing in creation order.
    public let id: UInt64
    /// What the timer is for, for logs (a job's name, say): shared with the creator's string, not copied.
    public let label: String
    /// A number the creator chooses, for logs (jobd puts its owner's id here).
    public let tag: UInt64
    let queue: TimerQueue

    // All mutable state below is guarded by `queue`'s lock; nothing reads or writes it without it.
    /// Always a ``TimerTarget``: one word, where a weak `any TimerTarget` takes two.
    nonisolated(unsafe) weak var target: AnyObject?
    nonisolated(unsafe) var deadlineNanoseconds: UInt64 = 0
    nonisolated(unsafe) var heapIndex: Int32 = -1
    nonisolated(unsafe) var reason: InvalidationReason?
    /// Armed with a period, kept in the queue's state (``TimerQueue/State/periods``).
    nonisolated(unsafe) var isRepeating = false
    /// Bound to a closure, whose target the queue's state keeps (``TimerQueue/State/closureTargets``).
    nonisolated(unsafe) var hasClosureTarget = false

    init(id: UInt64, label: String, tag: UInt64, queue: TimerQueue) {
        self.id = id
        self.label = label
        self.tag = tag
        self.queue = queue
    }

    deinit {
        if hasClosureTarget { queue.locked { $0.closureTargets[id] = nil } }
        queue.statistics.recordTimerDeinit()
    }

    /// Makes `target` the object this timer calls. The timer holds it weakly.
    public func bind(to target: any TimerTarget) {
        queue.locked { state in
            self.dropClosureTarget(&state)
            self.target = target
        }
    }

    /// Makes `handler` what this timer calls, with `owner`: the form for an owner that would
    /// rather not conform to ``TimerTarget`` (the remedy of Foundation's block timers, without
    /// their retain cycle). The timer holds `owner` weakly; `handler` gets it strongly for the
    /// call only, and must not capture it (take it from the parameter). A fire that finds `owner`
    /// gone invalidates the timer with ``InvalidationReason/targetGone``.
    ///
    /// ```swift
    /// timer.bind(to: self) { owner, timer, now in owner.poll() }
    /// ```
    public func bind<Owner: AnyObject & Sendable>(
        to owner: Owner, _ handler: @escaping @Sendable (Owner, WeakTimer, MonotonicInstant) -> Void
    ) {
        let target = ClosureTarget(owner: owner, handler: handler)
        queue.locked { state in
            guard reason == nil else { return }
            state.closureTargets[id] = target
            hasClosureTarget = true
            self.target = target
        }
    }

    /// Forgets a closure target, with the queue's lock held.
    private func dropClosureTarget(_ state: inout TimerQueue.State) {
        guard hasClosureTarget else { return }
        state.closureTargets[id] = nil
        hasClosureTarget = false
    }

    /// Binds `target` and arms the timer for `deadline` (or disarms it for `nil`), under one lock:
    /// what an owner does each time it (re-)arms its timer. Returns `false`, and does nothing, when
    /// the timer was invalidated.
    @discardableResult
    public func bind(
        to target: any TimerTarget, andScheduleAt deadline: MonotonicInstant?, repeating interval: Duration? = nil
    ) -> Bool {
        let scheduled = queue.locked { state in
            guard reason == nil else { return false }
            dropClosureTarget(&state)
            self.target = target
            if let deadline {
                state.enqueue(self, at: deadline, repeating: interval)
            } else {
                state.dequeue(self)
            }
            return true
        }
        if scheduled, let deadline { queue.observer?.timerScheduled(self, deadline: deadline) }
        return scheduled
    }

    /// Arms the timer for `deadline` (re-arming it if it was armed), optionally repeating every
    /// `interval` after that. Returns `false`, and does nothing, when the timer was invalidated.
    @discardableResult
    public func schedule(at deadline: MonotonicInstant, repeating interval: Duration? = nil) -> Bool {
        let scheduled = queue.locked { state in
            guard reason == nil else { return false }
            state.enqueue(self, at: deadline, repeating: interval)
            return true
        }
        if scheduled { queue.observer?.timerScheduled(self, deadline: deadline) }
        return scheduled
    }

    /// Arms the timer `delay` from now.
    @discardableResult
    public func schedule(after delay: Duration, repeating interval: Duration? = nil) -> Bool {
        schedule(at: .now() + delay, repeating: interval)
    }

    /// Disarms the timer without invalidating it: it can be scheduled again.
    public func cancel() {
        queue.locked { state in state.dequeue(self) }
    }

    /// Invalidates the timer: it is disarmed and never fires again. Returns `true` for the call
    /// that invalidated it, `false` if it already was (the first reason stands).
    @discardableResult
    public func invalidate(reason: InvalidationReason) -> Bool {
        let invalidated = queue.locked { state in
            guard self.reason == nil else { return false }
            self.reason = reason
            self.target = nil
            dropClosureTarget(&state)
            state.dequeue(self)
            return true
        }
        if invalidated {
            queue.statistics.recordInvalidation(reason)
            queue.observer?.timerInvalidated(self, reason: reason)
        }
        return invalidated
    }

    /// `false` once the timer was invalidated.
    public var isValid: Bool { queue.locked { _ in reason == nil } }

    /// Why the timer was invalidated, or `nil` while it is valid.
    public var invalidationReason: InvalidationReason? { queue.locked { _ in reason } }

    /// When the timer fires next, or `nil` when it is not armed.
    public var deadline: MonotonicInstant? {
        queue.locked { _ in heapIndex >= 0 ? MonotonicInstant(nanoseconds: deadlineNanoseconds) : nil }
    }

    public var description: String { "timer \(id) (\(label))" }

    /// Called by the queue, without its lock, for a fire it has taken off the heap.
    func deliver(at now: MonotonicInstant) {
        switch deliverToTarget(at: now) {
        case .delivered:
            // The target was released when deliverToTarget returned: the delivery is over.
            queue.locked { $0.deliveriesInFlight -= 1 }
        case .dropped:
            queue.statistics.recordDropped()
        case .targetGone:
            queue.statistics.recordDropped()
            invalidate(reason: .targetGone)
        }
    }

    private enum DeliveryOutcome {
        case delivered
        case dropped
        case targetGone
    }

    /// Reads the weak target once, into a strong local, under the lock that invalidation takes,
    /// and calls it. The strong reference lives in this function's frame only, so it is gone when
    /// this returns (``TimerQueue/waitForDeliveries()`` relies on that).
    private func deliverToTarget(at now: MonotonicInstant) -> DeliveryOutcome {
        let (strong, outcome): ((any TimerTarget)?, DeliveryOutcome) = queue.locked { state in
            guard reason == nil else { return (nil, .dropped) }
            // Only `bind` sets the target, always with a TimerTarget: the cast cannot fail.
            guard let target = target.map({ $0 as! any TimerTarget }) else { return (nil, .targetGone) }
            state.deliveriesInFlight += 1
            return (target, .delivered)
        }
        guard let strong else { return outcome }
        queue.statistics.recordDelivered()
        strong.timerFired(self, at: now)
        return .delivered
    }
}
