import CMalloc
import JobdLocks
import JobdTimers

/// Gives jobd's free heap back to the system now, and ``laterTrims`` times more, ``delay`` apart,
/// after the last trim asked for (issue 39: jobd's RSS after a burst of runs).
///
/// Why later: the trim at a burst's end (``BurstTrim``) or after a reload runs as the main loop
/// records the event, while what follows it still holds memory: the history writer's and the
/// journal writer's queues, the last runs' tasks as they unwind, and the worker threads the burst
/// woke, which exit (handing their cached chunks back to the heap) after 5 s idle. With 1,000 runs
/// of `sleep` ended, a `malloc_trim` called 20 s later gave back another 0.5 to 6 MiB that the trim
/// at the end had left; one 10 s after the end left nothing for a trim by hand at 20 s. After 6,000,
/// the state writer was still writing their histories at 10 s, hence more than one. Not "until a
/// trim gives nothing back": `malloc_trim` says it gave memory back whenever free pages exist,
/// released before or not. A trim of a settled heap costs about a hundred `madvise` calls. One
/// timer, re-armed by each trim, so a series of trims makes one series of later ones.
final class SettledTrim: TimerTarget {
    /// Long enough for the writers to drain what a burst queued and the idle worker threads to
    /// exit, short against the 20 s after which `scripts/benchmark inflight` looks.
    static let delay = Duration.seconds(10)
    /// How many later trims follow the last trim asked for.
    static let laterTrims = 3
    private let timer: WeakTimer
    /// Later trims left in the current series.
    private let left = LockedBox(0)
    private let trim: @Sendable () -> Void

    /// `trim` gives the memory back: `malloc_trim(0)` unless a test says otherwise. The later
    /// trims run on the timing thread, not the main loop's: a trim takes about a millisecond, and
    /// the main loop may be busy with the next burst.
    init(queue: TimerQueue, trim: @escaping @Sendable () -> Void = { malloc_trim(0) }) {
        self.trim = trim
        timer = queue.makeTimer(label: "memory-trim")
        timer.bind(to: self)
    }

    deinit { timer.invalidate(reason: .ownerDeinit) }

    /// Trims now, and starts a new series of later trims.
    func trimNow() {
        trim()
        left.withLock { $0 = Self.laterTrims }
        timer.schedule(after: Self.delay)
    }

    func timerFired(_ timer: WeakTimer, at now: MonotonicInstant) {
        trim()
        let again = left.withLock { left in
            left -= 1
            return left > 0
        }
        if again { timer.schedule(after: Self.delay) }
    }
}
