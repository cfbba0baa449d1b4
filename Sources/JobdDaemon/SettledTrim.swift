import CMalloc
import JobdScheduler
import JobdTimers

/// Gives jobd's free heap back to the system now, and once more ``delay`` later (issue 39: jobd's
/// RSS after a burst of runs).
///
/// Why twice: the trim at a burst's end (``BurstTrim``) or after a reload runs as the main loop
/// records the event, while what follows it still holds memory: the history writer's and the
/// journal writer's queues, the last runs' tasks as they unwind, and the worker threads the burst
/// woke, which exit (handing their cached chunks back to the heap) after 5 s idle. With 1,000 runs
/// of `sleep` ended, a `malloc_trim` called 20 s later gave back another 0.9 to 2.4 MiB that the
/// trim at the end had left, and 0.8 MiB after a second trim 5 s after the end. One timer,
/// re-armed by each trim, so a series of trims makes one later trim.
final class SettledTrim: Sendable {
    /// Long enough for the writers to drain what a burst queued and the idle worker threads to
    /// exit, short against the 20 s after which `scripts/benchmark inflight` looks.
    static let delay = Duration.seconds(10)
    private let timer: DeadlineTimer
    private let trim: @Sendable () -> Void

    /// `trim` gives the memory back: `malloc_trim(0)` unless a test says otherwise. The later trim
    /// runs on the timing thread, not the main loop's: it takes about a millisecond, and the
    /// main loop may be busy with the next burst.
    init(queue: TimerQueue, trim: @escaping @Sendable () -> Void = { malloc_trim(0) }) {
        self.trim = trim
        timer = DeadlineTimer(queue: queue, label: "memory-trim", onDue: trim)
    }

    /// Trims now, and again ``delay`` after the last call.
    func trimNow() {
        trim()
        timer.arm(at: .now() + Self.delay)
    }
}
