import Glibc
package import JobdLocks
import JobdSystem

/// The bounded queue between jobd's log calls and the one thread that writes the entries out.
///
/// A log call only queues its entry (``submit(_:)``) and returns: no thread that fires timers,
/// answers a client or pings the watchdog ever waits for journald, however long journald stalls
/// (a slow disk, a rotation, a restart, SIGSTOP). When the backlog is full (``LogBacklog/Limits``),
/// entries are counted, not waited for, and as soon as an entry is written again, a `log.dropped`
/// entry says how many of which events were lost. The logging thread writes in the order entries
/// were queued; its writer may block as long as it must.
///
/// One exception keeps a job's output whole while journald is merely slower than the job: a
/// `run.output` line that finds the output's share full waits for room, as long as the writer has
/// written an entry within ``outputPatience`` (journald takes entries, only slowly), so the job is
/// slowed to journald's pace as before. Once journald has taken nothing for that long, output lines
/// are dropped and counted at once like any other entry. Only the threads that read jobs' output
/// log `run.output`.
///
/// Whoever starts the queue stops it (``stop(within:)``), which writes what waits first, so that
/// nothing is lost on a clean exit. Before ``start()`` and after the stop, entries are written on
/// the caller's thread.
package final class LogQueue: @unchecked Sendable {
    private enum State {
        case notStarted, running, stopping, stopped
    }

    private let lock = Lock()
    /// Under `lock`, as `state` and `sleeping`.
    private var backlog: LogBacklog
    private var state = State.notStarted
    /// The logging thread waits on `wake` for work; whoever queues then posts it once.
    private var sleeping = false
    private let wake = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    /// Posted by the logging thread when it has written everything after a stop.
    private let finished = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    /// Output lines waiting for room wait on `room`; the logging thread posts it after each entry.
    private let room = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private var roomWaiters = 0
    /// When the writer last finished writing an entry.
    private var lastWritten: ContinuousClock.Instant?
    private let write: @Sendable (LogRecord) -> Void
    /// How recently the writer must have written for a job's output line to wait for room rather
    /// than be dropped.
    package let outputPatience: Duration

    /// - Parameter write: writes one entry out (to the journal, or stderr); runs on the logging thread.
    package init(
        limits: LogBacklog.Limits = .jobd, outputPatience: Duration = .milliseconds(500),
        write: @escaping @Sendable (LogRecord) -> Void
    ) {
        backlog = LogBacklog(limits: limits)
        self.outputPatience = outputPatience
        self.write = write
        for semaphore in [wake, finished, room] { sem_init(semaphore, 0, 0) }
    }

    deinit {
        for semaphore in [wake, finished, room] {
            sem_destroy(semaphore)
            semaphore.deallocate()
        }
    }

    /// Starts the logging thread.
    package func start() throws(DetachedThread.StartError) {
        let failure = lock.withLock { () -> DetachedThread.StartError? in
            guard state == .notStarted else { return nil }
            do throws(DetachedThread.StartError) {
                try DetachedThread.start { [self] in drain() }
            } catch {
                return error
            }
            state = .running
            return nil
        }
        if let failure { throw failure }
    }

    /// Queues `record` for the logging thread, or drops and counts it when the backlog is full.
    /// Never waits for the writer.
    package func submit(_ record: LogRecord) {
        let isOutput = LogBacklog.isOutput(record)
        while true {
            enum Outcome { case queued(wake: Bool), waitForRoom, direct }
            let outcome = lock.withLock { () -> Outcome in
                switch state {
                case .notStarted, .stopped:
                    return .direct
                case .running, .stopping:
                    if isOutput, !backlog.fits(record), let lastWritten, ContinuousClock.now - lastWritten < outputPatience {
                        roomWaiters += 1
                        return .waitForRoom
                    }
                    let wake = backlog.offer(record) && sleeping
                    if wake { sleeping = false }
                    return .queued(wake: wake)
                }
            }
            switch outcome {
            case .queued(let wake):
                if wake { sem_post(self.wake) }
                return
            case .direct:
                write(record)
                return
            case .waitForRoom:
                var deadline = timespec()
                clock_gettime(CLOCK_REALTIME, &deadline)
                deadline.tv_nsec += 20_000_000
                if deadline.tv_nsec >= 1_000_000_000 {
                    deadline.tv_sec += 1
                    deadline.tv_nsec -= 1_000_000_000
                }
                _ = sem_timedwait(room, &deadline)
                lock.withLock { roomWaiters -= 1 }
            }
        }
    }

    /// Entries waiting, and entries dropped since the last `log.dropped`.
    package var pending: (waiting: Int, dropped: Int) {
        lock.withLock { (backlog.count, backlog.dropped.total) }
    }

    /// Writes what waits, then ends the logging thread; waits for that at most `timeout` (a
    /// journald that takes nothing must not keep jobd from exiting). Returns whether everything
    /// was written.
    @discardableResult
    package func stop(within timeout: Duration) -> Bool {
        let running = lock.withLock {
            guard state == .running else { return state == .stopping }
            state = .stopping
            if sleeping {
                sleeping = false
                sem_post(wake)
            }
            return true
        }
        guard running else { return true }
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let (seconds, attoseconds) = timeout.components
        deadline.tv_sec += Int(seconds)
        deadline.tv_nsec += Int(attoseconds / 1_000_000_000)
        if deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        // An absolute deadline: waited for again as it is.
        return retryingOnInterrupt { sem_timedwait(finished, &deadline) } == 0
    }

    /// The logging thread: writes entries in order, and after each, the drops since the last one.
    private func drain() {
        while true {
            enum Next { case write(LogRecord), wait, done }
            let next: Next = lock.withLock {
                if let record = backlog.take() { return .write(record) }
                if state == .stopping {
                    state = .stopped
                    return .done
                }
                sleeping = true
                return .wait
            }
            switch next {
            case .write(let record):
                write(record)
                let waiters = lock.withLock {
                    lastWritten = .now
                    return roomWaiters
                }
                for _ in 0..<waiters { sem_post(room) }
                // The writer took an entry: journald (or stderr) takes entries again, so the
                // drops are reported now, not after the backlog.
                if let dropped = lock.withLock({ backlog.takeDropped() }) {
                    var now = timespec()
                    clock_gettime(CLOCK_REALTIME, &now)
                    write(dropped.report(seconds: now.tv_sec, nanoseconds: now.tv_nsec))
                }
            case .wait:
                _ = retryingOnInterrupt { sem_wait(wake) }
            case .done:
                sem_post(finished)
                return
            }
        }
    }
}
