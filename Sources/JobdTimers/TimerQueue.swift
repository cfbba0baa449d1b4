import Glibc
import Synchronization

/// The one timing source for every ``WeakTimer`` of a process: a heap of armed timers under one
/// lock, and a thread that sleeps on a single timerfd armed to the earliest deadline.
///
/// One kernel timer and one thread serve any number of timers, which keeps each timer to a few
/// dozen bytes and arming to a heap insertion; the thread is the timers' own, so they keep firing
/// while the rest of the process is busy. Deadlines are on `CLOCK_MONOTONIC` and armed as absolute
/// times, so lateness does not accumulate.
///
/// ``manual(observer:)`` makes a queue with no thread, for tests: nothing fires until the test
/// calls ``fireDue(now:)`` with the time it chooses.
public final class TimerQueue: Sendable {
    struct State {
        var heap = TimerHeap()
        /// Fires being delivered to their targets right now (each holds its target strongly).
        var deliveriesInFlight = 0
        var armedNanoseconds: UInt64?
        let driver: TimerfdDriver?
        /// The period of every armed repeating timer, by timer id: few timers repeat (jobd's
        /// watchdog), so the period is kept here rather than in every timer.
        var periods: [UInt64: UInt64] = [:]
        /// The targets of timers bound to a closure (``WeakTimer/bind(to:_:)``), by timer id: held
        /// strongly here, since the timer holds its target weakly; each holds its owner weakly.
        var closureTargets: [UInt64: any TimerTarget] = [:]

        /// Sets `timer`'s deadline and period, inserts or moves it, and re-arms the kernel timer if
        /// the earliest deadline changed.
        mutating func enqueue(_ timer: WeakTimer, at deadline: MonotonicInstant, repeating interval: Duration?) {
            timer.deadlineNanoseconds = deadline.nanoseconds
            if let interval {
                periods[timer.id] = UInt64(clamping: max(interval.nanosecondsSaturated, 1))
                timer.isRepeating = true
            } else if timer.isRepeating {
                periods[timer.id] = nil
                timer.isRepeating = false
            }
            heap.upsert(timer)
            rearm()
        }

        mutating func dequeue(_ timer: WeakTimer) {
            guard timer.heapIndex >= 0 else { return }
            heap.remove(timer)
            if timer.isRepeating {
                periods[timer.id] = nil
                timer.isRepeating = false
            }
            rearm()
        }

        /// Arming happens under the lock, so two threads can never leave the kernel timer armed
        /// for anything but the heap's current earliest deadline.
        mutating func rearm() {
            let earliest = heap.first?.deadlineNanoseconds
            guard earliest != armedNanoseconds else { return }
            armedNanoseconds = earliest
            driver?.arm(atNanoseconds: earliest)
        }
    }

    private let state: LockedState<State>
    private let nextID = Atomic<UInt64>(1)
    private let clockSetHandler = LockedState<(@Sendable () -> Void)?>(nil)
    let observer: (any TimerObserver)?
    /// Counts of what happened on this queue, for tests, status and the leak audit.
    public let statistics = TimerQueueStatistics()

    /// A queue with its own timing thread on a timerfd.
    public convenience init(observer: (any TimerObserver)? = nil) throws(TimerError) {
        let driver = try TimerfdDriver()
        self.init(driver: driver, observer: observer)
        driver.start(onExpiry: { [weak self] now in
            guard let self else { return false }
            self.fireDue(now: now)
            return true
        }, onClockSet: { [weak self] in
            self?.wallClockWasSet()
        })
    }

    /// A queue without a thread: timers fire only when ``fireDue(now:)`` is called.
    public static func manual(observer: (any TimerObserver)? = nil) -> TimerQueue {
        TimerQueue(driver: nil, observer: observer)
    }

    private init(driver: TimerfdDriver?, observer: (any TimerObserver)?) {
        self.state = LockedState(State(driver: driver))
        self.observer = observer
    }

    deinit {
        state.withLock { $0.driver?.stop() }
    }

    /// A new, valid, unarmed timer with no target yet: ``WeakTimer/bind(to:andScheduleAt:repeating:)``
    /// (or ``WeakTimer/bind(to:)``) gives it one.
    public func makeTimer(label: String, tag: UInt64 = 0) -> WeakTimer {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        statistics.recordTimerCreated()
        return WeakTimer(id: id, label: label, tag: tag, queue: self)
    }

    /// How many timers are armed.
    public var armedCount: Int { state.withLock { $0.heap.count } }

    /// The earliest armed deadline, or `nil` when no timer is armed.
    public var nextDeadline: MonotonicInstant? {
        state.withLock { $0.heap.first.map { MonotonicInstant(nanoseconds: $0.deadlineNanoseconds) } }
    }

    /// Fires every timer due at `now`: takes them off the heap (re-inserting repeating ones at
    /// their next period) under the lock, then delivers each without it. Safe to call from any
    /// thread, also concurrently. Returns how many timers were due.
    @discardableResult
    public func fireDue(now: MonotonicInstant = .now()) -> Int {
        let due: [WeakTimer] = state.withLock { state in
            var due: [WeakTimer] = []
            while let first = state.heap.first, first.deadlineNanoseconds <= now.nanoseconds {
                if first.isRepeating, let interval = state.periods[first.id] {
                    // Keep the phase; skip periods that were missed entirely rather than firing a burst.
                    let behind = (now.nanoseconds - first.deadlineNanoseconds) / interval + 1
                    first.deadlineNanoseconds += behind * interval
                    state.heap.upsert(first)
                } else {
                    _ = state.heap.popFirst()
                }
                due.append(first)
            }
            state.rearm()
            return due
        }
        for timer in due {
            timer.deliver(at: now)
        }
        return due.count
    }

    /// Returns once no fire is being delivered. After a caller has invalidated timers, a delivery
    /// that had already read its target may still hold it strongly; once this returns, none does,
    /// so an owner alive now is held by something else. Deliveries are short (a target only hands
    /// the fire on), so this yields the processor while it waits. Never call it from `timerFired`.
    public func waitForDeliveries() {
        while state.withLock({ $0.deliveriesInFlight }) > 0 { sched_yield() }
    }

    /// Calls `handler` on the timing thread whenever the wall clock is set or jumps (not on its
    /// steady progress). Timers on the queue are monotonic and do not move; a calendar schedule does.
    public func onWallClockSet(_ handler: @escaping @Sendable () -> Void) {
        clockSetHandler.withLock { $0 = handler }
    }

    /// Tells the handler that the wall clock was set. The timing thread calls it; a test with a
    /// manual queue may too.
    public func wallClockWasSet() {
        clockSetHandler.withLock { $0 }?()
    }

    func locked<Result>(_ body: (inout State) -> Result) -> Result {
        state.withLock { body(&$0) }
    }
}
