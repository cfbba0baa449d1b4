import Glibc

/// State behind a pthread mutex.
///
/// Not `Synchronization.Mutex`: on Linux that is built on raw futexes, which the thread sanitizer
/// cannot see, so every access under it is reported as a race and a real race would drown in the
/// noise. The timer core is tested under the thread sanitizer, so it locks with pthreads, which
/// the sanitizer understands.
final class LockedState<State>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var state: State

    init(_ state: State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let result = pthread_mutex_init(mutex, nil)
        precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state)
    }
}
