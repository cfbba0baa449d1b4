import Glibc
import JobdLocks
import JobdSystem

/// The thread a ``FleetDatabase`` runs on: a serial executor with a thread of its own, so that
/// libpq's blocking calls (each bounded by its deadline) never hold one of Swift's few concurrency
/// threads, which jobd's main loop and runs share. Jobs run one at a time, in the order they came.
///
/// Its owner (the database) stops it when it goes away: the thread runs what is queued, then ends.
final class FleetExecutor: SerialExecutor, @unchecked Sendable {
    private struct Queue {
        var jobs: [UnownedJob] = []
        var stopping = false
        /// The executor's thread, once it runs.
        var thread: pthread_t?
    }

    private let queue = LockedBox(Queue())
    /// Posted once for each job queued and once for the stop; the thread waits on it.
    private let wake = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init() throws(FleetError) {
        sem_init(wake, 0, 0)
        do throws(DetachedThread.StartError) {
            try DetachedThread.start { [self] in run() }
        } catch {
            sem_destroy(wake)
            wake.deallocate()
            throw FleetError(.connection, "the fleet's database thread: \(error)")
        }
    }

    deinit {
        sem_destroy(wake)
        wake.deallocate()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.jobs.append(job) }
        sem_post(wake)
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func checkIsolated() {
        let thread = queue.withLock { $0.thread }
        precondition(thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false,
                     "not on the fleet database's thread")
    }

    /// Ends the thread once the jobs queued so far ran; nothing may be queued after.
    func stop() {
        queue.withLock { $0.stopping = true }
        sem_post(wake)
    }

    private func run() {
        queue.withLock { $0.thread = pthread_self() }
        while true {
            _ = retryingOnInterrupt { sem_wait(wake) }
            let next = queue.withLock { queue -> UnownedJob?? in
                if !queue.jobs.isEmpty { return .some(queue.jobs.removeFirst()) }
                return queue.stopping ? .none : .some(nil)
            }
            switch next {
            case .none: return
            case .some(nil): continue
            case .some(let job?): job.runSynchronously(on: asUnownedSerialExecutor())
            }
        }
    }
}
